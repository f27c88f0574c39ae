/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The topology reader: ibsim's net format and ibnetdiscover's output.
 *
 * Pass 1 reads every line (following includes), creating nodes as their
 * headers appear and remembering port lines; pass 2 resolves the port lines
 * into links, checking that both ends agree.  Errors are collected with
 * their file and line; if there is any, the fabric is thrown away.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "base/file_kind.h"
#include "simfabric/identity.h"
#include "simfabric/text.h"
#include "simfabric/topology.h"

#define MAX_INCLUDE_DEPTH 16
#define MAX_NAME (SIM_TOPOLOGY_MAX_ID + 1)	/* a quoted name, its NUL included */
/*
 * Bounds on what one topology may read, so that no input runs for ever or
 * eats the memory: the text of all its files together, and how many files
 * (includes fanning out).  ibnetdiscover's output for the largest fabrics
 * is some tens of MB.
 */
#define MAX_TOPOLOGY_BYTES (256u << 20)
#define MAX_TOPOLOGY_FILES 1024

const char sim_default_topology[] =
	"# libumad's default simulated fabric: two switches joined by two links,\n"
	"# two HCAs on each.  The host attaches at the first CA (Hca1).\n"
	"\n"
	"Switch 8 \"Switch1\"\n"
	"[1] \"Hca1\"[1]\n"
	"[2] \"Hca2\"[1]\n"
	"[7] \"Switch2\"[7]\n"
	"[8] \"Switch2\"[8]\n"
	"\n"
	"Switch 8 \"Switch2\"\n"
	"[1] \"Hca3\"[1]\n"
	"[2] \"Hca4\"[1]\n"
	"[7] \"Switch1\"[7]\n"
	"[8] \"Switch1\"[8]\n"
	"\n"
	"Hca 2 \"Hca1\"\n"
	"[1] \"Switch1\"[1]\n"
	"\n"
	"Hca 2 \"Hca2\"\n"
	"[1] \"Switch1\"[2]\n"
	"\n"
	"Hca 2 \"Hca3\"\n"
	"[1] \"Switch2\"[1]\n"
	"\n"
	"Hca 2 \"Hca4\"\n"
	"[1] \"Switch2\"[2]\n";

/* "lid N" (and "lmc M") in a header or a port line's comment; lid 0: none, lmc -1: not given. */
struct lid_note {
	unsigned lid;
	int lmc;
};

/* A port line waiting for pass 2. */
struct port_line {
	struct sim_node *node;
	unsigned local, remote_port;
	char *remote;
	const char *file;
	unsigned line;
	guint remote_claim;		/* the far end's LID in the comment: its claim + 1, or 0 */
	struct sim_node *remote_node;	/* found in pass 2 */
};

/* The file gives a port a LID here; checked against the others once the links are known. */
struct lid_claim {
	struct sim_port *port;		/* NULL until pass 2 for a port line's far end */
	struct lid_note note;
	const char *file;
	unsigned line;
};

/* Who said a port is linked to what, for the symmetry checks. */
struct claim {
	struct sim_port *peer;
	const char *file;
	unsigned line;
	int explicit_line;	/* the port's own record said so */
};

struct parser {
	struct sim_fabric *fabric;
	GHashTable *by_name;		/* name -> struct sim_node * */
	GHashTable *node_file;		/* struct sim_node * -> file name */
	GPtrArray *files;		/* every file name used in messages (owned) */
	GArray *port_lines;
	GArray *lid_claims;		/* struct lid_claim, in the order the file gives them */
	struct umad_err *err;		/* the caller's, or NULL */
	unsigned n_errors;

	/* Settings that apply to the nodes that follow. */
	uint64_t guid_base[4], guid_next[4];
	uint32_t vendor_id;
	uint16_t device_id;
	/* Refine the identity vendid= and devid= start (which bring them back to the device's own). */
	uint32_t revision;
	struct sim_fw_version fw;
	uint64_t sys_image_guid;	/* next node only */
	uint8_t width, speed, ext;
	char prefix[MAX_NAME];

	struct sim_node *current;	/* the record being read */
	const char *current_file;
	GHashTable *current_ports;	/* local port -> line, for "listed twice" */
	int depth;
	GPtrArray *include_stack;	/* file names, innermost last */
	GHashTable *included_from;	/* a file's name (as in files) -> struct inclusion */
	const char *last_context;	/* the file of the last error shown: its includes were told */
	GArray *include_ids;		/* their struct file_id, for loops however spelt */
	size_t bytes_read;
	unsigned files_read;
	const struct sim_topology_options *progress;	/* of the file named, or NULL */
};

/* Where a file was included: each inclusion has a name of its own in files, so the key is the pointer. */
struct inclusion {
	const char *file;
	unsigned line;
};

/* A file as the kernel knows it: an include loop is found whatever path leads back. */
struct file_id {
	dev_t dev;
	ino_t ino;
};

/*
 * How an included file was reached, as compilers say it, innermost first:
 * "In file included from B:2," then "from A:5:" lines.  Nothing for the
 * file named, or for the file of the error just before (told already).
 */
static void tell_inclusion(struct parser *p, const char *file, struct sim_text *entry)
{
	const struct inclusion *in;
	const char *lead = "In file included from";

	if (file == p->last_context)
		return;
	p->last_context = file;
	for (in = g_hash_table_lookup(p->included_from, file); in;
	     in = g_hash_table_lookup(p->included_from, in->file)) {
		sim_text_printf(entry, "%s %s:%u%s", lead, in->file, in->line,
				g_hash_table_contains(p->included_from, in->file) ? ",\n" : ":\n");
		lead = "                 from";
	}
}

static void G_GNUC_PRINTF(4, 5)
error_at(struct parser *p, const char *file, unsigned line, const char *fmt, ...)
{
	struct sim_text entry = SIM_TEXT_INIT;
	va_list ap;

	/* Counted whoever asks: the checks that need a fabric without errors look. */
	p->n_errors++;
	if (!p->err)
		return;
	tell_inclusion(p, file, &entry);
	if (line)
		sim_text_printf(&entry, "%s:%u: ", file, line);
	else
		sim_text_printf(&entry, "%s: ", file);
	va_start(ap, fmt);
	sim_text_vprintf(&entry, fmt, ap);
	va_end(ap);
	/* Out of memory midway: the reason is still told, without its context. */
	if (entry.err)
		umad_err_add(p->err, "%s: out of memory telling an error", file);
	else
		umad_err_add(p->err, "%s", sim_text_str(&entry));
	sim_text_free(&entry);
}

static const char *skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* A quoted string; returns the character after the closing quote, or NULL. */
static const char *parse_quoted(const char *s, char *out, size_t max)
{
	size_t n = 0;

	if (*s != '"')
		return NULL;
	for (s++; *s && *s != '"'; s++) {
		if (n + 1 >= max)
			return NULL;
		out[n++] = *s;
	}
	if (*s != '"')
		return NULL;
	out[n] = '\0';
	return s + 1;
}

/*
 * Why a name at s (quoted or not) could not be taken, as "has ..." or
 * "is ...", for messages: returned whole, so the text is the caller's and
 * lives to the end of the caller's statement.
 */
struct quote_why {
	char text[64];
};

static struct quote_why quoted_problem(const char *s, size_t max)
{
	struct quote_why why;

	if (*s == '"' && !strchr(s + 1, '"'))
		snprintf(why.text, sizeof(why.text), "has no closing quote");
	else
		snprintf(why.text, sizeof(why.text), "is longer than %zu characters", max - 1);
	return why;
}

