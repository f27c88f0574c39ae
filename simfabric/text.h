/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The one string builder of simfabric: what describes the fabric, reports
 * a fault or a scenario, and puts a parse error together writes into it.
 * No state outside the struct: any number of threads, one text each.
 */
#ifndef SIMFABRIC_TEXT_H
#define SIMFABRIC_TEXT_H

#include <stdarg.h>
#include <stddef.h>

/*
 * A text that grows as it is written.  Zero it (or SIM_TEXT_INIT) before
 * the first use, release it with sim_text_free().  The first allocation
 * that fails sticks in err (-ENOMEM, later appends do nothing), so that a
 * long series of appends is checked once at the end.
 */
struct sim_text {
	char *buf;		/* NUL-terminated once anything was written; NULL before */
	size_t len, cap;
	int err;		/* 0, or -ENOMEM: the text is incomplete */
};
#define SIM_TEXT_INIT { NULL, 0, 0, 0 }

/* Append n bytes / a formatted string: 0 or -ENOMEM (also when err was set before). */
int sim_text_append(struct sim_text *t, const char *s, size_t n);
int sim_text_printf(struct sim_text *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int sim_text_vprintf(struct sim_text *t, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
/* The text so far ("" when nothing was written). */
const char *sim_text_str(const struct sim_text *t);
/* Hand the buffer over (malloc'd, the caller frees it) and empty t; NULL after an error. */
char *sim_text_steal(struct sim_text *t);
/* Forget the text (and any error), keeping the room for the next one. */
void sim_text_reset(struct sim_text *t);
void sim_text_free(struct sim_text *t);

#endif /* SIMFABRIC_TEXT_H */
