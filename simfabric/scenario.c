/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Scenario files (scenario.h, doc/scenario-format.md): a line reader that
 * splits each line into words (quoted words may hold blanks), checks each
 * command's arguments, and keeps the steps in an array; running them is
 * the caller's, through a table of operations.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libumad/file_kind.h"
#include "libumad/mad_wire.h"
#include "simfabric/describe.h"
#include "simfabric/fabric.h"
#include "simfabric/fault.h"
#include "simfabric/net.h"
#include "simfabric/scenario.h"

#define MAX_WORDS	8	/* the longest command has 6; more is reported, not kept */
#define MAX_WORD	1024	/* bytes of one word, quotes and escapes resolved */
#define RATE_DECIMALS	9	/* digits after the point in a drop rate */
#define RATE_SCALE	1000000000u

static const char *const cmd_names[SIM_SCENARIO_N_CMDS] = {
	[SIM_SCENARIO_LINK] = "link",
	[SIM_SCENARIO_NODE] = "node",
	[SIM_SCENARIO_DROP] = "drop",
	[SIM_SCENARIO_DELAY] = "delay",
	[SIM_SCENARIO_COUNTER] = "counter",
	[SIM_SCENARIO_TRAP] = "trap",
};

/* How each command is written, for messages. */
static const char *const cmd_usage[SIM_SCENARIO_N_CMDS] = {
	[SIM_SCENARIO_LINK] = "link up|down NODE PORT",
	[SIM_SCENARIO_NODE] = "node up|down NODE",
	[SIM_SCENARIO_DROP] = "drop NODE PORT RATE [seed=N]",
	[SIM_SCENARIO_DELAY] = "delay NODE PORT MICROSECONDS",
	[SIM_SCENARIO_COUNTER] = "counter NODE PORT COUNTER COUNT",
	[SIM_SCENARIO_TRAP] = "trap NODE PORT NUMBER",
};

/* The traps the fault API sends (fault.h). */
static const unsigned traps[] = {
	TRAP_LINK_STATE_CHANGE, TRAP_LINK_INTEGRITY, TRAP_BUFFER_OVERRUN, TRAP_FLOW_CONTROL,
	TRAP_CAPABILITY_CHANGE, TRAP_SYS_IMAGE_GUID,
};

const char *sim_scenario_cmd_name(enum sim_scenario_cmd cmd)
{
	return (unsigned)cmd < SIM_SCENARIO_N_CMDS ? cmd_names[cmd] : NULL;
}

/* --- messages ---------------------------------------------------------------------- */

struct errors {
	struct sim_text text;
	unsigned n;
	const char *file;
};

static void __attribute__((format(printf, 3, 4)))
error_at(struct errors *e, unsigned line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (++e->n > SIM_SCENARIO_MAX_ERRORS)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		sim_text_printf(&e->text, "%s:%u: %s\n", e->file, line, msg);
	else
		sim_text_printf(&e->text, "%s: %s\n", e->file, msg);
}

/* Hand the messages to the caller (NULL when there are none, or no room for them). */
static void errors_finish(struct errors *e, char **out)
{
	if (e->n > SIM_SCENARIO_MAX_ERRORS)
		sim_text_printf(&e->text, "... and %u more errors\n", e->n - SIM_SCENARIO_MAX_ERRORS);
	if (out)
		*out = e->n ? sim_text_steal(&e->text) : NULL;
	sim_text_free(&e->text);
}