/*
 * "[N]"; returns the character after ']', or NULL.  A number too large to
 * keep (UINT_MAX or more) is PORT_BEYOND_ALL, for the caller to tell.
 */
#define PORT_BEYOND_ALL UINT_MAX
static const char *parse_port_number(const char *s, unsigned *num)
{
	char *end;
	unsigned long long v;

	if (*s != '[' || !isdigit((unsigned char)s[1]))
		return NULL;
	errno = 0;
	v = strtoull(s + 1, &end, 10);
	if (*end != ']')
		return NULL;
	*num = errno || v >= PORT_BEYOND_ALL ? PORT_BEYOND_ALL : (unsigned)v;
	return end + 1;
}

/* "(hex)" as ibnetdiscover prints GUIDs; returns the character after ')', or NULL. */
static const char *parse_paren_guid(const char *s, uint64_t *guid)
{
	char *end;

	if (*s != '(' || !isxdigit((unsigned char)s[1]))
		return NULL;
	errno = 0;
	*guid = strtoull(s + 1, &end, 16);
	if (*end != ')' || errno)
		return NULL;
	return end + 1;
}

/* A whole-string number (any base strtoull accepts); -1 if it is not one. */
static int parse_number(const char *s, uint64_t max, uint64_t *value)
{
	char *end;

	s = skip_space(s);
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*value = strtoull(s, &end, 0);
	end = (char *)skip_space(end);
	if (errno || *end || *value > max)
		return -1;
	return 0;
}

/*
 * Node ids after "module": a prefix keeps included copies of a file apart,
 * as ibsim does.  0, or -1 after reporting an id longer than
 * SIM_TOPOLOGY_MAX_ID with its prefix (out holds MAX_NAME bytes).
 */
static int full_name(struct parser *p, const char *file, unsigned line, const char *name,
		     char *out)
{
	size_t prefix_len = strlen(p->prefix), name_len = strlen(name);

	if (!prefix_len || strchr(name, '@') || strchr(name, '#')) {
		snprintf(out, MAX_NAME, "%s", name);	/* a quoted name: it fits */
		return 0;
	}
	if (prefix_len + 1 + name_len > SIM_TOPOLOGY_MAX_ID) {
		error_at(p, file, line, "node id \"%s@%s\" is longer than %d bytes, the longest node id (the module prefix counts)",
			 p->prefix, name, SIM_TOPOLOGY_MAX_ID);
		return -1;
	}
	memcpy(out, p->prefix, prefix_len);
	out[prefix_len] = '@';
	memcpy(out + prefix_len + 1, name, name_len + 1);
	return 0;
}

static const char *node_file(struct parser *p, struct sim_node *n)
{
	return g_hash_table_lookup(p->node_file, n);
}

/* --- rates written as ibnetdiscover prints them ("4xQDR") ------------------- */

static int width_mask_for_lanes(unsigned lanes, uint8_t *mask)
{
	switch (lanes) {
	case 1: *mask = LINK_WIDTH_1X; return 0;
	case 2: *mask = LINK_WIDTH_2X; return 0;
	case 4: *mask = LINK_WIDTH_1X | LINK_WIDTH_4X; return 0;
	case 8: *mask = LINK_WIDTH_8X; return 0;
	case 12: *mask = LINK_WIDTH_1X | LINK_WIDTH_4X | LINK_WIDTH_12X; return 0;
	default: return -1;
	}
}

/*
 * Speeds enabled for a named rate, every lower one included (as ibsim reads
 * them); FDR10 is QDR's PortInfo speeds with FDR10 in MlnxExtPortInfo.
 */
static int speed_masks_for_name(const char *name, uint8_t *speed, uint8_t *ext, uint8_t *mlnx)
{
	enum {
		SDR = LINK_SPEED_SDR, DDR = SDR | LINK_SPEED_DDR, QDR = DDR | LINK_SPEED_QDR,
		FDR = LINK_SPEED_EXT_FDR, EDR = FDR | LINK_SPEED_EXT_EDR,
		HDR = EDR | LINK_SPEED_EXT_HDR, NDR = HDR | LINK_SPEED_EXT_NDR,
	};
	static const struct { const char *name; uint8_t speed, ext, mlnx; } rates[] = {
		{ "SDR", SDR, 0, 0 }, { "DDR", DDR, 0, 0 }, { "QDR", QDR, 0, 0 },
		{ "FDR10", QDR, 0, MLNX_LINK_SPEED_FDR10 },
		{ "FDR", QDR, FDR, 0 }, { "EDR", QDR, EDR, 0 }, { "HDR", QDR, HDR, 0 },
		{ "NDR", QDR, NDR, 0 },
	};
	size_t i;

	for (i = 0; i < G_N_ELEMENTS(rates); i++) {
		if (!strcmp(name, rates[i].name)) {
			*speed = rates[i].speed;
			*ext = rates[i].ext;
			*mlnx = rates[i].mlnx;
			return 0;
		}
	}
	return -1;
}

/* The last "<lanes>x<SPEED>" word of an ibnetdiscover comment, if any: 0, 1 found, -1 bad. */
static int rate_from_comment(const char *comment, uint8_t *width, uint8_t *speed, uint8_t *ext,
			     uint8_t *mlnx)
{
	const char *s = comment, *word = NULL, *end;
	unsigned long lanes;
	char *rate, *x;
	int r;

	/* Find the last word outside quotes. */
	while (*s) {
		s = skip_space(s);
		if (*s == '"') {
			end = strchr(s + 1, '"');
			s = end ? end + 1 : s + strlen(s);
			continue;
		}
		if (!*s)
			break;
		word = s;
		while (*s && *s != ' ' && *s != '\t')
			s++;
	}
	if (!word || !isdigit((unsigned char)*word))
		return 0;
	/* Taken whole, however long: a long word is a bad rate, not a word skipped. */
	rate = g_strndup(word, strcspn(word, " \t"));
	errno = 0;
	lanes = strtoul(rate, &x, 10);
	if (*x != 'x')
		r = 0;
	else if (errno || lanes > 12 || width_mask_for_lanes((unsigned)lanes, width) < 0 ||
		 speed_masks_for_name(x + 1, speed, ext, mlnx) < 0)
		r = -1;
	else
		r = 1;
	g_free(rate);
	return r;
}

/* --- LIDs written as ibnetdiscover prints them ------------------------------- */

/*
 * The "lid N" and "lmc M" words of s outside quoted strings, as notes (an
 * "lmc" belongs to the "lid" before it).  ibnetdiscover prints a switch's
 * LID in its header comment, and in a port line's comment the port's own
 * "lid L lmc M" before the far node's quoted description and the far end's
 * "lid R" after it; *before_quote says how many notes came before the
 * first quoted string (all of them when there is none: *saw_quote 0).  A
 * "lid" or "lmc" not followed by a number is prose and skipped.  0 and up
 * to max notes, or -1 after reporting a number out of range.
 */
