/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* A text that grows as it is written (text.h). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simfabric/text.h"

static int text_room(struct sim_text *t, size_t more)
{
	size_t want, cap;
	char *grown;

	if (t->err)
		return t->err;
	if (more >= SIZE_MAX / 2 - t->len) {
		t->err = -ENOMEM;
		return t->err;
	}
	want = t->len + more + 1;
	if (want <= t->cap)
		return 0;
	cap = t->cap ? t->cap : 256;
	while (cap < want)
		cap *= 2;
	grown = realloc(t->buf, cap);
	if (!grown) {
		t->err = -ENOMEM;
		return t->err;
	}
	t->buf = grown;
	t->cap = cap;
	return 0;
}

int sim_text_append(struct sim_text *t, const char *s, size_t n)
{
	int r = text_room(t, n);

	if (r < 0)
		return r;
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
	return 0;
}

int sim_text_vprintf(struct sim_text *t, const char *fmt, va_list ap)
{
	va_list again;
	int n, r;

	if (t->err)
		return t->err;
	va_copy(again, ap);
	n = vsnprintf(t->buf ? t->buf + t->len : NULL, t->buf ? t->cap - t->len : 0, fmt, ap);
	if (n < 0) {
		va_end(again);
		t->err = -EINVAL;	/* a format the C library refuses: a caller's bug */
		return t->err;
	}
	if (!t->buf || (size_t)n >= t->cap - t->len) {
		r = text_room(t, (size_t)n);
		if (r < 0) {
			va_end(again);
			return r;
		}
		vsnprintf(t->buf + t->len, t->cap - t->len, fmt, again);
	}
	va_end(again);
	t->len += (size_t)n;
	return 0;
}

int sim_text_printf(struct sim_text *t, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = sim_text_vprintf(t, fmt, ap);
	va_end(ap);
	return r;
}

const char *sim_text_str(const struct sim_text *t)
{
	return t->buf ? t->buf : "";
}

char *sim_text_steal(struct sim_text *t)
{
	char *s;

	if (t->err || (!t->buf && text_room(t, 0) < 0)) {
		sim_text_free(t);
		return NULL;
	}
	s = t->buf;
	s[t->len] = '\0';
	t->buf = NULL;
	t->len = t->cap = 0;
	return s;
}

void sim_text_reset(struct sim_text *t)
{
	t->len = 0;
	t->err = 0;
	if (t->buf)
		t->buf[0] = '\0';
}

void sim_text_free(struct sim_text *t)
{
	free(t->buf);
	t->buf = NULL;
	t->len = t->cap = 0;
	t->err = 0;
}