/* A word as messages show it: printable, cut short. */
static const char *shown(const char *word, char *buf, size_t max)
{
	size_t i, n = 0;

	for (i = 0; word[i] && n + 4 < max; i++) {
		unsigned char c = (unsigned char)word[i];

		buf[n++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
		if (i == 40 && word[i + 1]) {
			memcpy(buf + n, "...", 3);
			n += 3;
			break;
		}
	}
	buf[n] = '\0';
	return buf;
}

/* --- words ------------------------------------------------------------------------ */

struct words {
	char word[MAX_WORDS][MAX_WORD];	/* the first MAX_WORDS */
	unsigned total;			/* how many the line has */
};

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* Split a line (len bytes, no newline) into words; -1 after reporting why not. */
static int split(struct errors *e, unsigned line, const char *s, size_t len, struct words *w)
{
	size_t i = 0;

	w->total = 0;
	for (;;) {
		char *out;
		size_t n = 0;

		while (i < len && is_blank(s[i]))
			i++;
		if (i == len || s[i] == '#')
			return 0;
		out = w->total < MAX_WORDS ? w->word[w->total] : NULL;
		if (s[i] == '"') {
			for (i++; i < len && s[i] != '"'; i++) {
				char c = s[i];

				if (c == '\\') {
					if (i + 1 == len || (s[i + 1] != '"' && s[i + 1] != '\\')) {
						error_at(e, line, "unknown escape in a quoted word: only \\\" and \\\\");
						return -1;
					}
					c = s[++i];
				}
				if (n + 1 >= MAX_WORD) {
					error_at(e, line, "a word longer than %d bytes", MAX_WORD - 1);
					return -1;
				}
				if (out)
					out[n] = c;
				n++;
			}
			if (i == len) {
				error_at(e, line, "a quoted word has no closing quote");
				return -1;
			}
			i++;
			if (i < len && !is_blank(s[i])) {
				error_at(e, line, "a quoted word must be followed by a blank or the end of the line");
				return -1;
			}
		} else {
			for (; i < len && !is_blank(s[i]); i++) {
				if (s[i] == '"') {
					error_at(e, line, "a quote inside a word (quote the whole word)");
					return -1;
				}
				if (n + 1 >= MAX_WORD) {
					error_at(e, line, "a word longer than %d bytes", MAX_WORD - 1);
					return -1;
				}
				if (out)
					out[n] = s[i];
				n++;
			}
		}
		if (out)
			out[n] = '\0';
		w->total++;
	}
}

/* --- numbers ------------------------------------------------------------------------ */

/* A decimal number (or, with hex, 0x and hex digits) up to max: 0, or -1. */
static int parse_u64(const char *s, int hex, uint64_t max, uint64_t *value)
{
	int base = hex && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
	unsigned long long v;
	char *end;

	/* strtoull would take a sign or blanks first: only digits may start it. */
	if (s[0] < '0' || s[0] > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end || end == s + (base == 16 ? 2 : 0) || v > max)
		return -1;
	*value = v;
	return 0;
}

/*
 * A drop rate, "0", "1", "0.25", ".5": at most RATE_DECIMALS digits after
 * the point, read without strtod (whose decimal point is the locale's).
 * In billionths: 0, -1 when malformed, -2 when above 1.
 */
static int parse_rate(const char *s, uint64_t *billionths)
{
	uint64_t whole = 0, frac = 0;
	unsigned decimals = 0, digits = 0;

	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		if (whole > 10)
			return -2;	/* too large already; keep the digits from overflowing */
		whole = whole * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
			if (++decimals > RATE_DECIMALS)
				return -1;
			frac = frac * 10 + (uint64_t)(*s - '0');
		}
	}
	if (*s || !digits)
		return -1;
	for (; decimals < RATE_DECIMALS; decimals++)
		frac *= 10;
	if (whole > 1 || (whole == 1 && frac))
		return -2;
	*billionths = whole * RATE_SCALE + frac;
	return 0;
}

/* A delay: a number of microseconds, or with a unit ns, us or ms.  In ns; -1 malformed, -2 too long. */
static int parse_delay(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
	};
	char digits[32];
	size_t n = 0, lead = 0, i;
	uint64_t scale = 1000, v;

	while (s[n] >= '0' && s[n] <= '9')
		n++;
	if (!n)
		return -1;
	if (s[n]) {
		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(s + n, units[i].unit))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -1;
		scale = units[i].ns;
	}
	/* Leading zeros say nothing of the length: only so many digits that matter are. */
	while (lead + 1 < n && s[lead] == '0')
		lead++;
	if (n - lead >= sizeof(digits))
		return -2;
	memcpy(digits, s + lead, n - lead);
	digits[n - lead] = '\0';
	if (parse_u64(digits, 0, SIM_SCENARIO_MAX_DELAY_NS / scale, &v) < 0)
		return -2;
	*ns = v * scale;
	return 0;
}

/* --- commands ------------------------------------------------------------------------- */

struct parser {
	struct errors e;
	struct sim_scenario *sc;
	size_t cap;
	uint64_t last_ms;
	unsigned last_line;
	int oom;
};

