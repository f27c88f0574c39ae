/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* The capture comment: struct capture_meta to one line of key=value and back. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "capture_meta.h"

enum value_form { DECIMAL, HEX, FRACTION };

/*
 * Each key: its name and the name's length, its field (segment's is N,
 * segments M follows), its form and largest value.
 */
#define KEY(key, text, member, form, max) \
	[key] = { text, sizeof(text) - 1, offsetof(struct capture_meta, member), form, max }
static const struct {
	const char *name;
	size_t name_len;
	size_t field;
	enum value_form form;
	uint32_t max;
} keys[CAPTURE_META_KEYS] = {
	KEY(CAPTURE_META_AGENT, "agent", agent, DECIMAL, UINT32_MAX),
	KEY(CAPTURE_META_STATUS, "status", status, DECIMAL, UINT32_MAX),
	KEY(CAPTURE_META_TIMEOUT_MS, "timeout_ms", timeout_ms, DECIMAL, UINT32_MAX),
	KEY(CAPTURE_META_RETRIES, "retries", retries, DECIMAL, UINT32_MAX),
	KEY(CAPTURE_META_QPN, "qpn", qpn, DECIMAL, UINT32_MAX),
	KEY(CAPTURE_META_QKEY, "qkey", qkey, HEX, UINT32_MAX),
	KEY(CAPTURE_META_LID, "lid", lid, DECIMAL, UINT16_MAX),
	KEY(CAPTURE_META_SL, "sl", sl, DECIMAL, UINT8_MAX),
	KEY(CAPTURE_META_PATH_BITS, "path_bits", path_bits, DECIMAL, UINT8_MAX),
	KEY(CAPTURE_META_PKEY_INDEX, "pkey_index", pkey_index, DECIMAL, UINT16_MAX),
	KEY(CAPTURE_META_GRH, "grh", grh, DECIMAL, UINT8_MAX),
	KEY(CAPTURE_META_LENGTH, "length", length, DECIMAL, UINT32_MAX),
	KEY(CAPTURE_META_TIMEOUT, "timeout", timeout, DECIMAL, 1),
	KEY(CAPTURE_META_SEGMENT, "segment", segment, FRACTION, UINT32_MAX),
};

_Static_assert(offsetof(struct capture_meta, segments) ==
	       offsetof(struct capture_meta, segment) + sizeof(uint32_t),
	       "segment=N/M: M is stored right after N");

static uint32_t *field_of(struct capture_meta *m, enum capture_meta_key key)
{
	return (uint32_t *)((char *)m + keys[key].field);
}

static uint32_t value_of(const struct capture_meta *m, enum capture_meta_key key)
{
	return *(const uint32_t *)((const char *)m + keys[key].field);
}

/* --- formatting: by hand, no printf ------------------------------------------ */

