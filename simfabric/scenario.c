/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Scenario files (scenario.h, doc/scenario-format.md): a line reader that
 * reads each line's time and hands the rest to the fault module (split
 * into words, parsed as umad fabric parses its arguments), and keeps the
 * steps in an array; running them is the caller's, through a table of
 * operations.
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

#include "base/file_kind.h"
#include "simfabric/describe.h"
#include "simfabric/fabric.h"
#include "simfabric/fault.h"
#include "simfabric/scenario.h"

/* Time and command words of a line, and one more than a command has: too many is told. */
#define MAX_WORDS	(1 + SIM_FAULT_MAX_WORDS + 1)

/* --- messages ---------------------------------------------------------------------- */

/* The errors of a file, each a line of err (the caller's, or NULL), counted here either way. */
struct errors {
	struct umad_err *err;
	unsigned n;
	const char *file;
};

static void __attribute__((format(printf, 3, 4)))
error_at(struct errors *e, unsigned line, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	e->n++;
	if (!e->err)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line)
		umad_err_add(e->err, "%s:%u: %s", e->file, line, msg);
	else
		umad_err_add(e->err, "%s: %s", e->file, msg);
}

/* --- lines ---------------------------------------------------------------------------- */

struct words {
	char word[MAX_WORDS][SIM_FAULT_WORD_MAX];	/* the first MAX_WORDS */
	unsigned total;					/* how many the line has */
};

struct parser {
	struct errors e;
	struct umad_err why;		/* a line's, told at its line */
	struct sim_scenario *sc;
	size_t cap;
	uint64_t last_ms;
	unsigned last_line;
	int oom;
};

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
	const char *argv[MAX_WORDS];
	struct sim_scenario_step s;
	struct sim_fault_shown shown;
	unsigned i;
	int r, backwards;

	umad_err_clear(&p->why);
	if (sim_fault_split(text, len, w->word, MAX_WORDS, &w->total, &p->why) < 0) {
		error_at(&p->e, line, "%s", umad_err_text(&p->why));
		return;
	}
	if (!w->total)
		return;
	memset(&s, 0, sizeof(s));
	s.line = line;
	if (sim_fault_parse_u64(w->word[0], 0, SIM_SCENARIO_MAX_MS, &s.at_ms) < 0) {
		error_at(&p->e, line, "bad time \"%s\": milliseconds, a decimal number 0..%llu",
			 sim_fault_show(w->word[0], &shown), SIM_SCENARIO_MAX_MS);
		return;
	}
	if (w->total < 2) {
		error_at(&p->e, line, "a time and no command");
		return;
	}
	/* The command as umad fabric takes it; words past those kept are counted, not read. */
	for (i = 1; i < w->total && i < MAX_WORDS; i++)
		argv[i - 1] = w->word[i];
	r = sim_fault_parse((int)w->total - 1, argv, &s.req, &p->why);
	/* Of a known command, time going backwards is told before its arguments. */
	backwards = p->last_line && s.at_ms < p->last_ms;
	if (r < 0 && (!backwards || sim_fault_op_by_name(w->word[1]) < 0)) {
		error_at(&p->e, line, "%s", umad_err_text(&p->why));
		return;
	}
	if (backwards) {
		error_at(&p->e, line, "time goes backwards: %" PRIu64 " ms after %" PRIu64
			 " ms at line %u", s.at_ms, p->last_ms, p->last_line);
		return;
	}
	if (p->sc->n_steps >= SIM_SCENARIO_MAX_STEPS) {
		error_at(&p->e, line, "more than %u steps", SIM_SCENARIO_MAX_STEPS);
		return;
	}
	if (add_step(p, &s) < 0) {
		p->oom = 1;
		return;
	}
	p->last_ms = s.at_ms;
	p->last_line = line;
}

void sim_scenario_free(struct sim_scenario *sc)
{
	if (!sc)
		return;
	free(sc->steps);
	free(sc->name);
	free(sc);
}