static int parse_cmd(const char *word)
{
	int c;

	for (c = 0; c < SIM_SCENARIO_N_CMDS; c++)
		if (!strcmp(word, cmd_names[c]))
			return c;
	return -1;
}

/* A port word: 0..SIM_MAX_PORTS, and 1 or more where a link is meant. */
static int parse_port(struct parser *p, unsigned line, const char *cmd, const char *word,
		      int needs_link, unsigned *port)
{
	char buf[64];
	uint64_t v;

	if (parse_u64(word, 0, SIM_MAX_PORTS, &v) < 0) {
		error_at(&p->e, line, "%s: bad port \"%s\": a number 0..%d", cmd,
			 shown(word, buf, sizeof(buf)), SIM_MAX_PORTS);
		return -1;
	}
	if (needs_link && v == 0) {
		error_at(&p->e, line, "%s: port 0 has no link (ports 1..%d)", cmd, SIM_MAX_PORTS);
		return -1;
	}
	*port = (unsigned)v;
	return 0;
}

static int parse_up_down(struct parser *p, unsigned line, const char *cmd, const char *word, int *up)
{
	char buf[64];

	if (!strcmp(word, "up"))
		*up = 1;
	else if (!strcmp(word, "down"))
		*up = 0;
	else {
		error_at(&p->e, line, "%s: expected up or down, not \"%s\"", cmd,
			 shown(word, buf, sizeof(buf)));
		return -1;
	}
	return 0;
}

/* The arguments of each command (words after the time and the command) into s; -1 after an error. */
static int parse_args(struct parser *p, unsigned line, struct words *w, struct sim_scenario_step *s)
{
	static const unsigned required[SIM_SCENARIO_N_CMDS] = {
		[SIM_SCENARIO_LINK] = 3, [SIM_SCENARIO_NODE] = 2, [SIM_SCENARIO_DROP] = 3,
		[SIM_SCENARIO_DELAY] = 3, [SIM_SCENARIO_COUNTER] = 4, [SIM_SCENARIO_TRAP] = 3,
	};
	const char *cmd = cmd_names[s->cmd], *node;
	unsigned args = w->total - 2, max = required[s->cmd] + (s->cmd == SIM_SCENARIO_DROP);
	char (*a)[MAX_WORD] = w->word + 2;
	char buf[64];
	uint64_t v;
	int r, c;
	size_t k;

	if (args < required[s->cmd]) {
		error_at(&p->e, line, "%s: missing arguments (%s)", cmd, cmd_usage[s->cmd]);
		return -1;
	}
	if (args > max) {
		error_at(&p->e, line, "%s: too many arguments (%s)", cmd, cmd_usage[s->cmd]);
		return -1;
	}
	switch (s->cmd) {
	case SIM_SCENARIO_LINK:
		if (parse_up_down(p, line, cmd, a[0], &s->up) < 0 ||
		    parse_port(p, line, cmd, a[2], 1, &s->port) < 0)
			return -1;
		node = a[1];
		break;
	case SIM_SCENARIO_NODE:
		if (parse_up_down(p, line, cmd, a[0], &s->up) < 0)
			return -1;
		node = a[1];
		break;
	case SIM_SCENARIO_DROP:
		if (parse_port(p, line, cmd, a[1], 1, &s->port) < 0)
			return -1;
		r = parse_rate(a[2], &v);
		if (r < 0) {
			error_at(&p->e, line, r == -2 ? "drop: rate %s out of range 0..1"
						      : "drop: bad rate \"%s\": 0..1, at most 9 decimals",
				 shown(a[2], buf, sizeof(buf)));
			return -1;
		}
		s->rate = (double)v / RATE_SCALE;
		if (args == 4) {
			if (strncmp(a[3], "seed=", 5) || parse_u64(a[3] + 5, 1, UINT64_MAX, &s->seed) < 0) {
				error_at(&p->e, line, "drop: expected seed=N (a number), not \"%s\"",
					 shown(a[3], buf, sizeof(buf)));
				return -1;
			}
		}
		node = a[0];
		break;
	case SIM_SCENARIO_DELAY:
		if (parse_port(p, line, cmd, a[1], 1, &s->port) < 0)
			return -1;
		r = parse_delay(a[2], &s->delay_ns);
		if (r < 0) {
			if (r == -2)
				error_at(&p->e, line, "delay: %s is longer than a minute (at most %u microseconds)",
					 shown(a[2], buf, sizeof(buf)), UMAD_SIM_MAX_DELAY_US);
			else
				error_at(&p->e, line, "delay: bad delay \"%s\": microseconds, or a number with ns, us or ms",
					 shown(a[2], buf, sizeof(buf)));
			return -1;
		}
		node = a[0];
		break;
	case SIM_SCENARIO_COUNTER:
		if (parse_port(p, line, cmd, a[1], 0, &s->port) < 0)
			return -1;
		c = sim_pma_counter_by_name(a[2]);
		if (c < 0) {
			error_at(&p->e, line, "counter: unknown counter \"%s\" (PortCounters names, e.g. %s)",
				 shown(a[2], buf, sizeof(buf)),
				 sim_pma_counter_name(SIM_PMA_SYMBOL_ERRORS));
			return -1;
		}
		s->counter = (enum sim_pma_counter)c;
		if (parse_u64(a[3], 0, UINT64_MAX, &s->count) < 0 || !s->count) {
			error_at(&p->e, line, "counter: bad count \"%s\": a number, 1 or more",
				 shown(a[3], buf, sizeof(buf)));
			return -1;
		}
		node = a[0];
		break;
	case SIM_SCENARIO_TRAP:
		if (parse_port(p, line, cmd, a[1], 0, &s->port) < 0)
			return -1;
		r = parse_u64(a[2], 0, UINT16_MAX, &v);
		for (k = 0; r == 0 && k < sizeof(traps) / sizeof(traps[0]); k++)
			if (traps[k] == v)
				break;
		if (r < 0 || k == sizeof(traps) / sizeof(traps[0])) {
			error_at(&p->e, line, "trap: \"%s\" is not a trap the fabric sends (%u, %u, %u, %u, %u or %u)",
				 shown(a[2], buf, sizeof(buf)), traps[0], traps[1], traps[2], traps[3],
				 traps[4], traps[5]);
			return -1;
		}
		s->trap = (unsigned)v;
		node = a[0];
		break;
	default:
		return -1;
	}
	if (!node[0]) {
		error_at(&p->e, line, "%s: the node is empty", cmd);
		return -1;
	}
	if (strlen(node) > SIM_TOPOLOGY_MAX_ID) {
		error_at(&p->e, line, "%s: node \"%s\" is longer than %d bytes, the longest node id", cmd,
			 shown(node, buf, sizeof(buf)), SIM_TOPOLOGY_MAX_ID);
		return -1;
	}
	s->node = strdup(node);
	if (!s->node) {
		p->oom = 1;
		return -1;
	}
	return 0;
}