/* Write v at p, in hexadecimal or decimal digits; returns the end. */
static char *put_number(char *p, uint32_t v, int hex)
{
	char digits[10];
	unsigned base = hex ? 16 : 10;
	int n = 0;

	do {
		digits[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (n)
		*p++ = digits[--n];
	return p;
}

/* The longest value: "0x" and 8 hex digits, or two 10-digit numbers and a slash. */
#define VALUE_MAX 21

int capture_meta_format(const struct capture_meta *m, char *out, size_t size)
{
	char *p = out;
	int key;

	if (!size)
		return -ENOSPC;
	for (key = 0; key < CAPTURE_META_KEYS; key++) {
		const char *name = keys[key].name;
		size_t name_len = keys[key].name_len;

		if (!capture_meta_has(m, key))
			continue;
		/* A space, the name, '=', the value and the final NUL. */
		if ((size_t)(p - out) + 1 + name_len + 1 + VALUE_MAX + 1 > size) {
			out[0] = '\0';
			return -ENOSPC;
		}
		if (p != out)
			*p++ = ' ';
		memcpy(p, name, name_len);
		p += name_len;
		*p++ = '=';
		if (keys[key].form == HEX) {
			*p++ = '0';
			*p++ = 'x';
		}
		p = put_number(p, value_of(m, key), keys[key].form == HEX);
		if (keys[key].form == FRACTION) {
			*p++ = '/';
			p = put_number(p, m->segments, 0);
		}
	}
	*p = '\0';
	return (int)(p - out);
}

/* --- parsing ------------------------------------------------------------------ */

/* Digits of a base from s to end, at most max: 0, or -1 for anything else. */
static int get_number(const char *s, const char *end, unsigned base, uint32_t max, uint32_t *v)
{
	uint64_t n = 0;

	if (s == end)
		return -1;
	for (; s < end; s++) {
		unsigned d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return -1;
		n = n * base + d;
		if (n > max)
			return -1;
	}
	*v = (uint32_t)n;
	return 0;
}

/* The value of key from s to end into m: 0, or -1 with why. */
static int get_value(struct capture_meta *m, enum capture_meta_key key, const char *s,
		     const char *end, const char **why)
{
	uint32_t *field = field_of(m, key), n, count;
	const char *slash;

	switch (keys[key].form) {
	case HEX:
		*why = "not 0x and 1 to 8 hexadecimal digits";
		if (end - s < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
			return -1;
		return get_number(s + 2, end, 16, keys[key].max, field);
	case FRACTION:
		*why = "not N/M, 1 <= N <= M";
		slash = memchr(s, '/', (size_t)(end - s));
		if (!slash || get_number(s, slash, 10, keys[key].max, &n) < 0 ||
		    get_number(slash + 1, end, 10, keys[key].max, &count) < 0 || n < 1 || n > count)
			return -1;
		field[0] = n;
		m->segments = count;
		return 0;
	case DECIMAL:
		break;
	}
	*why = keys[key].max == 1 ? "not 0 or 1" : "not a decimal number in range";
	return get_number(s, end, 10, keys[key].max, field);
}

static int is_named(enum capture_meta_key key, const char *name, size_t len)
{
	return keys[key].name_len == len && !memcmp(keys[key].name, name, len);
}

/*
 * The key named by the len bytes at name, or CAPTURE_META_KEYS for one this
 * version does not know; 'next' (the key after the one before) is tried
 * first, as the formatter writes the keys in order.
 */
static enum capture_meta_key key_named(const char *name, size_t len, int next)
{
	int key;

	if (next < CAPTURE_META_KEYS && is_named(next, name, len))
		return next;
	for (key = 0; key < CAPTURE_META_KEYS; key++)
		if (is_named(key, name, len))
			return key;
	return CAPTURE_META_KEYS;
}

static int refuse(struct umad_err *err, const char *field, size_t len, const char *why)
{
	return umad_err_set(err, -EINVAL, "comment field \"%.*s\": %s", (int)(len < 64 ? len : 64),
			    field, why);
}

int capture_meta_parse(const char *text, struct capture_meta *m, struct umad_err *err)
{
	const char *s = text;
	int next = 0;

	memset(m, 0, sizeof(*m));
	for (;;) {
		const char *field, *end, *eq = NULL, *why;
		enum capture_meta_key key;

		while (*s == ' ')
			s++;
		if (!*s)
			return 0;
		field = s;
		/* The field runs to the next space; its key to its first '='. */
		for (end = field; *end && *end != ' '; end++)
			if (*end == '=' && !eq)
				eq = end;
		s = end;
		if (!eq)
			return refuse(err, field, (size_t)(end - field), "not key=value");
		if (eq == field)
			return refuse(err, field, (size_t)(end - field), "no key");
		key = key_named(field, (size_t)(eq - field), next);
		next = key + 1;
		if (key == CAPTURE_META_KEYS)
			continue;	/* a later version's: its value is its own business */
		if (capture_meta_has(m, key))
			return refuse(err, field, (size_t)(end - field), "the key given twice");
		if (get_value(m, key, eq + 1, end, &why) < 0)
			return refuse(err, field, (size_t)(end - field), why);
		m->have |= CAPTURE_META_BIT(key);
	}
}