static int lid_notes(struct parser *p, const char *file, unsigned line, const char *s,
		     struct lid_note *notes, unsigned max, unsigned *n, unsigned *before_quote,
		     int *saw_quote)
{
	int quoted = 0;

	*n = 0;
	*before_quote = 0;
	while (*(s = skip_space(s))) {
		size_t len;
		int is_lid, is_lmc;
		const char *num;
		uint64_t v;
		char *end;

		if (*s == '"') {
			const char *close = strchr(s + 1, '"');

			quoted = 1;
			s = close ? close + 1 : s + strlen(s);
			continue;
		}
		len = strcspn(s, " \t\"");
		is_lid = len == 3 && !strncmp(s, "lid", 3);
		is_lmc = len == 3 && !strncmp(s, "lmc", 3);
		s += len;
		if (!is_lid && !is_lmc)
			continue;
		num = s = skip_space(s);
		if (!isdigit((unsigned char)*s))
			continue;
		errno = 0;
		v = strtoull(s, &end, 0);
		if (*end && !strchr(" \t\"", *end))
			continue;	/* "lid 4xQDR" and the like: not a LID */
		s = end;
		if (is_lid) {
			if (errno || v >= LID_MCAST_START) {
				error_at(p, file, line, "lid %.*s is not a unicast LID (1..%u)",
					 (int)(end - num), num, LID_MCAST_START - 1);
				return -1;
			}
			if (*n == max)
				continue;
			notes[*n].lid = (unsigned)v;
			notes[*n].lmc = -1;
			if (!quoted)
				*before_quote = *n + 1;
			(*n)++;
		} else {
			if (errno || v > 7) {
				error_at(p, file, line, "lmc %.*s out of range 0..7", (int)(end - num), num);
				return -1;
			}
			if (*n && notes[*n - 1].lmc < 0)
				notes[*n - 1].lmc = (int)v;
		}
	}
	if (saw_quote)
		*saw_quote = quoted;
	return 0;
}

/* Claims are kept in file order, for messages that point at the later line. */
static guint add_lid_claim(struct parser *p, struct sim_port *port, const struct lid_note *note,
			   const char *file, unsigned line)
{
	struct lid_claim c = { .port = port, .note = *note, .file = file, .line = line };

	/* ibnetdiscover prints LID 0 for ports no SM has given one. */
	if (!note->lid)
		return 0;
	g_array_append_val(p->lid_claims, c);
	return p->lid_claims->len;
}

/* --- node headers ------------------------------------------------------------ */

static void end_record(struct parser *p)
{
	p->current = NULL;
	if (p->current_ports)
		g_hash_table_remove_all(p->current_ports);
}

/*
 * The widths a port supports besides the one it runs at.  Ports of the
 * FDR10 and extended-speed era support what such hardware does: one lane,
 * and 2X next to 4X from HDR on (a split port stays 2X); older ones every
 * width, as ibsim has them.
 */
static uint8_t widths_supported(uint8_t width, uint8_t ext, uint8_t mlnx)
{
	const uint8_t ext_2x = LINK_SPEED_EXT_HDR | LINK_SPEED_EXT_NDR;

	if (!ext && !mlnx)
		return width | SIM_WIDTHS_SUPPORTED;
	return width | LINK_WIDTH_1X | ((ext & ext_2x) && (width & LINK_WIDTH_4X) ? LINK_WIDTH_2X : 0);
}

static void apply_port_rates(struct sim_port *port, uint8_t width, uint8_t speed, uint8_t ext,
			     uint8_t mlnx)
{
	port->width_enabled = width;
	port->width_supported = widths_supported(width, ext, mlnx);
	port->speed_enabled = speed;
	port->speed_supported = speed | SIM_SPEEDS_SUPPORTED;
	port->ext_enabled = ext;
	port->ext_supported = ext;
	port->mlnx_speed_enabled = port->mlnx_speed_supported = mlnx;
}

/* A word of s followed by a space or the end (or a quote or '#', which end a word too). */
static const char *after_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	if (strncmp(s, word, n) || (s[n] && !strchr(" \t\"#", s[n])))
		return NULL;
	return s + n;
}

/*
 * What may follow a switch's id (and description) outside a comment, as
 * ibsim reads it: "enhanced port 0" or "base port 0", "lid N", "lmc M".
 * Returns where the rest begins (a comment, the end, or what is not these).
 */
static const char *switch_header_words(const char *s)
{
	const char *w;

	for (;;) {
		s = skip_space(s);
		if ((w = after_word(s, "enhanced")) || (w = after_word(s, "base"))) {
			w = after_word(skip_space(w), "port");
			w = w ? after_word(skip_space(w), "0") : NULL;
		} else if ((w = after_word(s, "lid")) || (w = after_word(s, "lmc"))) {
			w = skip_space(w);
			if (!isdigit((unsigned char)*w))
				return s;
			while (isalnum((unsigned char)*w))
				w++;
		}
		if (!w)
			return s;
		s = w;
	}
}

static void parse_header(struct parser *p, const char *file, unsigned line, const char *s,
			 enum node_type type, size_t keyword_len)
{
	char name[MAX_NAME], full[MAX_NAME], desc[MAX_NAME];
	const char *rest, *words;
	struct sim_node *n, *old;
	uint64_t nports, guid;
	struct lid_note note;
	unsigned i, n_notes, before_quote;
	char *end;

	end_record(p);
	s = skip_space(s + keyword_len);
	if (!isdigit((unsigned char)*s)) {
		error_at(p, file, line, "malformed node header: expected the number of ports after the node type");
		return;
	}
	errno = 0;
	nports = strtoull(s, &end, 10);
	if (*end && !strchr(" \t\"", *end)) {
		error_at(p, file, line, "malformed port count \"%.*s\": a decimal number, 1 to %d",
			 (int)strcspn(s, " \t\""), s, SIM_MAX_PORTS);
		return;
	}
	if (errno || nports < 1 || nports > SIM_MAX_PORTS) {
		error_at(p, file, line, "node has %.*s ports; a node has 1 to %d",
			 (int)strcspn(s, " \t"), s, SIM_MAX_PORTS);
		return;
	}
	s = skip_space(end);
	rest = parse_quoted(s, name, sizeof(name));
	if (!rest) {
		if (*s == '"')
			error_at(p, file, line, "malformed node header: the node id %s",
				 quoted_problem(s, sizeof(name)).text);
		else
			error_at(p, file, line,
				 "malformed node header: expected a quoted node id after the port count");
		return;
	}
	if (!name[0]) {
		error_at(p, file, line, "malformed node header: the node id is empty");
		return;
	}
	if (full_name(p, file, line, name, full) < 0)
		return;
	desc[0] = '\0';
	rest = skip_space(rest);
	if (*rest == '"') {
		/* An optional description right after the id. */
		const char *d = rest;

		rest = parse_quoted(d, desc, sizeof(desc));
		if (!rest) {
			error_at(p, file, line, "malformed node header: the description %s",
				 quoted_problem(d, sizeof(desc)).text);
			return;
		}
		rest = skip_space(rest);
	}
	words = rest;
	if (type == NODE_TYPE_SWITCH)
		rest = switch_header_words(rest);
	if (*rest == '#') {
		const char *c = skip_space(rest + 1);

		if (*c == '"' && !desc[0] && !parse_quoted(c, desc, sizeof(desc))) {
			error_at(p, file, line, "malformed node header: the description in the comment %s",
				 quoted_problem(c, sizeof(desc)).text);
			return;
		}
	} else if (*rest) {
		error_at(p, file, line, "malformed node header: unexpected \"%s\" after the node id", rest);
		return;
	}
	if (strlen(desc) > SIM_DESC_LEN) {
		error_at(p, file, line, "the description is longer than %d bytes, what a NodeDescription holds",
			 SIM_DESC_LEN);
		return;
	}
	old = g_hash_table_lookup(p->by_name, full);
	if (old) {
		error_at(p, file, line, "duplicate node \"%s\" (first declared at %s:%u)", full,
			 node_file(p, old), old->line);
		return;
	}
	n = sim_fabric_add_node(p->fabric, type, full, (unsigned)nports);
	if (!n) {
		error_at(p, file, line, "out of memory");
		return;
	}
	n->line = line;
	if (desc[0])
		snprintf(n->desc, sizeof(n->desc), "%s", desc);
	g_hash_table_insert(p->by_name, n->name, n);
	g_hash_table_insert(p->node_file, n, (gpointer)file);