static int add_step(struct parser *p, const struct sim_scenario_step *s)
{
	struct sim_scenario *sc = p->sc;

	if (sc->n_steps == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct sim_scenario_step *grown = realloc(sc->steps, cap * sizeof(*grown));

		if (!grown)
			return -1;
		sc->steps = grown;
		p->cap = cap;
	}
	sc->steps[sc->n_steps++] = *s;
	return 0;
}

static void parse_line(struct parser *p, unsigned line, const char *text, size_t len,
		       struct words *w)
{
	struct sim_scenario_step s;
	char buf[64];
	int cmd;

	if (split(&p->e, line, text, len, w) < 0 || !w->total)
		return;
	memset(&s, 0, sizeof(s));
	s.line = line;
	if (parse_u64(w->word[0], 0, SIM_SCENARIO_MAX_MS, &s.at_ms) < 0) {
		error_at(&p->e, line, "bad time \"%s\": milliseconds, a decimal number 0..%llu",
			 shown(w->word[0], buf, sizeof(buf)), SIM_SCENARIO_MAX_MS);
		return;
	}
	if (w->total < 2) {
		error_at(&p->e, line, "a time and no command");
		return;
	}
	cmd = parse_cmd(w->word[1]);
	if (cmd < 0) {
		error_at(&p->e, line, "unknown command \"%s\" (link, node, drop, delay, counter or trap)",
			 shown(w->word[1], buf, sizeof(buf)));
		return;
	}
	s.cmd = (enum sim_scenario_cmd)cmd;
	if (p->last_line && s.at_ms < p->last_ms) {
		error_at(&p->e, line, "time goes backwards: %" PRIu64 " ms after %" PRIu64
			 " ms at line %u", s.at_ms, p->last_ms, p->last_line);
		return;
	}
	if (parse_args(p, line, w, &s) < 0)
		return;
	if (p->sc->n_steps >= SIM_SCENARIO_MAX_STEPS) {
		error_at(&p->e, line, "more than %u steps", SIM_SCENARIO_MAX_STEPS);
		free(s.node);
		return;
	}
	if (add_step(p, &s) < 0) {
		free(s.node);
		p->oom = 1;
		return;
	}
	p->last_ms = s.at_ms;
	p->last_line = line;
}

