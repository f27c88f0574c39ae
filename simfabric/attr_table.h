/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * One table per management class of what its agent answers: a row per
 * attribute, with the attribute's body as a field list (mad_layout.h, in
 * wire order) and the handler that answers it.  The class's dispatcher
 * finds the row and applies what the row says before the handler runs:
 * an attribute the table lacks, or a node the row's answers_at refuses,
 * or a Set of a row that takes none, is answered "attribute not
 * supported", as hardware answers; only then does the handler see the
 * request.  Adding an attribute is a field list, a handler and a row.
 *
 * The handler's argument is the class's own request (struct sma_request
 * for the SMA, struct pma_request for the PMA): each class's handlers take
 * that one type, which carries the row, so that one handler can answer
 * many rows by their detail (the PMA's counters).
 */
#ifndef SIMFABRIC_ATTR_TABLE_H
#define SIMFABRIC_ATTR_TABLE_H

#include <stddef.h>
#include <stdint.h>

#include "base/mad_layout.h"
#include "simfabric/fabric.h"

struct sim_attr {
	uint16_t id;			/* the attribute ID, host order */
	uint8_t settable;		/* a Set is taken (else refused as not supported) */
	const char *name;		/* as the IBA (or the vendor) names it */
	const mad_field_t *fields;	/* the body, in wire order, reserved bits included */
	unsigned n_fields;
	/* Whether node n has the attribute at all (NULL: every node). */
	int (*answers_at)(const struct sim_node *n);
	/* Answer the class's request in place: a MAD status, or the class's own codes. */
	int (*answer)(void *request);
	const void *detail;		/* the class's own, for a handler many rows share */
};

/* A field list as a row takes it: NAME##_FIELDS of mad_layout.h, as an array. */
#define SIM_ATTR_FIELD_ITEM(name, byte, bit, bits)	name,
#define SIM_ATTR_FIELD_LIST(var, NAME) \
	static const mad_field_t var[] = { NAME##_FIELDS(SIM_ATTR_FIELD_ITEM) }
#define SIM_ATTR_N(array)	(sizeof(array) / sizeof((array)[0]))
#define SIM_ATTR_FIELDS(var)	(var), (unsigned)SIM_ATTR_N(var)

/* The row of attribute id among n rows, or NULL. */
static inline const struct sim_attr *sim_attr_find(const struct sim_attr *rows, size_t n,
						   uint16_t id)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].id == id)
			return &rows[i];
	return NULL;
}

/*
 * The row that answers attribute id at node n, or NULL when the table
 * refuses the request before any handler ("attribute not supported"): no
 * such row, a node without the attribute, or a Set of a row that takes none.
 */
static inline const struct sim_attr *sim_attr_take(const struct sim_attr *rows, size_t n,
						   uint16_t id, const struct sim_node *node, int set)
{
	const struct sim_attr *a = sim_attr_find(rows, n, id);

	if (!a || (a->answers_at && !a->answers_at(node)) || (set && !a->settable))
		return NULL;
	return a;
}

/* Rows' answers_at: switches (with their switch state), channel adapters. */
static inline int sim_attr_at_switches(const struct sim_node *n)
{
	return n->type == NODE_TYPE_SWITCH && n->sw;
}

static inline int sim_attr_at_cas(const struct sim_node *n)
{
	return n->type == NODE_TYPE_CA;
}

#endif /* SIMFABRIC_ATTR_TABLE_H */