	guid = p->guid_next[type];
	n->node_guid = guid;
	p->guid_next[type] += type == NODE_TYPE_SWITCH ? 1 : nports + 1;
	n->sys_guid = p->sys_image_guid ? p->sys_image_guid : guid;
	p->sys_image_guid = 0;
	n->vendor_id = p->vendor_id;
	n->device_id = p->device_id;
	n->revision = p->revision;
	n->fw = p->fw;
	for (i = 0; i <= n->num_ports; i++) {
		struct sim_port *port = &n->ports[i];

		port->guid = type == NODE_TYPE_SWITCH ? guid : guid + i;
		if (i)
			apply_port_rates(port, p->width, p->speed, p->ext, 0);
	}
	if (type == NODE_TYPE_SWITCH && strstr(words, "enhanced port 0"))
		sim_switch_set_enhanced_port0(n);
	/* A switch's LID (ibsim's words or ibnetdiscover's comment); CA headers carry none. */
	if (type == NODE_TYPE_SWITCH &&
	    lid_notes(p, file, line, words, &note, 1, &n_notes, &before_quote, NULL) == 0 &&
	    n_notes)
		add_lid_claim(p, &n->ports[0], &note, file, line);
	p->current = n;
	p->current_file = file;
}

/* --- port lines -------------------------------------------------------------- */

static int parse_port_option(struct parser *p, const char *file, unsigned line,
			     struct sim_port *port, const char *opt)
{
	uint64_t v;

	/* Any number here: the ranges below say what is wrong with one too large. */
	if (strlen(opt) < 3 || opt[1] != '=' || parse_number(opt + 2, UINT64_MAX, &v) < 0) {
		error_at(p, file, line, "malformed port option \"%s\" (expected w=, s= or e= and a number)", opt);
		return -1;
	}
	switch (opt[0]) {
	case 'w':
		if (v < 1 || v > 31) {
			error_at(p, file, line, "width mask w=%" PRIu64 " out of range 1..31", v);
			return -1;
		}
		port->width_enabled = (uint8_t)v;
		port->width_supported |= (uint8_t)v;
		return 0;
	case 's':
		if (v > 7) {
			error_at(p, file, line, "speed mask s=%" PRIu64 " out of range 0..7", v);
			return -1;
		}
		/* As in ibsim, 0 means QDR. */
		port->speed_enabled = v ? (uint8_t)v : LINK_SPEED_QDR;
		port->speed_supported |= port->speed_enabled;
		return 0;
	case 'e':
		if (v > 15) {
			error_at(p, file, line, "extended speed mask e=%" PRIu64 " out of range 0..15", v);
			return -1;
		}
		port->ext_enabled = (uint8_t)v;
		port->ext_supported |= (uint8_t)v;
		return 0;
	default:
		error_at(p, file, line, "unknown port option \"%s\" (expected w=, s= or e=)", opt);
		return -1;
	}
}

/*
 * The LIDs in a port line's comment: on a CA or router, the port's own
 * before the far node's description and the far end's after it; on a
 * switch, only the far end's.  The far end's claim waits for pass 2 to
 * know its port (*remote_claim).  0, or -1 after an error.
 */
static int port_line_lids(struct parser *p, const char *file, unsigned line, const char *comment,
			  struct sim_port *port, guint *remote_claim)
{
	struct lid_note notes[2];
	unsigned n, before;
	int quoted;
	unsigned far;

	if (lid_notes(p, file, line, comment, notes, 2, &n, &before, &quoted) < 0)
		return -1;
	if (port->node->type != NODE_TYPE_SWITCH && before >= 1)
		add_lid_claim(p, port, &notes[0], file, line);
	/* Unquoted, a CA's line reads "lid L lmc M lid R"; a switch's only "lid R". */
	if (quoted)
		far = before;
	else
		far = port->node->type != NODE_TYPE_SWITCH ? 1 : 0;
	if (far < n)
		*remote_claim = add_lid_claim(p, NULL, &notes[far], file, line);
	return 0;
}

/*
 * What follows the far end on a port line: options, then an optional
 * comment whose last word may give the link's rate (and the LIDs).  0, or
 * -1 with the error told.
 */
static int port_line_rest(struct parser *p, const char *file, unsigned line, struct sim_port *port,
			  const char *s, guint *remote_claim)
{
	for (;;) {
		char *opt;
		size_t n;
		int r;

		s = skip_space(s);
		if (!*s)
			break;
		if (*s == '#') {
			uint8_t w, sp, e, m;

			r = rate_from_comment(s + 1, &w, &sp, &e, &m);
			if (r < 0) {
				error_at(p, file, line, "unknown link rate in the comment \"%s\"", s);
				return -1;
			}
			if (r > 0 && m && !sim_node_is_mellanox(port->node)) {
				error_at(p, file, line, "FDR10 is a speed of Mellanox devices (MlnxExtPortInfo): \"%s\" needs vendid=0x%x",
					 p->current->name, SIM_VENDOR_MELLANOX);
				return -1;
			}
			if (r > 0)
				apply_port_rates(port, w, sp, e, m);
			if (port_line_lids(p, file, line, s + 1, port, remote_claim) < 0)
				return -1;
			break;
		}
		/* As long as it is written: leading zeros make no option malformed. */
		n = strcspn(s, " \t#");
		opt = g_strndup(s, n);
		r = parse_port_option(p, file, line, port, opt);
		g_free(opt);
		if (r < 0)
			return -1;
		s += n;
	}
	return 0;
}