void sim_scenario_free(struct sim_scenario *sc)
{
	size_t i;

	if (!sc)
		return;
	for (i = 0; i < sc->n_steps; i++)
		free(sc->steps[i].node);
	free(sc->steps);
	free(sc->name);
	free(sc);
}

int sim_scenario_parse(const char *text, size_t len, const char *name, struct sim_scenario **out,
		       char **errors)
{
	struct parser p;
	struct words *w;
	size_t start = 0;
	unsigned line = 0;
	int r = 0;

	if (errors)
		*errors = NULL;
	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!text || !name)
		return -EINVAL;
	memset(&p, 0, sizeof(p));
	p.e.file = name;
	if (len > SIM_SCENARIO_MAX_BYTES) {
		error_at(&p.e, 0, "%zu bytes: a scenario holds at most %u MiB", len,
			 SIM_SCENARIO_MAX_BYTES >> 20);
		errors_finish(&p.e, errors);
		return -EFBIG;
	}
	p.sc = calloc(1, sizeof(*p.sc));
	w = malloc(sizeof(*w));
	if (!p.sc || !w || !(p.sc->name = strdup(name))) {
		free(w);
		sim_scenario_free(p.sc);
		sim_text_free(&p.e.text);
		return -ENOMEM;
	}
	while (start < len && !p.oom) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;
		const char *nul = memchr(text + start, '\0', end - start);

		line++;
		if (nul)
			error_at(&p.e, line, "a NUL byte: a scenario is text");
		else
			parse_line(&p, line, text + start, end - start, w);
		start = end + 1;
	}
	free(w);
	if (p.oom)
		r = -ENOMEM;
	else if (p.e.n)
		r = -EINVAL;
	else if (p.e.text.err)
		r = p.e.text.err;
	if (r < 0) {
		sim_scenario_free(p.sc);
		errors_finish(&p.e, r == -ENOMEM ? NULL : errors);
		return r;
	}
	errors_finish(&p.e, NULL);
	*out = p.sc;
	return 0;
}

int sim_scenario_load(const char *path, struct sim_scenario **out, char **errors)
{
	struct errors e;
	struct stat st;
	char *text;
	size_t len = 0;
	ssize_t n = 0;
	int fd, r;

	if (errors)
		*errors = NULL;
	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!path)
		return -EINVAL;
	memset(&e, 0, sizeof(e));
	e.file = path;
	/* Without blocking: a FIFO would wait for a writer; judged by what was opened. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		error_at(&e, 0, "%s", strerror(-r));
		errors_finish(&e, errors);
		return r;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		error_at(&e, 0, "%s, not a regular file", file_kind(st.st_mode));
		close(fd);
		errors_finish(&e, errors);
		return -EINVAL;
	}
	if ((uint64_t)st.st_size > SIM_SCENARIO_MAX_BYTES) {
		error_at(&e, 0, "%lld bytes: a scenario holds at most %u MiB", (long long)st.st_size,
			 SIM_SCENARIO_MAX_BYTES >> 20);
		close(fd);
		errors_finish(&e, errors);
		return -EFBIG;
	}
	text = malloc((size_t)st.st_size + 1);
	if (!text) {
		close(fd);
		return -ENOMEM;
	}
	/* Never past the size it had, plus one byte to see that it grew. */
	while (len <= (size_t)st.st_size &&
	       (n = read(fd, text + len, (size_t)st.st_size + 1 - len)) > 0)
		len += (size_t)n;
	r = n < 0 ? -errno : 0;
	close(fd);
	if (r == 0 && len > (size_t)st.st_size) {
		error_at(&e, 0, "it grew while it was read");
		r = -EAGAIN;
	} else if (r < 0) {
		error_at(&e, 0, "%s", strerror(-r));
	}
	if (r < 0) {
		free(text);
		errors_finish(&e, errors);
		return r;
	}
	sim_text_free(&e.text);
	r = sim_scenario_parse(text, len, path, out, errors);
	free(text);
	return r;
}

