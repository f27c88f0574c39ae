/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * umad capture: its rows of umad's command table (cmd_table.h).
 *   umad capture -w FILE [--redact] -- CMD [ARGS...]
 *       run CMD with the capture shim preloaded, whatever libibumad it uses
 *   umad capture stats FILE
 *       what a capture holds: counts by class/method/attribute, timeouts,
 *       and round-trip latency percentiles
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <infiniband/umad_str.h>

#include "cli/capture_cmd.h"
#include "base/mad_wire.h"
#include "pcap/capture_file.h"
#include "pcap/capture_meta.h"
#include "pcap/pcapng_writer.h"
#include "pcap/pcapng_reader.h"

#ifndef UMAD_MODULE_DIR
#error "the build defines UMAD_MODULE_DIR, the installed module directory"
#endif

#define SHIM_NAME "libumad-capture.so"

static const struct umad_command stats_command;

/* --- capture -w ----------------------------------------------------------- */

static const char *shim_path(char *buf, size_t size)
{
	const char *explicit = getenv("UMAD_CAPTURE_SHIM");
	const char *dir = getenv("UMAD_MODULE_DIR");

	if (explicit && *explicit)
		return explicit;
	snprintf(buf, size, "%s/%s", dir && *dir ? dir : UMAD_MODULE_DIR, SHIM_NAME);
	return buf;
}

/*
 * The capture starts afresh: FILE is replaced once, here, by a file of one
 * section (umad's, without interfaces: tshark reads it even if COMMAND
 * captures nothing), and every process of COMMAND appends its own.  With
 * %p in FILE each process has a file of its own, which nothing replaces.
 * 0, or -1 with why on stderr.
 */
static int start_afresh(const char *file)
{
	char one[4096], other[4096];
	struct umad_err err = UMAD_ERR_INIT;
	struct pcapng_writer *w;

	if (capture_file_name(file, 1, one, sizeof(one)) < 0 ||
	    capture_file_name(file, 2, other, sizeof(other)) < 0) {
		fprintf(stderr, "umad: capture: %s: the name is too long\n", file);
		return -1;
	}
	if (strcmp(one, other))
		return 0;
	w = pcapng_create(one, "umad capture", &err);
	if (!w || pcapng_close(w) < 0) {
		fprintf(stderr, "umad: capture: %s: %s\n", one,
			w ? strerror(errno) : umad_err_text(&err));
		return -1;
	}
	return 0;
}

/* capture's options: the file, and whether what identifies a fabric is left out. */
static char *capture_file;
static gboolean capture_redact;

static const GOptionEntry capture_options[] = {
	{ "write", 'w', 0, G_OPTION_ARG_FILENAME, &capture_file,
	  "Write every MAD of COMMAND's processes to FILE (pcapng; %p: a file per process)",
	  "FILE" },
	{ "redact", 0, 0, G_OPTION_ARG_NONE, &capture_redact,
	  "Zero the M_Keys, SMInfo SM_Keys and SA SM_Keys in the file", NULL },
	G_OPTION_ENTRY_NULL
};

static int run_captured(int argc, char **argv, char **command)
{
	const char *old;
	char shim_buf[4096], *preload;
	const char *shim;

	if (argc > 1)
		return cmd_usage_error(&capture_command, "capture", "unexpected argument '%s' "
				       "(options are -w FILE and --redact, then -- COMMAND)", argv[1]);
	if (!capture_file)
		return cmd_usage_error(&capture_command, "capture", "missing -w FILE");
	if (!command || !command[0])
		return cmd_usage_error(&capture_command, "capture",
				       "missing the command to run after --");
	shim = shim_path(shim_buf, sizeof(shim_buf));
	if (access(shim, R_OK) != 0) {
		fprintf(stderr, "umad: capture: %s: %s (set UMAD_CAPTURE_SHIM or UMAD_MODULE_DIR)\n",
			shim, strerror(errno));
		return 1;
	}
	if (start_afresh(capture_file) < 0)
		return 1;
	old = getenv("LD_PRELOAD");
	if (asprintf(&preload, "%s%s%s", shim, old && *old ? " " : "", old ? old : "") < 0) {
		fprintf(stderr, "umad: capture: out of memory\n");
		return 1;
	}
	/*
	 * COMMAND's environment, not umad's: the shim, loaded into COMMAND's
	 * processes (and theirs), reads where to write from it.  exec keeps it.
	 */
	setenv("LD_PRELOAD", preload, 1);
	setenv("UMAD_PRELOAD_CAPTURE", capture_file, 1);
	if (capture_redact)
		setenv("UMAD_CAPTURE_REDACT", "1", 1);
	execvp(command[0], command);
	fprintf(stderr, "umad: capture: %s: %s\n", command[0], strerror(errno));
	free(preload);
	return 127;
}