static void parse_port_line(struct parser *p, const char *file, unsigned line, const char *s)
{
	char name[MAX_NAME];
	struct port_line pl = { 0 };
	struct sim_port *port;
	uint64_t guid = 0;
	const char *next;
	gpointer seen;
	int has_guid = 0;

	if (!p->current) {
		error_at(p, file, line, "port line outside a node record (a blank line ends a record)");
		return;
	}
	next = parse_port_number(s, &pl.local);
	if (!next) {
		error_at(p, file, line, "malformed port line: expected [port] at the start");
		return;
	}
	if (pl.local == PORT_BEYOND_ALL) {
		error_at(p, file, line, "port %.*s out of range: a node has at most %d ports",
			 (int)(next - s), s, SIM_MAX_PORTS);
		return;
	}
	s = next;
	if (*s == '(') {
		next = parse_paren_guid(s, &guid);
		if (!next) {
			error_at(p, file, line, "malformed port GUID after [%u]", pl.local);
			return;
		}
		has_guid = 1;
		s = next;
	}
	s = skip_space(s);
	next = parse_quoted(s, name, sizeof(name));
	if (!next || !name[0]) {
		if (!next && *s == '"')
			error_at(p, file, line, "malformed port line: the remote node id after [%u] %s",
				 pl.local, quoted_problem(s, sizeof(name)).text);
		else
			error_at(p, file, line,
				 "malformed port line: expected a quoted remote node id after [%u]",
				 pl.local);
		return;
	}
	s = skip_space(next);
	next = parse_port_number(s, &pl.remote_port);
	if (!next) {
		error_at(p, file, line, "malformed port line: expected [port] after \"%s\"", name);
		return;
	}
	if (pl.remote_port == PORT_BEYOND_ALL) {
		error_at(p, file, line, "port %.*s of \"%s\" out of range: a node has at most %d ports",
			 (int)(next - s), s, name, SIM_MAX_PORTS);
		return;
	}
	/* ibnetdiscover puts a space before the far end's GUID when that is a CA's. */
	s = *skip_space(next) == '(' ? skip_space(next) : next;
	if (*s == '(') {
		uint64_t remote_guid;

		next = parse_paren_guid(s, &remote_guid);
		if (!next) {
			error_at(p, file, line, "malformed remote port GUID after \"%s\"[%u]", name,
				 pl.remote_port);
			return;
		}
		s = next;
	}
	if (pl.local < 1 || pl.local > p->current->num_ports) {
		error_at(p, file, line, "port %u out of range: \"%s\" has ports 1..%u", pl.local,
			 p->current->name, p->current->num_ports);
		return;
	}
	seen = g_hash_table_lookup(p->current_ports, GUINT_TO_POINTER(pl.local));
	if (seen) {
		error_at(p, file, line, "port %u of \"%s\" is listed twice (also at line %u)", pl.local,
			 p->current->name, GPOINTER_TO_UINT(seen));
		return;
	}
	g_hash_table_insert(p->current_ports, GUINT_TO_POINTER(pl.local), GUINT_TO_POINTER(line));
	port = &p->current->ports[pl.local];
	if (has_guid && p->current->type != NODE_TYPE_SWITCH) {
		port->guid = guid;
	}
	if (port_line_rest(p, file, line, port, s, &pl.remote_claim) < 0)
		return;
	{
		char full[MAX_NAME];

		if (full_name(p, file, line, name, full) < 0)
			return;
		pl.remote = g_strdup(full);
	}
	pl.node = p->current;
	pl.file = file;
	pl.line = line;
	g_array_append_val(p->port_lines, pl);
}

/* --- global lines ------------------------------------------------------------ */

/* "key=value" or, for GUID bases, "key+offset"; value starts after the sign. */
static const char *assignment(const char *s, size_t key_len, int *relative)
{
	s = skip_space(s + key_len);
	if (*s == '+' && relative) {
		*relative = 1;
		return s + 1;
	}
	if (*s != '=')
		return NULL;
	if (relative)
		*relative = 0;
	return s + 1;
}

static void parse_guid_base(struct parser *p, const char *file, unsigned line, const char *s,
			    size_t key_len, enum node_type type)
{
	int relative;
	const char *v = assignment(s, key_len, &relative);
	char *value;
	uint64_t guid;
	int r;

	if (!v) {
		error_at(p, file, line, "malformed GUID base: expected %.*s=GUID", (int)key_len, s);
		return;
	}
	v = skip_space(v);
	/* ibnetdiscover adds "(port GUID)" after a switch's GUID; leading zeros are no error. */
	value = g_strndup(v, strcspn(v, "( \t"));
	r = parse_number(value, UINT64_MAX, &guid);
	if (r < 0)
		error_at(p, file, line, "malformed GUID \"%s\"", value);
	g_free(value);
	if (r < 0)
		return;
	if (!relative)
		p->guid_base[type] = guid;
	p->guid_next[type] = p->guid_base[type] + (relative ? guid : 0);
}

static void parse_value(struct parser *p, const char *file, unsigned line, const char *s,
			size_t key_len, uint64_t max, uint64_t *value)
{
	const char *v = assignment(s, key_len, NULL);

	if (!v || parse_number(v, max, value) < 0)
		error_at(p, file, line, "malformed setting: expected %.*s=NUMBER (0..%" PRIu64 ")",
			 (int)key_len, s, max);
}

/* "fwver=MAJOR.MINOR.SUBMINOR", each part a decimal number that fits 16 bits. */
static void parse_fw_version(struct parser *p, const char *file, unsigned line, const char *s,
			     size_t key_len)
{
	const char *v = assignment(s, key_len, NULL);
	uint16_t part[3];
	unsigned i;

	for (i = 0; v && i < 3; i++) {
		unsigned long n;
		char *end;

		v = skip_space(v);
		if (!isdigit((unsigned char)*v))
			break;
		errno = 0;
		n = strtoul(v, &end, 10);
		if (errno || n > UINT16_MAX)
			break;
		part[i] = (uint16_t)n;
		v = end;
		if (i < 2 && *v++ != '.')
			break;
	}
	if (!v || i < 3 || *skip_space(v)) {
		error_at(p, file, line, "malformed firmware version: expected %.*s=MAJOR.MINOR.SUBMINOR (each 0..%u)",
			 (int)key_len, s, UINT16_MAX);
		return;
	}
	p->fw = (struct sim_fw_version){ part[0], part[1], part[2] };
}

/* A vendid= or devid= line: a new device, whose revision and firmware are its own until said. */
static void new_identity(struct parser *p)
{
	p->revision = 0;
	p->fw = (struct sim_fw_version){ 0 };
}

static int read_file(struct parser *p, const char *path, const char *from_file, unsigned from_line);
static void parse_text(struct parser *p, const char *file, char *text);

static void parse_include(struct parser *p, const char *file, unsigned line, const char *s)
{
	char name[PATH_MAX], path[PATH_MAX * 2];
	const char *rest;

	s = skip_space(s + strlen("include"));
	if (*s == '"') {
		rest = parse_quoted(s, name, sizeof(name));
		if (!rest || *skip_space(rest)) {
			error_at(p, file, line, "malformed include: the file name %s",
				 !rest ? quoted_problem(s, sizeof(name)).text :
					 "is followed by more text");
			return;
		}
	} else {
		size_t n = strcspn(s, " \t");

		if (!n || *skip_space(s + n)) {
			error_at(p, file, line, "malformed include: expected include FILE");
			return;
		}
		if (n >= sizeof(name)) {
			error_at(p, file, line, "malformed include: the file name %s",
				 quoted_problem(s, sizeof(name)).text);
			return;
		}
		memcpy(name, s, n);
		name[n] = '\0';
	}
	/* Relative names are relative to the including file's directory. */
	if (name[0] != '/' && strchr(file, '/'))
		snprintf(path, sizeof(path), "%.*s/%s", (int)(strrchr(file, '/') - file), file, name);
	else
		snprintf(path, sizeof(path), "%s", name);
	read_file(p, path, file, line);
}

static int starts_with_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	return !strncmp(s, word, n) && (s[n] == ' ' || s[n] == '\t');
}

static int starts_with_key(const char *s, const char *key)
{
	size_t n = strlen(key);
	const char *after;

	if (strncmp(s, key, n))
		return 0;
	after = skip_space(s + n);
	return *after == '=' || *after == '+';
}