/* --- writing steps back --------------------------------------------------------------- */

/* A node as a word: quoted (with \" and \\) when it would not read back bare. */
static void node_word(struct sim_text *t, const char *node)
{
	const char *c;
	int quote = !node[0] || node[0] == '#';

	for (c = node; *c && !quote; c++)
		quote = is_blank(*c) || *c == '"' || *c == '\\';
	if (!quote) {
		sim_text_append(t, node, strlen(node));
		return;
	}
	sim_text_append(t, "\"", 1);
	for (c = node; *c; c++) {
		if (*c == '"' || *c == '\\')
			sim_text_append(t, "\\", 1);
		sim_text_append(t, c, 1);
	}
	sim_text_append(t, "\"", 1);
}

int sim_scenario_format_step(const struct sim_scenario_step *s, char **line)
{
	struct sim_text t = SIM_TEXT_INIT;
	uint64_t billionths;

	if (!line)
		return -EINVAL;
	*line = NULL;
	if (!s || (unsigned)s->cmd >= SIM_SCENARIO_N_CMDS || !s->node || strchr(s->node, '\n') ||
	    strlen(s->node) > SIM_TOPOLOGY_MAX_ID || s->at_ms > SIM_SCENARIO_MAX_MS ||
	    s->port > SIM_MAX_PORTS)
		return -EINVAL;
	sim_text_printf(&t, "%" PRIu64 " %s ", s->at_ms, cmd_names[s->cmd]);
	if (s->cmd == SIM_SCENARIO_LINK || s->cmd == SIM_SCENARIO_NODE)
		sim_text_printf(&t, "%s ", s->up ? "up" : "down");
	node_word(&t, s->node);
	if (s->cmd != SIM_SCENARIO_NODE)
		sim_text_printf(&t, " %u", s->port);
	switch (s->cmd) {
	case SIM_SCENARIO_DROP:
		if (!(s->rate >= 0.0 && s->rate <= 1.0))
			goto invalid;
		billionths = (uint64_t)(s->rate * RATE_SCALE + 0.5);
		if (billionths % RATE_SCALE == 0) {
			sim_text_printf(&t, " %" PRIu64, billionths / RATE_SCALE);
		} else {
			char digits[16];
			int n = snprintf(digits, sizeof(digits), "%09" PRIu64, billionths % RATE_SCALE);

			while (n > 0 && digits[n - 1] == '0')
				n--;
			sim_text_printf(&t, " %" PRIu64 ".%.*s", billionths / RATE_SCALE, n, digits);
		}
		if (s->seed)
			sim_text_printf(&t, " seed=%" PRIu64, s->seed);
		break;
	case SIM_SCENARIO_DELAY:
		if (s->delay_ns > SIM_SCENARIO_MAX_DELAY_NS)
			goto invalid;
		/* Microseconds, the unit a bare number has, unless there are nanoseconds too. */
		if (s->delay_ns % 1000 == 0)
			sim_text_printf(&t, " %" PRIu64, s->delay_ns / 1000);
		else
			sim_text_printf(&t, " %" PRIu64 "ns", s->delay_ns);
		break;
	case SIM_SCENARIO_COUNTER:
		if (!sim_pma_counter_name(s->counter) || !s->count)
			goto invalid;
		sim_text_printf(&t, " %s %" PRIu64, sim_pma_counter_name(s->counter), s->count);
		break;
	case SIM_SCENARIO_TRAP:
		sim_text_printf(&t, " %u", s->trap);
		break;
	default:
		break;
	}
	if (t.err) {
		sim_text_free(&t);
		return -ENOMEM;
	}
	*line = sim_text_steal(&t);
	return *line ? 0 : -ENOMEM;
invalid:
	sim_text_free(&t);
	return -EINVAL;
}

/* --- against a fabric ------------------------------------------------------------------- */