int sim_scenario_parse(const char *text, size_t len, const char *name, struct sim_scenario **out,
		       struct umad_err *err)
{
	struct parser p;
	struct words *w;
	size_t start = 0;
	unsigned line = 0;
	int r = 0;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!text || !name)
		return -EINVAL;
	memset(&p, 0, sizeof(p));
	p.e.err = err;
	p.e.file = name;
	if (len > SIM_SCENARIO_MAX_BYTES) {
		error_at(&p.e, 0, "%zu bytes: a scenario holds at most %u MiB", len,
			 SIM_SCENARIO_MAX_BYTES >> 20);
		return -EFBIG;
	}
	p.sc = calloc(1, sizeof(*p.sc));
	w = malloc(sizeof(*w));
	if (!p.sc || !w || !(p.sc->name = strdup(name))) {
		free(w);
		sim_scenario_free(p.sc);
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
	if (r < 0) {
		sim_scenario_free(p.sc);
		return r;
	}
	*out = p.sc;
	return 0;
}

int sim_scenario_load(const char *path, struct sim_scenario **out, struct umad_err *err)
{
	struct errors e = { .err = err, .file = path };
	struct stat st;
	char *text;
	size_t len = 0;
	ssize_t n = 0;
	int fd, r;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!path)
		return -EINVAL;
	/* Without blocking: a FIFO would wait for a writer; judged by what was opened. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
		error_at(&e, 0, "%s", strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		error_at(&e, 0, "%s, not a regular file", file_kind(st.st_mode));
		close(fd);
		return -EINVAL;
	}
	if ((uint64_t)st.st_size > SIM_SCENARIO_MAX_BYTES) {
		error_at(&e, 0, "%lld bytes: a scenario holds at most %u MiB", (long long)st.st_size,
			 SIM_SCENARIO_MAX_BYTES >> 20);
		close(fd);
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
		return r;
	}
	r = sim_scenario_parse(text, len, path, out, err);
	free(text);
	return r;
}

/* --- writing steps back --------------------------------------------------------------- */

int sim_scenario_format_step(const struct sim_scenario_step *s, char **line)
{
	struct sim_text t = SIM_TEXT_INIT;
	int r;

	if (!line)
		return -EINVAL;
	*line = NULL;
	if (!s || s->at_ms > SIM_SCENARIO_MAX_MS)
		return -EINVAL;
	sim_text_printf(&t, "%" PRIu64 " ", s->at_ms);
	r = sim_fault_format(&s->req, &t);
	if (r == 0 && t.err)
		r = t.err;
	if (r == 0)
		*line = sim_text_steal(&t);
	sim_text_free(&t);
	return r < 0 ? r : *line ? 0 : -ENOMEM;
}

/* --- against a fabric ------------------------------------------------------------------- */

int sim_scenario_check(const struct sim_scenario *sc, const struct sim_fabric *f,
		       struct umad_err *err)
{
	struct sim_fault_shown name;
	struct umad_err why;
	struct errors e = { .err = err };
	size_t i;

	if (!sc || !f)
		return -EINVAL;
	e.file = sc->name;
	for (i = 0; i < sc->n_steps; i++) {
		const struct sim_scenario_step *s = &sc->steps[i];
		const char *cmd = sim_fault_op_name(s->req.op);
		int r;

		umad_err_clear(&why);
		r = sim_fault_target(f, &s->req, NULL, NULL, &why);

		if (!cmd)
			cmd = "?";
		if (r == -ENOENT && memchr(s->req.node, '\0', sizeof(s->req.node)))
			error_at(&e, s->line, "%s: no node \"%s\" in the fabric (an id, a NodeDescription or a 0xGUID)",
				 cmd, sim_fault_show(s->req.node, &name));
		else if (r < 0)
			error_at(&e, s->line, "%s: %s", cmd, umad_err_text(&why));
	}
	return e.n ? -EINVAL : 0;
}

/* --- running ------------------------------------------------------------------------------ */

int sim_scenario_run(const struct sim_scenario *sc, const struct sim_scenario_ops *ops, void *arg,
		     size_t *failed)
{
	size_t i;
	int r;

	if (!sc || !ops || !ops->fault)
		return -EINVAL;
	for (i = 0; i < sc->n_steps; i++) {
		const struct sim_scenario_step *s = &sc->steps[i];

		r = ops->wait_until ? ops->wait_until(arg, s->at_ms) : 0;
		if (r == 0)
			r = ops->fault(arg, s);
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
	if (!s)
		return -EINVAL;
	return sim_fault_apply(net, &s->req, NULL);
}