static void parse_line(struct parser *p, const char *file, unsigned line, const char *s)
{
	uint64_t v;

	s = skip_space(s);
	if (!*s) {
		end_record(p);
		return;
	}
	if (*s == '#')
		return;
	if (*s == '[') {
		parse_port_line(p, file, line, s);
		return;
	}
	if (starts_with_word(s, "Switch")) {
		parse_header(p, file, line, s, NODE_TYPE_SWITCH, 6);
		return;
	}
	if (starts_with_word(s, "Hca") || starts_with_word(s, "Ca")) {
		parse_header(p, file, line, s, NODE_TYPE_CA, s[0] == 'H' ? 3 : 2);
		return;
	}
	if (starts_with_word(s, "Rt")) {
		parse_header(p, file, line, s, NODE_TYPE_ROUTER, 2);
		return;
	}
	/* Everything else is a global line and ends the record. */
	end_record(p);
	if (starts_with_key(s, "switchguid"))
		parse_guid_base(p, file, line, s, 10, NODE_TYPE_SWITCH);
	else if (starts_with_key(s, "hcaguids"))
		parse_guid_base(p, file, line, s, 8, NODE_TYPE_CA);
	else if (starts_with_key(s, "caguid"))
		parse_guid_base(p, file, line, s, 6, NODE_TYPE_CA);
	else if (starts_with_key(s, "rtguid"))
		parse_guid_base(p, file, line, s, 6, NODE_TYPE_ROUTER);
	else if (starts_with_key(s, "vendid")) {
		v = p->vendor_id;
		parse_value(p, file, line, s, 6, 0xffffff, &v);
		p->vendor_id = (uint32_t)v;
		new_identity(p);
	} else if (starts_with_key(s, "devid")) {
		v = p->device_id;
		parse_value(p, file, line, s, 5, 0xffff, &v);
		p->device_id = (uint16_t)v;
		new_identity(p);
	} else if (starts_with_key(s, "revid")) {
		v = p->revision;
		parse_value(p, file, line, s, 5, UINT32_MAX, &v);
		p->revision = (uint32_t)v;
	} else if (starts_with_key(s, "fwver")) {
		parse_fw_version(p, file, line, s, 5);
	} else if (starts_with_key(s, "sysimgguid")) {
		v = 0;
		parse_value(p, file, line, s, 10, UINT64_MAX, &v);
		p->sys_image_guid = v;
	} else if (starts_with_key(s, "width")) {
		v = p->width;
		parse_value(p, file, line, s, 5, 31, &v);
		if (!v)
			error_at(p, file, line, "width=0 enables no width (1..31)");
		else
			p->width = (uint8_t)v;
	} else if (starts_with_key(s, "speed")) {
		v = p->speed;
		parse_value(p, file, line, s, 5, 7, &v);
		p->speed = v ? (uint8_t)v : LINK_SPEED_QDR;
	} else if (starts_with_key(s, "extspeed")) {
		v = p->ext;
		parse_value(p, file, line, s, 8, 15, &v);
		p->ext = (uint8_t)v;
	} else if (starts_with_key(s, "module")) {
		const char *value = assignment(s, 6, NULL);
		char name[MAX_NAME];

		if (!value)
			error_at(p, file, line, "malformed module line: expected module=NAME");
		else if (*(value = skip_space(value)) == '"' ? !parse_quoted(value, name, sizeof(name))
				  : snprintf(name, sizeof(name), "%s", value) >= (int)sizeof(name))
			error_at(p, file, line, "malformed module name: the name %s",
				 quoted_problem(value, MAX_NAME).text);
		else
			snprintf(p->prefix, sizeof(p->prefix), "%s", name);
	} else if (starts_with_word(s, "include")) {
		parse_include(p, file, line, s);
	} else if (!strncmp(s, "pdebug", 6) && strchr(" \t=", s[6])) {
		/* ibsim's parser trace switch: nothing to trace here. */
	} else if (starts_with_word(s, "do")) {
		error_at(p, file, line, "\"do\" runs an ibsim console command, which this simulator has no console for: \"%s\"",
			 skip_space(s + 2));
	} else {
		error_at(p, file, line, "unrecognised line \"%.40s\"", s);
	}
}

/* Lines between two progress reports: often enough for a person, rarely enough to cost nothing. */
#define PROGRESS_LINES	65536

static void parse_text(struct parser *p, const char *file, char *text)
{
	/* The file named only: an included one is a part whose share is unknown. */
	const struct sim_topology_options *progress =
		p->include_stack->len <= 1 && p->progress && p->progress->progress ? p->progress
										   : NULL;
	size_t total = progress ? strlen(text) : 0;
	unsigned line = 0;
	char *s = text, *nl;

	while (*s) {
		nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		if (nl > s && nl[-1] == '\r')
			nl[-1] = '\0';
		line++;
		parse_line(p, file, line, s);
		if (!nl)
			break;
		s = nl + 1;
		if (progress && line % PROGRESS_LINES == 0)
			progress->progress(progress->arg, (size_t)(s - text), total);
	}
	end_record(p);
	if (progress)
		progress->progress(progress->arg, total, total);
}

/* Report a problem with the file being opened: at the include line, or at the file itself. */
static void G_GNUC_PRINTF(5, 6)
file_error(struct parser *p, const char *path, const char *from_file, unsigned from_line,
	   const char *fmt, ...)
{
	char *what;
	va_list ap;

	va_start(ap, fmt);
	what = g_strdup_vprintf(fmt, ap);
	va_end(ap);
	if (from_file)
		error_at(p, from_file, from_line, "cannot include %s: %s", path, what);
	else
		error_at(p, path, 0, "%s", what);
	g_free(what);
}

/*
 * The whole text of a regular file, within the topology's bounds; NULL
 * after reporting why not.  Opened without blocking (a FIFO would wait
 * for a writer) and judged by what was opened, not by the name.
 */
static char *slurp(struct parser *p, const char *path, const char *from_file, unsigned from_line,
		   struct file_id *id)
{
	size_t room = MAX_TOPOLOGY_BYTES - p->bytes_read, len = 0;
	struct stat st;
	char *text;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		file_error(p, path, from_file, from_line, "%s", g_strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		file_error(p, path, from_file, from_line, "%s, not a regular file",
			   file_kind(st.st_mode));
		close(fd);
		return NULL;
	}
	if ((uint64_t)st.st_size > room) {
		file_error(p, path, from_file, from_line,
			   "%lld bytes: a topology reads at most %u MiB in all", (long long)st.st_size,
			   MAX_TOPOLOGY_BYTES >> 20);
		close(fd);
		return NULL;
	}
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	text = g_malloc((size_t)st.st_size + 1);
	/* The file may change while it is read: never past the size it had, plus one to see it grew. */
	while (len <= (size_t)st.st_size &&
	       (n = read(fd, text + len, (size_t)st.st_size + 1 - len)) > 0)
		len += (size_t)n;
	close(fd);
	if (len > (size_t)st.st_size) {
		file_error(p, path, from_file, from_line, "it grew while it was read");
		g_free(text);
		return NULL;
	}
	text[len] = '\0';
	p->bytes_read += len;
	if (strlen(text) != len) {
		file_error(p, path, from_file, from_line, "not a text file (it holds a NUL byte)");
		g_free(text);
		return NULL;
	}
	return text;
}

static int read_file(struct parser *p, const char *path, const char *from_file, unsigned from_line)
{
	struct file_id id;
	char *text, *name;
	guint i;

	if (p->include_stack->len >= MAX_INCLUDE_DEPTH) {
		error_at(p, from_file, from_line, "includes nested deeper than %d", MAX_INCLUDE_DEPTH);
		return -1;
	}
	if (p->files_read >= MAX_TOPOLOGY_FILES) {
		error_at(p, from_file, from_line, "cannot include %s: a topology reads at most %d files",
			 path, MAX_TOPOLOGY_FILES);
		return -1;
	}
	p->files_read++;
	text = slurp(p, path, from_file, from_line, &id);
	if (!text)
		return -1;
	for (i = 0; i < p->include_ids->len; i++) {
		const struct file_id *open_id = &g_array_index(p->include_ids, struct file_id, i);

		if (open_id->dev == id.dev && open_id->ino == id.ino) {
			const char *open_name = g_ptr_array_index(p->include_stack, i);

			if (!strcmp(path, open_name))
				error_at(p, from_file, from_line,
					 "include loop: %s is being read already (it includes this file)",
					 path);
			else
				error_at(p, from_file, from_line,
					 "include loop: %s is %s, which is being read already (it includes this file)",
					 path, open_name);
			g_free(text);
			return -1;
		}
	}
	name = g_strdup(path);
	g_ptr_array_add(p->files, name);
	if (from_file) {
		struct inclusion *in = g_new(struct inclusion, 1);

		in->file = from_file;
		in->line = from_line;
		g_hash_table_insert(p->included_from, name, in);
	}
	g_ptr_array_add(p->include_stack, name);
	g_array_append_val(p->include_ids, id);
	parse_text(p, name, text);
	g_ptr_array_remove_index(p->include_stack, p->include_stack->len - 1);
	g_array_set_size(p->include_ids, p->include_ids->len - 1);
	g_free(text);
	return 0;
}