void sim_scenario_step_request(const struct sim_scenario_step *s, struct sim_fault_req *rq)
{
	static const enum sim_fault_op ops[SIM_SCENARIO_N_CMDS] = {
		[SIM_SCENARIO_LINK] = SIM_FAULT_LINK,
		[SIM_SCENARIO_NODE] = SIM_FAULT_NODE,
		[SIM_SCENARIO_DROP] = SIM_FAULT_DROP,
		[SIM_SCENARIO_DELAY] = SIM_FAULT_DELAY,
		[SIM_SCENARIO_COUNTER] = SIM_FAULT_COUNTER,
		[SIM_SCENARIO_TRAP] = SIM_FAULT_TRAP,
	};

	*rq = (struct sim_fault_req){
		/* An op out of range stays 0, which the fault API refuses. */
		.op = (unsigned)s->cmd < SIM_SCENARIO_N_CMDS ? ops[s->cmd] : 0,
		.node = s->node,
		.port = s->port,
		.up = s->up,
		.rate = s->rate,
		.seed = s->seed,
		.delay_ns = s->delay_ns,
		.counter = sim_pma_counter_name(s->counter),
		.count = s->count,
		.trap = s->trap,
	};
}

int sim_scenario_check(const struct sim_scenario *sc, const struct sim_fabric *f, char **errors)
{
	struct errors e;
	char buf[256], name[64];
	size_t i;

	if (errors)
		*errors = NULL;
	if (!sc || !f)
		return -EINVAL;
	memset(&e, 0, sizeof(e));
	e.file = sc->name;
	for (i = 0; i < sc->n_steps; i++) {
		const struct sim_scenario_step *s = &sc->steps[i];
		struct sim_fault_req rq;
		int r;

		sim_scenario_step_request(s, &rq);
		r = sim_fault_target(f, &rq, NULL, NULL, buf, sizeof(buf));
		if (r == -ENOENT && rq.node)
			error_at(&e, s->line, "%s: no node \"%s\" in the fabric (an id, a NodeDescription or a 0xGUID)",
				 cmd_names[s->cmd], shown(s->node, name, sizeof(name)));
		else if (r < 0)
			error_at(&e, s->line, "%s: %s", cmd_names[s->cmd], buf);
	}
	if (!e.n) {
		sim_text_free(&e.text);
		return 0;
	}
	errors_finish(&e, errors);
	return -EINVAL;
}

/* --- running ------------------------------------------------------------------------------ */

typedef int (*step_op)(void *arg, const struct sim_scenario_step *s);

static step_op op_for(const struct sim_scenario_ops *ops, enum sim_scenario_cmd cmd)
{
	switch (cmd) {
	case SIM_SCENARIO_LINK: return ops->link;
	case SIM_SCENARIO_NODE: return ops->node;
	case SIM_SCENARIO_DROP: return ops->drop;
	case SIM_SCENARIO_DELAY: return ops->delay;
	case SIM_SCENARIO_COUNTER: return ops->counter;
	case SIM_SCENARIO_TRAP: return ops->trap;
	default: return NULL;
	}
}

int sim_scenario_run(const struct sim_scenario *sc, const struct sim_scenario_ops *ops, void *arg,
		     size_t *failed)
{
	size_t i;
	int r;

	if (!sc || !ops)
		return -EINVAL;
	/* All or nothing as far as the table goes: a missing operation stops the run before it starts. */
	for (i = 0; i < sc->n_steps; i++) {
		if (!op_for(ops, sc->steps[i].cmd)) {
			if (failed)
				*failed = i;
			return -EOPNOTSUPP;
		}
	}
	for (i = 0; i < sc->n_steps; i++) {
		const struct sim_scenario_step *s = &sc->steps[i];

		r = ops->wait_until ? ops->wait_until(arg, s->at_ms) : 0;
		if (r == 0)
			r = op_for(ops, s->cmd)(arg, s);
		if (r < 0) {
			if (failed)
				*failed = i;
			return r;
		}
	}
	return 0;
}

int sim_scenario_apply(struct sim_net *net, const struct sim_scenario_step *s)
{
	struct sim_fault_req rq;

	if (!s)
		return -EINVAL;
	sim_scenario_step_request(s, &rq);
	return sim_fault_apply(net, &rq, NULL, 0);
}
