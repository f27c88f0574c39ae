/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Why something failed: the one way the backends and simfabric tell it, as
 * libpcap's errbuf does.  The caller owns a struct umad_err (made with
 * UMAD_ERR_INIT, or emptied with umad_err_clear) and passes its address
 * down; a function that fails returns -errno and leaves the reason there; a
 * function that succeeds leaves it as it was, unless its header says it
 * leaves a note (a fabric brought up without its SM, say).  Only the
 * boundary prints it, where a person reads it: a backend's entry point
 * (init, an event) through umad_err_print, the umad command, the fabric
 * server's log.  Nothing deeper prints.
 *
 * Which call:
 *   umad_err_set     the reason of a failure, in place of anything before:
 *                        return umad_err_set(err, -EINVAL, "bad port %u", port);
 *   umad_err_prefix  where the reason a callee gave happened, put before it:
 *                        return umad_err_prefix(err, r, "%s: ", path);
 *                    (when the callee told nothing, the reason is strerror(-r)).
 *   umad_err_add     one more line, for a reader that reports every error
 *                    it finds (a topology, a scenario), each
 *                    "file:line: message", or a start with more than one
 *                    thing to tell: the first UMAD_ERR_LINES are kept, the
 *                    rest counted on a last line "... and N more errors".
 *   umad_err_text    the text to show: "" when nothing was told.
 *   umad_err_print   at a backend's boundary: each line of the text on
 *                    stderr as "libumad: <backend>: <line>".
 *
 * NULL is always allowed for the struct: a caller that does not want the
 * reason passes NULL, and the calls above only return what they were given.
 * A reason longer than the buffer is cut (ending in "..."); a line that
 * umad_err_add has no room for is counted with the rest, as are all lines
 * after it, so that what is kept reads in order.  One struct umad_err per
 * chain of calls: it has no lock.
 *
 * Plain libc, and header only: libibumad.so.3's kernel backend, the
 * backend modules, simfabric and the tools each get their own copy, with
 * no library to link and no two copies to clash in one module.
 */
#ifndef UMAD_BASE_ERRBUF_H
#define UMAD_BASE_ERRBUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define UMAD_ERR_MAX	4096	/* bytes of text, its NUL included */
#define UMAD_ERR_LINES	20	/* the lines umad_err_add keeps; the rest are counted */
/* The room kept for "... and N more errors\n" after the lines, its NUL included. */
#define UMAD_ERR_TAIL	sizeof("... and 4294967295 more errors\n")

struct umad_err {
	char text[UMAD_ERR_MAX];	/* NUL-terminated */
	size_t len;		/* of text, the "... and N more" line not counted */
	unsigned count;		/* reasons told: a set counts 1, each add one more */
	unsigned dropped;	/* of those, the lines not kept */
};

#define UMAD_ERR_INIT { .len = 0 }

static inline void umad_err_clear(struct umad_err *e)
{
	if (!e)
		return;
	e->text[0] = '\0';
	e->len = 0;
	e->count = 0;
	e->dropped = 0;
}

static inline const char *umad_err_text(const struct umad_err *e)
{
	return e ? e->text : "";
}

/* Text cut to the n bytes of its buffer ends in "...": no reader takes it for whole. */
static inline size_t umad_err__mark_cut(char *text, size_t n)
{
	if (n >= sizeof("..."))
		memcpy(text + n - sizeof("..."), "...", sizeof("..."));
	return n - 1;
}

static inline int umad_err_vset(struct umad_err *e, int rc, const char *fmt, va_list ap)
{
	int n;

	if (!e)
		return rc;
	n = vsnprintf(e->text, sizeof(e->text), fmt, ap);
	if (n < 0)
		n = 0, e->text[0] = '\0';
	e->len = (size_t)n < sizeof(e->text) ? (size_t)n
					     : umad_err__mark_cut(e->text, sizeof(e->text));
	e->count = 1;
	e->dropped = 0;
	return rc;
}

static inline int umad_err_set(struct umad_err *e, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline int umad_err_set(struct umad_err *e, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rc = umad_err_vset(e, rc, fmt, ap);
	va_end(ap);
	return rc;
}

static inline int umad_err_prefix(struct umad_err *e, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline int umad_err_prefix(struct umad_err *e, int rc, const char *fmt, ...)
{
	char before[UMAD_ERR_MAX];
	size_t n, rest;
	va_list ap;
	int r;

	if (!e)
		return rc;
	if (!e->count && rc < 0)
		umad_err_set(e, rc, "%s", strerror(-rc));
	va_start(ap, fmt);
	r = vsnprintf(before, sizeof(before), fmt, ap);
	va_end(ap);
	n = r < 0 ? 0 : (size_t)r < sizeof(before) ? (size_t)r : sizeof(before) - 1;
	/* What is there now (its "... and N more" line too) moves up, cut if it must be. */
	rest = strlen(e->text);
	if (n + rest >= sizeof(e->text)) {
		rest = n < sizeof(e->text) - 1 ? sizeof(e->text) - 1 - n : 0;
		n = sizeof(e->text) - 1 - rest;
		memmove(e->text + n, e->text, rest);
		memcpy(e->text, before, n);
		e->len = umad_err__mark_cut(e->text, sizeof(e->text));
	} else {
		memmove(e->text + n, e->text, rest + 1);
		memcpy(e->text, before, n);
		e->len += n;
	}
	if (!e->count)
		e->count = 1;
	return rc;
}

static inline void umad_err_vadd(struct umad_err *e, const char *fmt, va_list ap)
{
	size_t room, at;
	int n;

	if (!e)
		return;
	e->count++;
	/* A reason set before becomes the first line. */
	at = e->len + (e->len && e->text[e->len - 1] != '\n');
	room = sizeof(e->text) - UMAD_ERR_TAIL;
	if (!e->dropped && e->count <= UMAD_ERR_LINES && at < room) {
		n = vsnprintf(e->text + at, room - at, fmt, ap);
		if (n >= 0 && (size_t)n + 1 < room - at) {
			if (at > e->len)
				e->text[e->len] = '\n';
			e->len = at + (size_t)n;
			e->text[e->len++] = '\n';
			e->text[e->len] = '\0';
			return;
		}
	}
	e->dropped++;
	snprintf(e->text + e->len, sizeof(e->text) - e->len, "... and %u more errors\n",
		 e->dropped);
}

static inline void umad_err_add(struct umad_err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static inline void umad_err_add(struct umad_err *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	umad_err_vadd(e, fmt, ap);
	va_end(ap);
}

/*
 * At a backend's boundary (its init, an event it reports): every line of
 * the text on stderr, "libumad: <backend>: <line>", the lines kept
 * together.  Nothing when nothing was told.
 */
static inline void umad_err_print(const char *backend, const struct umad_err *e)
{
	const char *line = umad_err_text(e), *nl;

	if (!*line)
		return;
	flockfile(stderr);
	for (; *line; line = nl ? nl + 1 : line + strlen(line)) {
		nl = strchr(line, '\n');
		fprintf(stderr, "libumad: %s: %.*s\n", backend,
			(int)(nl ? (size_t)(nl - line) : strlen(line)), line);
	}
	funlockfile(stderr);
}

#endif /* UMAD_BASE_ERRBUF_H */