/* --- pass 2: links ------------------------------------------------------------ */

static void port_name(const struct sim_port *port, char *out, size_t max)
{
	snprintf(out, max, "\"%s\"[%u]", port->node->name, port->num);
}

/* Who claims a port: by its place among all ports (node by node, port 0 first). */
static struct claim *claim_of(struct claim *claims, const size_t *base, const struct sim_port *port)
{
	return &claims[base[port->node->index] + port->num];
}

static void resolve_links(struct parser *p)
{
	struct sim_fabric *f = p->fabric;
	size_t *base = g_new(size_t, f->n_nodes + 1), n_ports = 0, k;
	struct claim *claims;
	guint i;

	for (k = 0; k < f->n_nodes; k++) {
		base[k] = n_ports;
		n_ports += f->nodes[k]->num_ports + 1u;
	}
	claims = g_new0(struct claim, n_ports);	/* peer NULL: nobody claimed the port yet */
	/* Each port line claims its local port (explicitly) and the remote one (implicitly). */
	for (i = 0; i < p->port_lines->len; i++) {
		struct port_line *pl = &g_array_index(p->port_lines, struct port_line, i);
		struct sim_node *remote = g_hash_table_lookup(p->by_name, pl->remote);
		struct sim_port *local, *far;
		struct claim *c;
		char a[MAX_NAME + 16], b[MAX_NAME + 16], other[MAX_NAME + 16];

		if (!remote) {
			error_at(p, pl->file, pl->line, "unknown node \"%s\"", pl->remote);
			continue;
		}
		if (pl->remote_port < 1 || pl->remote_port > remote->num_ports) {
			error_at(p, pl->file, pl->line, "port %u out of range: \"%s\" has ports 1..%u",
				 pl->remote_port, remote->name, remote->num_ports);
			continue;
		}
		pl->remote_node = remote;
		local = &pl->node->ports[pl->local];
		far = &remote->ports[pl->remote_port];
		if (local == far) {
			port_name(local, a, sizeof(a));
			error_at(p, pl->file, pl->line, "%s is linked to itself", a);
			continue;
		}
		c = claim_of(claims, base, local);
		if (c->peer && c->peer != far) {
			port_name(local, a, sizeof(a));
			port_name(far, b, sizeof(b));
			port_name(c->peer, other, sizeof(other));
			error_at(p, pl->file, pl->line,
				 "asymmetric link: %s goes to %s here, but %s:%u links %s to it",
				 a, b, c->file, c->line, other);
			continue;
		}
		c->peer = far;
		c->file = pl->file;
		c->line = pl->line;
		c->explicit_line = 1;

		c = claim_of(claims, base, far);
		if (c->peer && c->peer != local) {
			port_name(local, a, sizeof(a));
			port_name(far, b, sizeof(b));
			port_name(c->peer, other, sizeof(other));
			if (c->explicit_line)
				error_at(p, pl->file, pl->line,
					 "asymmetric link: %s goes to %s here, but %s:%u says %s goes to %s",
					 a, b, c->file, c->line, b, other);
			else
				error_at(p, pl->file, pl->line,
					 "duplicate link: %s is already linked to %s (%s:%u)", b, other,
					 c->file, c->line);
			continue;
		}
		if (!c->peer) {
			c->peer = local;
			c->file = pl->file;
			c->line = pl->line;
		}
	}
	g_free(claims);
	g_free(base);
	if (p->n_errors)
		return;
	/* Everything agrees: cable it up, each link once. */
	for (i = 0; i < p->port_lines->len; i++) {
		struct port_line *pl = &g_array_index(p->port_lines, struct port_line, i);
		struct sim_node *remote = pl->remote_node;
		struct sim_port *local = &pl->node->ports[pl->local];
		struct sim_port *far = &remote->ports[pl->remote_port];
		char a[MAX_NAME + 16], b[MAX_NAME + 16];
		int r;

		/* A switch's LID is its port 0's, whichever port the line names. */
		if (pl->remote_claim)
			g_array_index(p->lid_claims, struct lid_claim, pl->remote_claim - 1).port =
				remote->type == NODE_TYPE_SWITCH ? &remote->ports[0] : far;
		if (local->peer == far)
			continue;
		r = sim_fabric_link(local, far);
		if (r == 0) {
			local->line = far->line = pl->line;
			p->fabric->n_links++;
			continue;
		}
		port_name(local, a, sizeof(a));
		port_name(far, b, sizeof(b));
		if (r == -ERANGE)
			error_at(p, pl->file, pl->line,
				 "%s and %s share no enabled link width or speed (w=/s=/e= of the two ends)",
				 a, b);
		else
			error_at(p, pl->file, pl->line, "cannot link %s to %s: %s", a, b, strerror(-r));
	}
}

/* A port's LID and LMC as the file's claims agree on them. */
struct lid_merge {
	const struct lid_claim *lid, *lmc;	/* the first claims giving each */
};

/* "lid L" or "LIDs L..M" of a port, for messages. */
static void lid_range_name(unsigned lid, unsigned lmc, char *out, size_t max)
{
	if (lmc)
		snprintf(out, max, "LIDs %u..%u", lid, lid + (1u << lmc) - 1);
	else
		snprintf(out, max, "LID %u", lid);
}

/*
 * The LIDs the file gives, checked once every link is known: one LID and
 * LMC per port however often it is given, aligned to the LMC, inside the
 * unicast range, no two ports sharing a LID, and a switch whose port 0 is
 * a base port 0 at LMC 0.  Then each port records them (file_lid, file_lmc).
 */
