/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The live fabric described for people and programs: "show" (text and
 * JSON), "dump" (ibnetdiscover's output format, which the topology reader
 * loads back) and "dot" (Graphviz).  Pure functions of the model: they
 * read the fabric (and the net's counts) and append text to a buffer; the
 * caller holds the fabric's lock while they run.  No state of their own,
 * so any number of threads may describe fabrics at once.
 */
#ifndef SIMFABRIC_DESCRIBE_H
#define SIMFABRIC_DESCRIBE_H

#include <stddef.h>
#include <stdint.h>

#include "simfabric/fabric.h"
#include "simfabric/text.h"

struct sim_net;

struct sim_describe_opts {
	/*
	 * show, JSON, dot: only the nodes whose id, NodeDescription or GUID
	 * ("0x..", node or port GUID) this is (dot: with their neighbours).
	 * NULL: every node.  dump refuses it (-EINVAL): it writes whole fabrics.
	 */
	const char *node;
	/* show and JSON: the MADs the net lost, by cause, and the traps it sent; NULL: none. */
	const struct sim_net *net;
	/*
	 * dump: the port ibnetdiscover runs from, which orders the nodes as it
	 * does (NULL: the first CA port, in file order, whose link is up; else
	 * the first switch's port 0).
	 */
	const struct sim_port *start;
	/* show: also the ports without a cable (by default only cabled ports are listed). */
	int all_ports;
};

/*
 * Text for a person: a summary line, then each node (type, id, description,
 * GUID, LID) and its ports (state/physical state, width and speed, LID,
 * the far end's node and port, non-zero error counters, packet drops).
 * opts may be NULL.  0; -EINVAL for a NULL fabric or text; -ENOENT when
 * opts->node names no node; -ENOMEM.  What was appended before an error
 * stays in the text.
 */
int sim_describe_show(const struct sim_fabric *f, const struct sim_describe_opts *opts,
		      struct sim_text *out);

/*
 * The same as one JSON document (UTF-8; bytes of a NodeDescription that
 * are not UTF-8 are written as \u00XX):
 *   { "summary": {...}, "net": {...} (with opts->net), "nodes": [ { "type",
 *     "id", "desc", "guid", "sys_guid", "lid", "lmc", "num_ports",
 *     "ports": [ { "num", "guid", "state", "phys_state", "width", "speed",
 *     "lid", "lmc", "failed", "peer": { "id", "guid", "desc", "port" } | null,
 *     "counters": { PMA name: count }, "traffic": {...}, "drop": {...} } ] } ] }
 * GUIDs as "0x%016x" strings (JSON numbers lose 64-bit precision), every
 * port 1..N listed (a switch's port 0 too), every error counter listed.
 * Errors as sim_describe_show.
 */
int sim_describe_json(const struct sim_fabric *f, const struct sim_describe_opts *opts,
		      struct sim_text *out);

/*
 * The fabric as Debian's ibnetdiscover prints it (switches, then CAs,
 * then routers, each in the reverse of the breadth-first order discovery
 * from opts->start finds them; nodes it cannot reach follow in file
 * order), so that sim_topology_parse() loads the same nodes, GUIDs, links,
 * active widths and speeds, and LIDs (as file LIDs) back.  As in
 * ibnetdiscover, only ports whose link is up are listed.  The header says
 * no date, so that equal fabrics dump equal texts.  0, -EINVAL (NULL
 * arguments, opts->node set, opts->start not a port of f, or port 0 of a
 * CA or router), -ENOMEM.
 */
int sim_describe_dump(const struct sim_fabric *f, const struct sim_describe_opts *opts,
		      struct sim_text *out);

/*
 * Graphviz ("graph fabric { ... }"): switches as boxes, CAs as ellipses,
 * routers as hexagons, labelled with id, description, GUID and LIDs; one
 * edge per cable, labelled with the ports at both ends and the active
 * width and speed; cables whose link is down dashed and red.  Errors as
 * sim_describe_show.
 */
int sim_describe_dot(const struct sim_fabric *f, const struct sim_describe_opts *opts,
		     struct sim_text *out);

/* Names for messages and the outputs above: "Active", "LinkUp", "4X"... ("?" when unknown). */
const char *sim_port_state_name(unsigned state);
const char *sim_phys_state_name(unsigned phys_state);
const char *sim_node_type_name(enum node_type type);

#endif /* SIMFABRIC_DESCRIBE_H */