/* --- capture stats -------------------------------------------------------- */

struct count {
	uint8_t mgmt_class, method;
	uint16_t attr;
	unsigned long n;
};

/* A request is answered in its own writer's records (capture_record.writer). */
struct pending {
	uint64_t writer;
	int iface;
	uint32_t tid;		/* low 32 bits: the kernel owns the upper half */
	uint64_t ts_ns;
};

#define MAX_COUNTS 4096
#define MAX_PENDING 65536

static struct count counts[MAX_COUNTS];
static size_t n_counts;
static struct pending pending[MAX_PENDING];
static size_t n_pending;
static uint64_t *rtts;
static size_t n_rtts, rtts_cap;

static void count_mad(uint8_t mgmt_class, uint8_t method, uint16_t attr)
{
	size_t i;

	for (i = 0; i < n_counts; i++) {
		if (counts[i].mgmt_class == mgmt_class && counts[i].method == method &&
		    counts[i].attr == attr) {
			counts[i].n++;
			return;
		}
	}
	if (n_counts < MAX_COUNTS)
		counts[n_counts++] = (struct count){ mgmt_class, method, attr, 1 };
}

static int add_rtt(uint64_t ns)
{
	if (n_rtts == rtts_cap) {
		size_t cap = rtts_cap ? 2 * rtts_cap : 1024;
		uint64_t *p = realloc(rtts, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		rtts = p;
		rtts_cap = cap;
	}
	rtts[n_rtts++] = ns;
	return 0;
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int by_count(const void *a, const void *b)
{
	const struct count *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : 0;
}

static uint64_t percentile(double p)
{
	size_t i = (size_t)(p * (double)(n_rtts - 1) + 0.5);

	return rtts[i];
}

/* The writers of the sections seen: how many processes wrote the file. */
#define MAX_WRITERS 4096
static uint64_t writers[MAX_WRITERS];
static size_t n_writers;

static void count_writer(uint64_t writer)
{
	size_t i;

	for (i = 0; i < n_writers; i++)
		if (writers[i] == writer)
			return;
	if (n_writers < MAX_WRITERS)
		writers[n_writers++] = writer;
}

static int show_stats(const char *path)
{
	unsigned long section = 0, sections = 0;
	unsigned long records = 0, sent = 0, received = 0, timeouts = 0, unmatched, bad = 0, not_mads;
	struct capture_record rec;
	struct capture_reader *r;
	struct umad_err err = UMAD_ERR_INIT, why = UMAD_ERR_INIT;
	size_t i;
	int got;

	r = capture_open(path, &err);
	if (!r) {
		fprintf(stderr, "umad: capture stats: %s\n", umad_err_text(&err));
		return 1;
	}
	while ((got = capture_next(r, &rec, &err)) == 1) {
		enum pcapng_direction direction = capture_direction(&rec);
		struct capture_meta meta;
		const uint8_t *mad;
		size_t len;
		uint32_t tid;
		uint8_t method;

		mad = capture_mad(&rec, &len);
		if (!mad)
			continue;
		if (rec.section != section) {
			section = rec.section;
			sections++;
			count_writer(rec.writer);
		}
		method = mad_method(mad);
		tid = get_be32(mad + MAD_OFF_TID_LOW);
		records++;
		count_mad(mad_class(mad), method, mad_attr_id(mad));
		/* A comment that does not read says nothing; the first is reported. */
		umad_err_clear(&why);
		if (capture_meta_parse(rec.comment, &meta, &why) < 0) {
			if (!bad++)
				fprintf(stderr, "umad: capture stats: %s: MAD %lu: %s\n", path, records,
					umad_err_text(&why));
			memset(&meta, 0, sizeof(meta));
		}
		if (direction == PCAPNG_DIR_INBOUND &&
		    ((capture_meta_has(&meta, CAPTURE_META_TIMEOUT) && meta.timeout) ||
		     (capture_meta_has(&meta, CAPTURE_META_STATUS) && meta.status == ETIMEDOUT)))
			timeouts++;
		if (direction == PCAPNG_DIR_OUTBOUND) {
			sent++;
			if (!mad_method_is_response(method) && n_pending < MAX_PENDING)
				pending[n_pending++] = (struct pending){ rec.writer, rec.iface, tid,
									 rec.ts_ns };
		} else {
			received++;
			for (i = 0; i < n_pending; i++) {
				if (pending[i].writer == rec.writer && pending[i].iface == rec.iface &&
				    pending[i].tid == tid) {
					if (mad_method_is_response(method) && rec.ts_ns >= pending[i].ts_ns &&
					    add_rtt(rec.ts_ns - pending[i].ts_ns) < 0)
						break;
					pending[i] = pending[--n_pending];
					break;
				}
			}
		}
	}
	/* No MAD: nothing to summarize, and the reason (or the error) says why. */
	if (!records) {
		if (got == 0)
			capture_why_no_mad(r, &err);
		capture_close(r);
		fprintf(stderr, "umad: capture stats: %s\n", umad_err_text(&err));
		return 1;
	}
	not_mads = capture_not_mads(r);
	capture_close(r);
	if (bad > 1)
		fprintf(stderr, "umad: capture stats: %s: %lu MADs in all with a comment that does not "
			"read\n", path, bad);
	unmatched = n_pending;
	printf("%s: %lu MADs (%lu sent, %lu received), %lu timeouts, %lu requests unanswered\n",
	       path, records, sent, received, timeouts, unmatched);
	if (sections > 1)
		printf("%lu sections with MADs, from %zu%s writers (processes)\n", sections, n_writers,
		       n_writers == MAX_WRITERS ? " or more" : "");
	if (not_mads)
		printf("%lu packet(s) left out: not MADs (other traffic or link types)\n", not_mads);
	qsort(counts, n_counts, sizeof(counts[0]), by_count);
	printf("\n%10s  %-10s %-14s %s\n", "count", "class", "method", "attribute");
	for (i = 0; i < n_counts; i++)
		printf("%10lu  %-10s %-14s %s\n", counts[i].n, umad_class_str(counts[i].mgmt_class),
		       umad_method_str(counts[i].mgmt_class, counts[i].method),
		       umad_attribute_str(counts[i].mgmt_class, htobe16(counts[i].attr)));
	if (n_rtts) {
		qsort(rtts, n_rtts, sizeof(*rtts), by_value);
		printf("\nround trip (%zu answered requests): p50 %.1f us, p90 %.1f us, p99 %.1f us, "
		       "max %.1f us\n", n_rtts, percentile(0.50) / 1e3, percentile(0.90) / 1e3,
		       percentile(0.99) / 1e3, (double)rtts[n_rtts - 1] / 1e3);
	}
	free(rtts);
	/* A file cut short: its figures are those of the records before the cut. */
	if (got < 0) {
		fprintf(stderr, "umad: capture stats: %s: the figures are of the %lu MADs before it\n",
			umad_err_text(&err), records);
		return 1;
	}
	return 0;
}

static int run_stats(int argc, char **argv, char **command)
{
	(void)command;
	if (argc < 2)
		return cmd_usage_error(&stats_command, "capture stats", "missing FILE");
	if (argc > 2)
		return cmd_usage_error(&stats_command, "capture stats",
				       "unexpected argument '%s' after FILE", argv[2]);
	return show_stats(argv[1]);
}

static void capture_usage(FILE *out)
{
	fprintf(out, "       umad capture -w FILE [--redact] -- COMMAND [ARGS...]\n"
		     "       umad capture stats FILE\n");
}

static const struct umad_command stats_command = {
	.name = "stats",
	.summary = "summarize a capture: counts by class, method and attribute, timeouts, "
		   "round-trip latency percentiles",
	.params = "FILE",
	.run = run_stats,
};

static const struct umad_command *const *capture_subcommands(void)
{
	static const struct umad_command *const rows[] = { &stats_command, NULL };

	return rows;
}

const struct umad_command capture_command = {
	.name = "capture",
	.summary = "run COMMAND with every MAD it sends or receives written to FILE (pcapng)",
	.params = "-- COMMAND [ARGS...]",
	.description = "Every MAD through libibumad (rdma-core's or libumad's) in COMMAND and the\n"
		       "processes it starts is written to FILE as pcapng, for Wireshark.",
	.options = capture_options,
	.flags = CMD_RUNS_COMMAND,
	.run = run_captured,
	.subcommands = capture_subcommands,
	.usage = capture_usage,
};