static void check_lids(struct parser *p)
{
	GHashTable *merged = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	const struct lid_claim **owner = NULL;
	char a[MAX_NAME + 16], b[MAX_NAME + 16];
	guint i;

	for (i = 0; i < p->lid_claims->len; i++) {
		const struct lid_claim *c = &g_array_index(p->lid_claims, struct lid_claim, i);
		struct lid_merge *m;

		if (!c->port)
			continue;	/* a line pass 2 did not link: reported already */
		m = g_hash_table_lookup(merged, c->port);
		if (!m) {
			m = g_new0(struct lid_merge, 1);
			m->lid = c;
			g_hash_table_insert(merged, c->port, m);
		} else if (m->lid->note.lid != c->note.lid) {
			port_name(c->port, a, sizeof(a));
			error_at(p, c->file, c->line, "conflicting LIDs for %s: %u here, %u at %s:%u",
				 a, c->note.lid, m->lid->note.lid, m->lid->file, m->lid->line);
			continue;
		}
		if (c->note.lmc < 0)
			continue;
		if (!m->lmc) {
			m->lmc = c;
		} else if (m->lmc->note.lmc != c->note.lmc) {
			port_name(c->port, a, sizeof(a));
			error_at(p, c->file, c->line, "conflicting LMCs for %s: %d here, %d at %s:%u",
				 a, c->note.lmc, m->lmc->note.lmc, m->lmc->file, m->lmc->line);
		}
	}
	if (p->n_errors || !p->lid_claims->len)
		goto out;
	owner = g_new0(const struct lid_claim *, LID_MCAST_START);
	/* In claim order, so that messages name the first place a LID was given. */
	for (i = 0; i < p->lid_claims->len; i++) {
		const struct lid_claim *c = &g_array_index(p->lid_claims, struct lid_claim, i);
		struct lid_merge *m = c->port ? g_hash_table_lookup(merged, c->port) : NULL;
		const struct lid_claim *where;
		unsigned lid, lmc, l;
		char range[48];

		if (!m || m->lid != c)
			continue;	/* seen at the port's first claim */
		lid = c->note.lid;
		lmc = m->lmc ? (unsigned)m->lmc->note.lmc : 0;
		where = m->lmc ? m->lmc : c;
		port_name(c->port, a, sizeof(a));
		lid_range_name(lid, lmc, range, sizeof(range));
		if (lmc && c->port->node->type == NODE_TYPE_SWITCH && !c->port->node->sw->enhanced_port0) {
			error_at(p, where->file, where->line,
				 "%s has LMC %u, but a switch's base port 0 has LMC 0 (only an enhanced port 0 may have more)",
				 a, lmc);
			continue;
		}
		/* Aligned below LID_MCAST_START (a multiple of 128), the range stays unicast. */
		if (lid & ((1u << lmc) - 1)) {
			error_at(p, where->file, where->line,
				 "LID %u of %s is not a multiple of %u, as its LMC %u needs", lid, a,
				 1u << lmc, lmc);
			continue;
		}
		for (l = lid; l < lid + (1u << lmc); l++) {
			if (owner[l]) {
				port_name(owner[l]->port, b, sizeof(b));
				error_at(p, c->file, c->line, "%s of %s: LID %u is already %s's (%s:%u)",
					 range, a, l, b, owner[l]->file, owner[l]->line);
				break;
			}
		}
		if (l < lid + (1u << lmc))
			continue;
		for (l = lid; l < lid + (1u << lmc); l++)
			owner[l] = c;
		c->port->file_lid = (uint16_t)lid;
		c->port->file_lmc = (uint8_t)lmc;
	}
out:
	g_free(owner);
	g_hash_table_destroy(merged);
}

/* Node GUIDs and CA/router port GUIDs must all differ (sysimgguid may be shared). */
static void check_guids(struct parser *p)
{
	GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
	size_t i;
	unsigned j;

	for (i = 0; i < p->fabric->n_nodes; i++) {
		struct sim_node *n = p->fabric->nodes[i];

		for (j = 0; j <= n->num_ports; j++) {
			uint64_t *guid = j == 0 ? &n->node_guid : &n->ports[j].guid;
			struct sim_node *other;

			if (j > 0 && n->type == NODE_TYPE_SWITCH)
				break;	/* switch ports share the node GUID */
			if (j == 0 && n->type != NODE_TYPE_SWITCH && n->node_guid == n->ports[1].guid)
				continue;
			other = g_hash_table_lookup(seen, guid);
			if (other) {
				error_at(p, node_file(p, n), n->line,
					 "duplicate GUID 0x%016" PRIx64 ": \"%s\" (%s:%u) has it too",
					 *guid, other->name, node_file(p, other), other->line);
				continue;
			}
			g_hash_table_insert(seen, guid, n);
		}
	}
	g_hash_table_destroy(seen);
}

static void parser_init(struct parser *p, struct umad_err *err,
			const struct sim_topology_options *opts)
{
	memset(p, 0, sizeof(*p));
	p->err = err;
	p->fabric = sim_fabric_new_in(opts ? opts->arena : NULL);
	p->progress = opts;
	p->by_name = g_hash_table_new(g_str_hash, g_str_equal);
	p->node_file = g_hash_table_new(g_direct_hash, g_direct_equal);
	p->files = g_ptr_array_new_with_free_func(g_free);
	p->include_stack = g_ptr_array_new();
	p->included_from = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
	p->include_ids = g_array_new(FALSE, FALSE, sizeof(struct file_id));
	p->port_lines = g_array_new(FALSE, TRUE, sizeof(struct port_line));
	p->lid_claims = g_array_new(FALSE, FALSE, sizeof(struct lid_claim));
	p->current_ports = g_hash_table_new(g_direct_hash, g_direct_equal);
	/* ibsim's GUID bases, so that the same file gives the same GUIDs in both simulators. */
	p->guid_base[NODE_TYPE_CA] = p->guid_next[NODE_TYPE_CA] = 0x100000;
	p->guid_base[NODE_TYPE_SWITCH] = p->guid_next[NODE_TYPE_SWITCH] = 0x200000;
	p->guid_base[NODE_TYPE_ROUTER] = p->guid_next[NODE_TYPE_ROUTER] = 0x300000;
	p->width = LINK_WIDTH_1X | LINK_WIDTH_4X;
	p->speed = LINK_SPEED_SDR;
}

static struct sim_fabric *parser_finish(struct parser *p)
{
	struct sim_fabric *f = p->fabric;
	guint i;

	if (!f) {
		error_at(p, "topology", 0, "out of memory");
	} else if (!p->n_errors) {
		if (!f->n_nodes)
			error_at(p, p->files->len ? (const char *)g_ptr_array_index(p->files, 0)
						  : "topology", 0, "no nodes defined");
		else
			resolve_links(p);
		if (!p->n_errors)
			check_guids(p);
		if (!p->n_errors)
			check_lids(p);
		for (i = 0; !p->n_errors && i < f->n_nodes; i++)
			sim_node_link_caps(f->nodes[i]);
	}
	for (i = 0; i < p->port_lines->len; i++)
		g_free(g_array_index(p->port_lines, struct port_line, i).remote);
	g_array_free(p->port_lines, TRUE);
	g_array_free(p->lid_claims, TRUE);
	g_hash_table_destroy(p->by_name);
	g_hash_table_destroy(p->node_file);
	g_hash_table_destroy(p->current_ports);
	g_ptr_array_free(p->include_stack, TRUE);
	g_hash_table_destroy(p->included_from);
	g_array_free(p->include_ids, TRUE);
	g_ptr_array_free(p->files, TRUE);
	if (p->n_errors) {
		sim_fabric_free(f);
		f = NULL;
	}
	return f;
}

struct sim_fabric *sim_topology_load_opts(const char *path, struct umad_err *err,
					  const struct sim_topology_options *opts)
{
	struct parser p;

	parser_init(&p, err, opts);
	if (p.fabric)
		read_file(&p, path, NULL, 0);
	return parser_finish(&p);
}

struct sim_fabric *sim_topology_load(const char *path, struct umad_err *err)
{
	return sim_topology_load_opts(path, err, NULL);
}

struct sim_fabric *sim_topology_parse(const char *text, const char *name, struct umad_err *err)
{
	return sim_topology_parse_opts(text, name, err, NULL);
}

struct sim_fabric *sim_topology_parse_opts(const char *text, const char *name,
					   struct umad_err *err,
					   const struct sim_topology_options *opts)
{
	struct parser p;
	char *copy = g_strdup(text);

	parser_init(&p, err, opts);
	g_ptr_array_add(p.files, g_strdup(name));
	if (p.fabric)
		parse_text(&p, g_ptr_array_index(p.files, 0), copy);
	g_free(copy);
	return parser_finish(&p);
}
