/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The topology reader: every construct of ibsim's net format and of
 * ibnetdiscover's output, and every error it reports (as "file:line:
 * message", with no fabric returned).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "simfabric/fabric.h"
#include <glib.h>

#include "simfabric/topology.h"

/* Parse text that must be accepted. */
static struct sim_fabric *parse_ok(const char *text)
{
	struct umad_err errors = UMAD_ERR_INIT;
	struct sim_fabric *f = sim_topology_parse(text, "t.net", &errors);

	if (!f)
		fail_msg("unexpected errors:\n%s", umad_err_text(&errors));
	assert_int_equal(errors.count, 0);
	return f;
}

/* Parse text that must be refused with exactly `expected` as its first error line. */
static void parse_fails(const char *text, const char *expected)
{
	struct umad_err errors = UMAD_ERR_INIT;
	struct sim_fabric *f = sim_topology_parse(text, "t.net", &errors);
	size_t n;

	if (f)
		fail_msg("accepted, expected: %s", expected);
	assert_true(errors.count > 0);
	n = strcspn(umad_err_text(&errors), "\n");
	if (strlen(expected) != n || strncmp(umad_err_text(&errors), expected, n))
		fail_msg("expected: %s\ngot:      %.*s", expected, (int)n, umad_err_text(&errors));
	umad_err_clear(&errors);
}

static struct sim_port *port_of(struct sim_fabric *f, const char *node, unsigned port)
{
	struct sim_node *n = sim_fabric_find(f, node);

	assert_non_null(n);
	assert_true(port <= n->num_ports);
	return &n->ports[port];
}

/* --- what is accepted ------------------------------------------------------ */

static void test_default_fabric(void **state)
{
	struct sim_fabric *f = parse_ok(sim_default_topology);
	struct sim_node *sw1, *hca1;
	size_t i;

	(void)state;
	assert_int_equal(f->n_nodes, 6);
	assert_int_equal(f->n_switches, 2);
	assert_int_equal(f->n_cas, 4);
	assert_int_equal(f->n_links, 6);
	sw1 = sim_fabric_find(f, "Switch1");
	hca1 = sim_fabric_find(f, "Hca1");
	assert_non_null(sw1);
	assert_non_null(hca1);
	/* ibsim's GUID scheme: switches from 0x200000, CAs from 0x100000 with room for their ports. */
	assert_int_equal(sw1->node_guid, 0x200000);
	assert_int_equal(sim_fabric_find(f, "Switch2")->node_guid, 0x200001);
	assert_int_equal(hca1->node_guid, 0x100000);
	assert_int_equal(hca1->ports[1].guid, 0x100001);
	assert_int_equal(hca1->ports[2].guid, 0x100002);
	assert_int_equal(sim_fabric_find(f, "Hca2")->node_guid, 0x100003);
	assert_ptr_equal(sim_fabric_find(f, "0x100003"), sim_fabric_find(f, "Hca2"));
	/* Redundant inter-switch links; every cabled port trained to Init/LinkUp. */
	assert_ptr_equal(port_of(f, "Switch1", 7)->peer, port_of(f, "Switch2", 7));
	assert_ptr_equal(port_of(f, "Switch1", 8)->peer, port_of(f, "Switch2", 8));
	assert_ptr_equal(hca1->ports[1].peer, &sw1->ports[1]);
	assert_int_equal(hca1->ports[1].state, PORT_STATE_INIT);
	assert_int_equal(hca1->ports[1].phys_state, PHYS_STATE_LINKUP);
	assert_int_equal(hca1->ports[1].width_active, LINK_WIDTH_4X);
	assert_int_equal(hca1->ports[1].speed_active, LINK_SPEED_SDR);
	/* An uncabled port stays down. */
	assert_null(hca1->ports[2].peer);
	assert_int_equal(hca1->ports[2].state, PORT_STATE_DOWN);
	assert_null(port_of(f, "Switch1", 3)->peer);
	/* Names stand in for missing descriptions. */
	assert_string_equal(sw1->desc, "Switch1");
	for (i = 0; i < f->n_nodes; i++)
		assert_int_equal(f->nodes[i]->index, i);
	sim_fabric_free(f);
}

static void test_headers_and_descriptions(void **state)
{
	struct sim_fabric *f = parse_ok(
		"Switch 4 \"S\" \"big switch\" # enhanced port 0 lid 3\n"
		"[1] \"C\"[1]\n"
		"\n"
		"Ca 1 \"C\" # \"a comment description\"\n"
		"[1] \"S\"[1]\n"
		"\n"
		"Rt 2 \"R\"\n"
		"\n"
		"Hca\t1\t\"H\"\t\"tabbed\"\n");

	(void)state;
	assert_int_equal(f->n_routers, 1);
	assert_string_equal(sim_fabric_find(f, "S")->desc, "big switch");
	assert_true(sim_fabric_find(f, "S")->sw->enhanced_port0);
	/* An enhanced port 0 waits in Init for an SM, where a base one is Active. */
	assert_int_equal(sim_fabric_find(f, "S")->ports[0].state, PORT_STATE_INIT);
	assert_string_equal(sim_fabric_find(f, "C")->desc, "a comment description");
	assert_int_equal(sim_fabric_find(f, "R")->type, NODE_TYPE_ROUTER);
	assert_int_equal(sim_fabric_find(f, "R")->node_guid, 0x300000);
	assert_string_equal(sim_fabric_find(f, "H")->desc, "tabbed");
	assert_int_equal(sim_fabric_find(f, "H")->type, NODE_TYPE_CA);
	sim_fabric_free(f);
}

/* ibnetdiscover's output is read as it is printed: GUIDs in brackets, rates in comments. */
static void test_ibnetdiscover_output(void **state)
{
	struct sim_fabric *f = parse_ok(
		"#\n"
		"# Topology file: generated on Mon Nov 23 10:00:00 2026\n"
		"#\n"
		"# Initiated from node 0002c90300000001 port 0002c90300000002\n"
		"\n"
		"vendid=0x2c9\n"
		"devid=0xc738\n"
		"sysimgguid=0x2c90300000100\n"
		"switchguid=0x2c90300000100(2c90300000100)\n"
		"Switch\t36 \"S-0002c90300000100\"\t\t# \"MF0;sw1:SX6036/U1\" enhanced port 0 lid 1 lmc 0\n"
		"[1]\t\"H-0002c90300000001\"[1](2c90300000002) \t\t# \"node1 HCA-1\" lid 2 4xFDR\n"
		"[2]\t\"H-0002c90300000005\"[2](2c90300000007) \t\t# \"node2 HCA-1\" lid 3 4xEDR\n"
		"\n"
		"vendid=0x2c9\n"
		"devid=0x1003\n"
		"sysimgguid=0x2c90300000003\n"
		"caguid=0x2c90300000001\n"
		"Ca\t2 \"H-0002c90300000001\"\t\t# \"node1 HCA-1\"\n"
		"[1](2c90300000002) \t\"S-0002c90300000100\"[1]\t\t# lid 2 lmc 0 \"MF0;sw1:SX6036/U1\" lid 1 4xFDR\n"
		"\n"
		"caguid=0x2c90300000005\n"
		"Ca\t2 \"H-0002c90300000005\"\t\t# \"node2 HCA-1\"\n"
		"[2](2c90300000007) \t\"S-0002c90300000100\"[2]\t\t# lid 3 lmc 0 \"MF0;sw1:SX6036/U1\" lid 1 4xEDR\n");
	struct sim_node *sw = sim_fabric_find(f, "S-0002c90300000100");
	struct sim_node *h1 = sim_fabric_find(f, "H-0002c90300000001");
	struct sim_node *h2 = sim_fabric_find(f, "H-0002c90300000005");

	(void)state;
	assert_non_null(sw);
	assert_non_null(h1);
	assert_non_null(h2);
	assert_int_equal(sw->node_guid, 0x2c90300000100ull);
	assert_int_equal(sw->vendor_id, 0x2c9);
	assert_int_equal(sw->device_id, 0xc738);
	assert_true(sw->sw->enhanced_port0);
	assert_string_equal(sw->desc, "MF0;sw1:SX6036/U1");
	assert_int_equal(h1->node_guid, 0x2c90300000001ull);
	assert_int_equal(h1->sys_guid, 0x2c90300000003ull);
	assert_int_equal(h1->device_id, 0x1003);
	assert_string_equal(h1->desc, "node1 HCA-1");
	/* Port GUIDs in brackets are the ports' own. */
	assert_int_equal(h1->ports[1].guid, 0x2c90300000002ull);
	assert_int_equal(h2->ports[2].guid, 0x2c90300000007ull);
	/* The comment's rate: 4xFDR and 4xEDR links train at those rates. */
	assert_int_equal(h1->ports[1].width_active, LINK_WIDTH_4X);
	assert_int_equal(h1->ports[1].ext_active, LINK_SPEED_EXT_FDR);
	assert_int_equal(h2->ports[2].ext_active, LINK_SPEED_EXT_EDR);
	assert_ptr_equal(h2->ports[2].peer, &sw->ports[2]);
	assert_int_equal(f->n_links, 2);
	sim_fabric_free(f);
}

static void test_globals(void **state)
{
	struct sim_fabric *f = parse_ok(
		"switchguid=0x5000\n"
		"caguid=0x7000\n"
		"rtguid=0x9000\n"
		"vendid=0x1234\n"
		"devid=0x42\n"
		"width=1\n"
		"speed=2\n"
		"extspeed=0\n"
		"pdebug\n"
		"pdebug 1\n"
		"Switch 2 \"S1\"\n"
		"[1] \"C1\"[1]\n"
		"[2] \"C2\"[1] w=2 s=4\n"
		"\n"
		"sysimgguid=0xabc\n"
		"Hca 1 \"C1\"\n"
		"[1] \"S1\"[1]\n"
		"\n"
		"hcaguids+0x100\n"
		"Hca 1 \"C2\"\n"
		"[1] \"S1\"[2] w=3 s=7\n"
		"\n"
		"switchguid+5\n"
		"Switch 2 \"S2\"\n"
		"Rt 1 \"R1\"\n");
	struct sim_node *c1 = sim_fabric_find(f, "C1"), *c2 = sim_fabric_find(f, "C2");

	(void)state;
	assert_int_equal(sim_fabric_find(f, "S1")->node_guid, 0x5000);
	assert_int_equal(sim_fabric_find(f, "S2")->node_guid, 0x5005);
	assert_int_equal(sim_fabric_find(f, "R1")->node_guid, 0x9000);
	assert_int_equal(c1->node_guid, 0x7000);
	assert_int_equal(c1->sys_guid, 0xabc);		/* sysimgguid: the next node only */
	assert_int_equal(c2->node_guid, 0x7100);
	assert_int_equal(c2->sys_guid, 0x7100);
	assert_int_equal(c1->vendor_id, 0x1234);
	assert_int_equal(c2->device_id, 0x42);		/* sticky */
	/* width=1 speed=2: 1x DDR by default... */
	assert_int_equal(c1->ports[1].width_active, LINK_WIDTH_1X);
	assert_int_equal(c1->ports[1].speed_active, LINK_SPEED_DDR);
	/* ...and per-port w=/s= masks meet at the best common rate: 4x (w=2 & w=3), QDR. */
	assert_int_equal(c2->ports[1].width_active, LINK_WIDTH_4X);
	assert_int_equal(c2->ports[1].speed_active, LINK_SPEED_QDR);
	sim_fabric_free(f);
}

/*
 * A node's identity: vendid= and devid= start one (revision 0, the device's
 * own firmware); revid= and fwver= refine it for the nodes that follow, up
 * to the next vendid= or devid=.  No identity at all: 0s, as before.
 */
static void test_identity(void **state)
{
	struct sim_fabric *f = parse_ok(
		"Hca 1 \"plain\"\n"
		"\n"
		"vendid=0x2c9\n"
		"devid=0x101b\n"
		"revid=0xa1\n"
		"fwver=20.31.1014\n"
		"Hca 1 \"C1\"\n"
		"\n"
		"Hca 2 \"C2\"\n"
		"\n"
		"devid=0xd2f0\n"
		"Switch 41 \"S1\"\n"
		"\n"
		"fwver = 27.2010.03118\n"
		"Switch 65 \"S2\"\n");
	struct sim_node *plain = sim_fabric_find(f, "plain"), *c1 = sim_fabric_find(f, "C1");
	struct sim_node *c2 = sim_fabric_find(f, "C2"), *s1 = sim_fabric_find(f, "S1");
	struct sim_node *s2 = sim_fabric_find(f, "S2");

	(void)state;
	assert_int_equal(plain->vendor_id, 0);
	assert_int_equal(plain->device_id, 0);
	assert_int_equal(plain->revision, 0);
	assert_int_equal(plain->fw.major | plain->fw.minor | plain->fw.sub_minor, 0);
	assert_int_equal(c1->vendor_id, 0x2c9);
	assert_int_equal(c1->device_id, 0x101b);
	assert_int_equal(c1->revision, 0xa1);
	assert_int_equal(c1->fw.major, 20);
	assert_int_equal(c1->fw.minor, 31);
	assert_int_equal(c1->fw.sub_minor, 1014);
	/* Sticky for the nodes that follow... */
	assert_int_equal(c2->revision, 0xa1);
	assert_int_equal(c2->fw.sub_minor, 1014);
	assert_int_equal(c2->num_ports, 2);
	/* ...until a devid= line starts another device. */
	assert_int_equal(s1->vendor_id, 0x2c9);
	assert_int_equal(s1->device_id, 0xd2f0);
	assert_int_equal(s1->revision, 0);
	assert_int_equal(s1->fw.major | s1->fw.minor | s1->fw.sub_minor, 0);
	assert_int_equal(s1->num_ports, 41);
	assert_int_equal(s2->fw.major, 27);
	assert_int_equal(s2->fw.minor, 2010);
	assert_int_equal(s2->fw.sub_minor, 3118);
	assert_int_equal(s2->num_ports, 65);
	sim_fabric_free(f);
}

/*
 * "4xFDR10" (ibnetdiscover's word for a Mellanox link at FDR10): QDR in
 * PortInfo and FDR10 in MlnxExtPortInfo, supported and enabled; the link
 * trains to FDR10 where both ends have it.  A node of another vendor cannot.
 */
static void test_fdr10(void **state)
{
	struct sim_fabric *f = parse_ok(
		"vendid=0x2c9\n"
		"devid=0xc738\n"
		"Switch 2 \"S1\"\n"
		"[1] \"C1\"[1] # \"c1\" lid 2 4xFDR10\n"
		"[2] \"C2\"[1] # 4xQDR\n"
		"\n"
		"devid=0x1003\n"
		"Ca 1 \"C1\"\n"
		"[1](1234) \"S1\"[1] # lid 2 lmc 0 \"s1\" lid 1 4xFDR10\n"
		"\n"
		"Ca 1 \"C2\"\n"
		"[1] \"S1\"[2] # 4xQDR\n");
	struct sim_port *p = port_of(f, "S1", 1), *q = port_of(f, "C2", 1);

	(void)state;
	assert_int_equal(p->mlnx_speed_supported, MLNX_LINK_SPEED_FDR10);
	assert_int_equal(p->mlnx_speed_enabled, MLNX_LINK_SPEED_FDR10);
	assert_int_equal(p->mlnx_speed_active, MLNX_LINK_SPEED_FDR10);
	assert_int_equal(p->peer->mlnx_speed_active, MLNX_LINK_SPEED_FDR10);
	assert_int_equal(p->speed_active, LINK_SPEED_QDR);
	assert_int_equal(p->ext_active, 0);
	assert_int_equal(p->width_active, LINK_WIDTH_4X);
	assert_string_equal(sim_speed_name(p), "FDR10");
	assert_int_equal(q->mlnx_speed_supported, 0);
	assert_int_equal(q->mlnx_speed_active, 0);
	assert_string_equal(sim_speed_name(q), "QDR");
	sim_fabric_free(f);

	parse_fails("Switch 1 \"S1\"\n[1] \"C1\"[1] # 4xFDR10\n\nHca 1 \"C1\"\n[1] \"S1\"[1]\n",
		    "t.net:2: FDR10 is a speed of Mellanox devices (MlnxExtPortInfo): \"S1\" needs vendid=0x2c9");
}

/* "module" prefixes node ids, as ibsim does, so that one file can be included twice. */
static void test_module_prefix(void **state)
{
	struct sim_fabric *f = parse_ok(
		"module=rack1\n"
		"Hca 1 \"H\"\n"
		"[1] \"S\"[1]\n"
		"Switch 2 \"S\"\n"
		"[1] \"H\"[1]\n"
		"\n"
		"module=rack2\n"
		"Hca 1 \"H\"\n"
		"[1] \"S\"[1]\n"
		"Switch 2 \"S\"\n"
		"[1] \"H\"[1]\n"
		"[2] \"rack1@S\"[2]\n");

	(void)state;
	assert_non_null(sim_fabric_find(f, "rack1@H"));
	assert_non_null(sim_fabric_find(f, "rack2@S"));
	assert_ptr_equal(port_of(f, "rack2@S", 2)->peer, port_of(f, "rack1@S", 2));
	assert_int_equal(f->n_links, 3);
	sim_fabric_free(f);
}

/* A temporary directory with files for the include tests. */
struct dir {
	char path[PATH_MAX];
};

static void write_file(const struct dir *d, const char *name, const char *text)
{
	char path[PATH_MAX * 2];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", d->path, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
}

/* A topology that would be fine but for the NUL byte at its end. */
static void write_binary_file(const struct dir *d, const char *name)
{
	char path[PATH_MAX * 2];
	FILE *fp;

	write_file(d, name, "Hca 1 \"H\"\n");
	snprintf(path, sizeof(path), "%s/%s", d->path, name);
	fp = fopen(path, "a");
	assert_non_null(fp);
	assert_int_equal(fputc(0, fp), 0);
	assert_int_equal(fclose(fp), 0);
}

static int make_dir(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));
	char sub[PATH_MAX + 8];

	snprintf(d->path, sizeof(d->path), "%s/topo.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(d->path))
		return -1;
	snprintf(sub, sizeof(sub), "%s/sub", d->path);
	if (mkdir(sub, 0700) < 0)
		return -1;
	*state = d;
	return 0;
}

/* A long file tells how far its reading got, in order, ending at its size. */
struct progress_seen {
	size_t calls, last, total;
	int backwards;
};

static void note_progress(void *arg, size_t done, size_t total)
{
	struct progress_seen *seen = arg;

	seen->backwards |= seen->calls && done < seen->last;
	seen->calls++;
	seen->last = done;
	seen->total = total;
}

static void test_load_progress(void **state)
{
	struct dir *d = *state;
	struct progress_seen seen = { 0 };
	struct sim_topology_options progress = { note_progress, &seen, NULL };
	struct sim_fabric *f;
	struct umad_err errors = UMAD_ERR_INIT;
	char path[PATH_MAX * 2];
	GString *text = g_string_new("");
	unsigned i;

	/* 40,000 CAs back to back in pairs: 120,000 lines, a report on the way and one at the end. */
	for (i = 0; i < 40000; i += 2)
		g_string_append_printf(text, "Hca 1 \"A%u\"\n[1] \"A%u\"[1]\n\nHca 1 \"A%u\"\n[1] \"A%u\"[1]\n\n",
				       i, i + 1, i + 1, i);
	write_file(d, "big.net", text->str);
	snprintf(path, sizeof(path), "%s/big.net", d->path);
	f = sim_topology_load_opts(path, &errors, &progress);
	assert_non_null(f);
	assert_int_equal(f->n_cas, 40000);
	assert_true(seen.calls >= 2);
	assert_false(seen.backwards);
	assert_int_equal(seen.last, text->len);
	assert_int_equal(seen.total, text->len);
	sim_fabric_free(f);
	g_string_free(text, TRUE);
}

static int remove_dir(void **state)
{
	struct dir *d = *state;
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->path);
	if (system(cmd) != 0)
		return -1;
	free(d);
	return 0;
}

static struct sim_fabric *load(const struct dir *d, const char *name, struct umad_err *errors)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/%s", d->path, name);
	return sim_topology_load(path, errors);
}

/* Includes are relative to the including file; the same file twice under two modules. */
static void test_include(void **state)
{
	struct dir *d = *state;
	struct sim_fabric *f;
	struct umad_err errors = UMAD_ERR_INIT;

	write_file(d, "sub/rack.net",
		   "Hca 1 \"H\"\n[1] \"S\"[1]\n\nSwitch 4 \"S\"\n[1] \"H\"[1]\n");
	write_file(d, "sub/two.net",
		   "module=a\ninclude rack.net\nmodule=b\ninclude \"rack.net\"\n"
		   "Switch 2 \"spine\"\n[1] \"a@S\"[4]\n[2] \"b@S\"[4]\n");
	write_file(d, "top.net", "include sub/two.net\n");
	f = load(d, "top.net", &errors);
	if (!f)
		fail_msg("%s", umad_err_text(&errors));
	assert_int_equal(f->n_nodes, 5);
	assert_int_equal(f->n_links, 4);
	assert_ptr_equal(port_of(f, "b@S", 4)->peer, port_of(f, "b@spine", 2));
	sim_fabric_free(f);
}

static void expect_file_error(const struct dir *d, const char *name, const char *expected_suffix)
{
	struct umad_err errors = UMAD_ERR_INIT;
	char expected[PATH_MAX * 3];
	struct sim_fabric *f = load(d, name, &errors);

	assert_null(f);
	assert_true(errors.count > 0);
	snprintf(expected, sizeof(expected), "%s/%s", d->path, expected_suffix);
	if (strncmp(umad_err_text(&errors), expected, strlen(expected)))
		fail_msg("expected: %s\ngot:      %s", expected, umad_err_text(&errors));
}

/* The errors of a file under d, whole; "$D" in expected stands for d's path. */
static void expect_errors(const struct dir *d, const char *name, const char *expected)
{
	GString *want = g_string_new(expected);
	struct umad_err errors = UMAD_ERR_INIT;
	struct sim_fabric *f = load(d, name, &errors);

	g_string_replace(want, "$D", d->path, 0);
	if (f)
		fail_msg("%s accepted, expected:\n%s", name, want->str);
	assert_true(errors.count > 0);
	if (strcmp(umad_err_text(&errors), want->str))
		fail_msg("expected:\n%s\ngot:\n%s", want->str, umad_err_text(&errors));
	umad_err_clear(&errors);
	g_string_free(want, TRUE);
}

/*
 * An error in an included file says how the file was reached, as
 * compilers do, at every level and for errors found once every file is
 * read (unknown peers) too; told once for errors in a row in one file,
 * and again for each inclusion of a file included twice.
 */
static void test_include_chain(void **state)
{
	struct dir *d = *state;

	write_file(d, "sub/leaf.net", "Hca 1 \"H\"\n[1] \"S\"[1] z=1\nbogus\n");
	write_file(d, "sub/mid.net", "\ninclude leaf.net\n");
	write_file(d, "top.net", "# top\n\n\ninclude sub/mid.net\n");
	expect_errors(d, "top.net",
		      "In file included from $D/sub/mid.net:2,\n"
		      "                 from $D/top.net:4:\n"
		      "$D/sub/leaf.net:2: unknown port option \"z=1\" (expected w=, s= or e=)\n"
		      "$D/sub/leaf.net:3: unrecognised line \"bogus\"\n");
	/* Found in the second pass, in a file included twice, and in the top file between. */
	write_file(d, "sub/rack.net", "Hca 1 \"H\"\n[1] \"nowhere\"[1]\n");
	write_file(d, "two.net", "module=a\ninclude sub/rack.net\nHca 1 \"T\"\n[1] \"gone\"[1]\n\n"
				 "module=b\ninclude sub/rack.net\n");
	expect_errors(d, "two.net",
		      "In file included from $D/two.net:2:\n"
		      "$D/sub/rack.net:2: unknown node \"a@nowhere\"\n"
		      "$D/two.net:4: unknown node \"a@gone\"\n"
		      "In file included from $D/two.net:7:\n"
		      "$D/sub/rack.net:2: unknown node \"b@nowhere\"\n");
	/* A missing file and a binary one: at the include line, which says how it was reached. */
	write_file(d, "sub/missing.net", "\n\ninclude nothere.net\n");
	write_file(d, "withmissing.net", "include sub/missing.net\n");
	expect_errors(d, "withmissing.net",
		      "In file included from $D/withmissing.net:1:\n"
		      "$D/sub/missing.net:3: cannot include $D/sub/nothere.net: No such file or directory\n");
	write_binary_file(d, "sub/nul.net");
	write_file(d, "withnul.net", "\ninclude sub/nul.net\n");
	expect_errors(d, "withnul.net",
		      "$D/withnul.net:2: cannot include $D/sub/nul.net: not a text file (it holds a NUL byte)\n");
	/* A cycle of three: found where it closes, the whole way round told. */
	write_file(d, "ring1.net", "include ring2.net\n");
	write_file(d, "ring2.net", "\ninclude ring3.net\n");
	write_file(d, "ring3.net", "\n\ninclude ring1.net\n");
	expect_errors(d, "ring1.net",
		      "In file included from $D/ring2.net:2,\n"
		      "                 from $D/ring1.net:1:\n"
		      "$D/ring3.net:3: include loop: $D/ring1.net is being read already (it includes this file)\n");
}

static void test_include_errors(void **state)
{
	struct dir *d = *state;
	char name[64];
	int i;

	/* A loop, a missing file, an error inside an included file (named as itself, and how it was reached). */
	write_file(d, "loop.net", "Hca 1 \"H\"\n\ninclude loop.net\n");
	expect_file_error(d, "loop.net", "loop.net:3: include loop: ");
	write_file(d, "missing.net", "\ninclude nothere.net\n");
	expect_file_error(d, "missing.net",
			  "missing.net:2: cannot include ");
	write_file(d, "sub/bad.net", "Hca 1 \"H\"\n[1] \"H\"[1] z=1\n");
	write_file(d, "outer.net", "include sub/bad.net\n");
	expect_errors(d, "outer.net",
		      "In file included from $D/outer.net:1:\n"
		      "$D/sub/bad.net:2: unknown port option \"z=1\" (expected w=, s= or e=)\n");
	write_file(d, "badinc.net", "include a b\n");
	expect_file_error(d, "badinc.net", "badinc.net:1: malformed include: expected include FILE");
	write_file(d, "badinc2.net", "include \"a\n");
	expect_file_error(d, "badinc2.net",
			  "badinc2.net:1: malformed include: the file name has no closing quote");
	/* A chain deeper than the limit. */
	for (i = 0; i < 20; i++) {
		char text[64];

		snprintf(name, sizeof(name), "deep%d.net", i);
		snprintf(text, sizeof(text), "include deep%d.net\n", i + 1);
		write_file(d, name, text);
	}
	{
		GString *want = g_string_new("In file included from $D/deep14.net:1,\n");

		for (i = 13; i >= 0; i--)
			g_string_append_printf(want, "                 from $D/deep%d.net:1%s\n", i,
					       i ? "," : ":");
		g_string_append(want, "$D/deep15.net:1: includes nested deeper than 16\n");
		expect_errors(d, "deep0.net", want->str);
		g_string_free(want, TRUE);
	}
	/* The top file itself: absent, or binary. */
	expect_file_error(d, "absent.net", "absent.net: ");
	write_binary_file(d, "nul.net");
	expect_file_error(d, "nul.net", "nul.net: not a text file (it holds a NUL byte)");
}

/* Inputs that must end in an error, bounded in time and memory, not in a hang or a crash. */
static void test_hostile_files(void **state)
{
	struct dir *d = *state;
	struct umad_err errors = UMAD_ERR_INIT;
	char path[PATH_MAX * 2], text[PATH_MAX * 2 + 64];
	int i;

	/* A FIFO with no writer: never waited for, as the top file or an include. */
	snprintf(path, sizeof(path), "%s/fifo.net", d->path);
	assert_int_equal(mkfifo(path, 0600), 0);
	expect_file_error(d, "fifo.net", "fifo.net: a FIFO, not a regular file");
	write_file(d, "withfifo.net", "include fifo.net\n");
	snprintf(text, sizeof(text), "withfifo.net:1: cannot include %s/fifo.net: a FIFO, not a regular file",
		 d->path);
	expect_file_error(d, "withfifo.net", text);
	/* Devices and directories. */
	assert_null(sim_topology_load("/dev/zero", &errors));
	assert_string_equal(umad_err_text(&errors), "/dev/zero: a character device, not a regular file\n");
	umad_err_clear(&errors);
	expect_file_error(d, "sub", "sub: a directory, not a regular file");
	/* A file including itself by another name: ./, a symbolic link, a longer path. */
	write_file(d, "self.net", "include ./self.net\n");
	expect_file_error(d, "self.net", "self.net:1: include loop: ");
	snprintf(path, sizeof(path), "%s/alias.net", d->path);
	snprintf(text, sizeof(text), "%s/self2.net", d->path);
	assert_int_equal(symlink(text, path), 0);
	write_file(d, "self2.net", "include alias.net\n");
	expect_errors(d, "self2.net",
		      "$D/self2.net:1: include loop: $D/alias.net is $D/self2.net, which is being read already (it includes this file)\n");
	write_file(d, "sub/up.net", "include ../sub/up.net\n");
	expect_file_error(d, "sub/up.net", "sub/up.net:1: include loop: ");
	/*
	 * Includes fanning out, three a level: sixteen levels deep (3^16 files)
	 * and eight (3^8, within the depth limit): stopped, not run for ever.
	 */
	for (i = 0; i < 17; i++) {
		char name[32];

		snprintf(name, sizeof(name), "fan%d.net", i);
		snprintf(text, sizeof(text), "include fan%d.net\ninclude fan%d.net\ninclude fan%d.net\n",
			 i + 1, i + 1, i + 1);
		write_file(d, name, i == 16 ? "" : text);
	}
	assert_null(load(d, "fan0.net", &errors));
	assert_non_null(strstr(umad_err_text(&errors), "includes nested deeper than 16"));
	assert_non_null(strstr(umad_err_text(&errors), "more errors"));
	umad_err_clear(&errors);
	write_file(d, "fan8.net", "");
	assert_null(load(d, "fan0.net", &errors));
	assert_non_null(strstr(umad_err_text(&errors), "a topology reads at most 1024 files"));
	umad_err_clear(&errors);
}

/* --- every error, with its file and line ------------------------------------ */

static void test_header_errors(void **state)
{
	(void)state;
	parse_fails("Switch \"S\"\n",
		    "t.net:1: malformed node header: expected the number of ports after the node type");
	parse_fails("\nHca 0 \"H\"\n", "t.net:2: node has 0 ports; a node has 1 to 254");
	parse_fails("Hca 255 \"H\"\n", "t.net:1: node has 255 ports; a node has 1 to 254");
	parse_fails("Hca 99999999999999999999 \"H\"\n",
		    "t.net:1: node has 99999999999999999999 ports; a node has 1 to 254");
	parse_fails("Hca 1 H\n",
		    "t.net:1: malformed node header: expected a quoted node id after the port count");
	parse_fails("Hca 1 \"\"\n", "t.net:1: malformed node header: the node id is empty");
	parse_fails("Hca 1 \"H\n", "t.net:1: malformed node header: the node id has no closing quote");
	parse_fails("Hca 1 \"H\" \"desc\n",
		    "t.net:1: malformed node header: the description has no closing quote");
	parse_fails("Hca 1 \"H\" # \"desc\n",
		    "t.net:1: malformed node header: the description in the comment has no closing quote");
	/* A port count that is not a decimal number, an id longer than the limit. */
	parse_fails("Switch 0x8 \"S\"\n",
		    "t.net:1: malformed port count \"0x8\": a decimal number, 1 to 254");
	parse_fails("Switch 8x \"S\"\n",
		    "t.net:1: malformed port count \"8x\": a decimal number, 1 to 254");
	{
		char text[400];

		snprintf(text, sizeof(text), "Hca 1 \"%0300d\"\n", 1);
		parse_fails(text, "t.net:1: malformed node header: the node id is longer than 255 characters");
		snprintf(text, sizeof(text), "Hca 1 \"H\"\n[1] \"%0300d\"[1]\n", 1);
		parse_fails(text, "t.net:2: malformed port line: the remote node id after [1] is longer "
				  "than 255 characters");
	}
	parse_fails("Hca 1 \"H\" junk\n",
		    "t.net:1: malformed node header: unexpected \"junk\" after the node id");
	parse_fails("Hca 1 \"H\"\n\nHca 2 \"H\"\n",
		    "t.net:3: duplicate node \"H\" (first declared at t.net:1)");
}

static void test_port_line_errors(void **state)
{
	(void)state;
	parse_fails("[1] \"H\"[1]\n",
		    "t.net:1: port line outside a node record (a blank line ends a record)");
	parse_fails("Hca 1 \"H\"\n\n[1] \"H\"[1]\n",
		    "t.net:3: port line outside a node record (a blank line ends a record)");
	parse_fails("Hca 1 \"H\"\n[x] \"S\"[1]\n",
		    "t.net:2: malformed port line: expected [port] at the start");
	parse_fails("Hca 1 \"H\"\n[1 \"S\"[1]\n",
		    "t.net:2: malformed port line: expected [port] at the start");
	parse_fails("Hca 1 \"H\"\n[1](zz) \"S\"[1]\n", "t.net:2: malformed port GUID after [1]");
	parse_fails("Hca 1 \"H\"\n[1] S[1]\n",
		    "t.net:2: malformed port line: expected a quoted remote node id after [1]");
	parse_fails("Hca 1 \"H\"\n[1] \"S\"\n",
		    "t.net:2: malformed port line: expected [port] after \"S\"");
	parse_fails("Hca 1 \"H\"\n[1] \"S\"[1](12\n",
		    "t.net:2: malformed remote port GUID after \"S\"[1]");
	parse_fails("Hca 2 \"H\"\n[3] \"S\"[1]\n", "t.net:2: port 3 out of range: \"H\" has ports 1..2");
	parse_fails("Hca 2 \"H\"\n[0] \"S\"[1]\n", "t.net:2: port 0 out of range: \"H\" has ports 1..2");
	parse_fails("Switch 4 \"S\"\n[1] \"H\"[1]\n[1] \"H\"[2]\n",
		    "t.net:3: port 1 of \"S\" is listed twice (also at line 2)");
	parse_fails("Hca 1 \"H\"\n[1] \"S\"[1] # 4xXDR\n",
		    "t.net:2: unknown link rate in the comment \"# 4xXDR\"");
	parse_fails("Hca 1 \"H\"\n[1] \"S\"[1] # 3xQDR\n",
		    "t.net:2: unknown link rate in the comment \"# 3xQDR\"");
	parse_fails("Hca 1 \"H\"\n[1] \"S\"[1] w=1111111111111111111111111111111111111111111111111111111111111111\n",
		    "t.net:2: malformed port option \"w=1111111111111111111111111111111111111111111111111111111111111111\" (expected w=, s= or e= and a number)");
}

static void test_port_option_errors(void **state)
{
	(void)state;
	parse_fails("Hca 1 \"H\"\n[1] \"S\"[1] w\n",
		    "t.net:2: malformed port option \"w\" (expected w=, s= or e= and a number)");
	parse_fails("Hca 1 \"H\"\n[1] \"S\"[1] w=x\n",
		    "t.net:2: malformed port option \"w=x\" (expected w=, s= or e= and a number)");
	parse_fails("Hca 1 \"H\"\n[1] \"S\"[1] w=300\n", "t.net:2: width mask w=300 out of range 1..31");
	parse_fails("Hca 1 \"H\"\n[1] \"S\"[1] s=256\n", "t.net:2: speed mask s=256 out of range 0..7");
	parse_fails("Hca 1 \"H\"\n[1] \"S\"[1] w=0\n", "t.net:2: width mask w=0 out of range 1..31");
	parse_fails("Hca 1 \"H\"\n[1] \"S\"[1] w=32\n", "t.net:2: width mask w=32 out of range 1..31");
	parse_fails("Hca 1 \"H\"\n[1] \"S\"[1] s=8\n", "t.net:2: speed mask s=8 out of range 0..7");
	parse_fails("Hca 1 \"H\"\n[1] \"S\"[1] e=16\n",
		    "t.net:2: extended speed mask e=16 out of range 0..15");
	parse_fails("Hca 1 \"H\"\n[1] \"S\"[1] q=1\n",
		    "t.net:2: unknown port option \"q=1\" (expected w=, s= or e=)");
}

static void test_global_errors(void **state)
{
	(void)state;
	parse_fails("switchguid=\n", "t.net:1: malformed GUID \"\"");
	parse_fails("caguid=0xzz\n", "t.net:1: malformed GUID \"0xzz\"");
	parse_fails("hcaguids = nothex\n", "t.net:1: malformed GUID \"nothex\"");
	parse_fails("rtguid=0x11111111111111111111111111111111111111111111111111111111111111111111\n",
		    "t.net:1: malformed GUID \"0x11111111111111111111111111111111111111111111111111111111111111111111\"");
	parse_fails("vendid=0x1000000\n", "t.net:1: malformed setting: expected vendid=NUMBER (0..16777215)");
	parse_fails("devid=x\n", "t.net:1: malformed setting: expected devid=NUMBER (0..65535)");
	parse_fails("revid=0x100000000\n",
		    "t.net:1: malformed setting: expected revid=NUMBER (0..4294967295)");
	parse_fails("fwver=20.31\n",
		    "t.net:1: malformed firmware version: expected fwver=MAJOR.MINOR.SUBMINOR (each 0..65535)");
	parse_fails("fwver=20.31.65536\n",
		    "t.net:1: malformed firmware version: expected fwver=MAJOR.MINOR.SUBMINOR (each 0..65535)");
	parse_fails("fwver=20.31.1014.1\n",
		    "t.net:1: malformed firmware version: expected fwver=MAJOR.MINOR.SUBMINOR (each 0..65535)");
	parse_fails("fwver=-1.2.3\n",
		    "t.net:1: malformed firmware version: expected fwver=MAJOR.MINOR.SUBMINOR (each 0..65535)");
	parse_fails("fwver 1.2.3\n", "t.net:1: unrecognised line \"fwver 1.2.3\"");
	parse_fails("sysimgguid=-1\n",
		    "t.net:1: malformed setting: expected sysimgguid=NUMBER (0..18446744073709551615)");
	parse_fails("width=32\n", "t.net:1: malformed setting: expected width=NUMBER (0..31)");
	parse_fails("width=0\n", "t.net:1: width=0 enables no width (1..31)");
	parse_fails("speed=8\n", "t.net:1: malformed setting: expected speed=NUMBER (0..7)");
	parse_fails("extspeed=16\n", "t.net:1: malformed setting: expected extspeed=NUMBER (0..15)");
	parse_fails("module=\"x\n", "t.net:1: malformed module name: the name has no closing quote");
	/* A module line that is not an assignment (it crashed the reader). */
	parse_fails("module+x\n", "t.net:1: malformed module line: expected module=NAME");
	parse_fails("include\n", "t.net:1: unrecognised line \"include\"");
	parse_fails("include   \n", "t.net:1: malformed include: expected include FILE");
	parse_fails("do link 1 2\n",
		    "t.net:1: \"do\" runs an ibsim console command, which this simulator has no console for: \"link 1 2\"");
	parse_fails("Hub 2 \"x\"\n", "t.net:1: unrecognised line \"Hub 2 \"x\"\"");
	parse_fails("# only a comment\n\n", "t.net: no nodes defined");
}

/*
 * Where the reader holds a word in a buffer of its own, the limit is told
 * as a limit, and a word within every limit is not refused for its length:
 * leading zeros, a node id and its module prefix, a description, an
 * include's name, a rate or port number too large to keep.
 */
static void test_length_boundaries(void **state)
{
	char text[6000], a200[201], b140[141];
	struct sim_fabric *f;

	(void)state;
	/* Leading zeros in a port option and a GUID base (70 characters each). */
	snprintf(text, sizeof(text), "caguid=0x%068x\nHca 1 \"H\"\n[1] \"S\"[1] w=%068d\n\n"
		 "Switch 2 \"S\"\n[1] \"H\"[1]\n", 0x123, 2);
	f = parse_ok(text);
	assert_int_equal(sim_fabric_find(f, "H")->node_guid, 0x123);
	assert_int_equal(port_of(f, "H", 1)->width_enabled, 2);
	sim_fabric_free(f);
	/*
	 * A node id with its module prefix is at most 255 bytes; two longer ones
	 * that begin alike are not a "duplicate node".
	 */
	memset(a200, 'a', 200);
	a200[200] = '\0';
	memset(b140, 'b', 139);
	b140[139] = 'X';
	b140[140] = '\0';
	snprintf(text, sizeof(text), "module=%s\nHca 1 \"%s\"\n", a200, b140);
	{
		char want[600];

		snprintf(want, sizeof(want),
			 "t.net:2: node id \"%s@%s\" is longer than 255 bytes, the longest node id (the module prefix counts)",
			 a200, b140);
		parse_fails(text, want);
		snprintf(text, sizeof(text), "module=%s\nHca 1 \"%.54s\"\n[1] \"%s\"[1]\n", a200, b140, b140);
		snprintf(want, sizeof(want),
			 "t.net:3: node id \"%s@%s\" is longer than 255 bytes, the longest node id (the module prefix counts)",
			 a200, b140);
		parse_fails(text, want);
	}
	/* 200 + '@' + 54 = 255: the longest id, which a scenario and a shared fabric can name. */
	snprintf(text, sizeof(text), "module=%s\nHca 1 \"%.54s\"\n\n", a200, b140);
	f = parse_ok(text);
	assert_int_equal(strlen(f->nodes[0]->name), SIM_TOPOLOGY_MAX_ID);
	sim_fabric_free(f);
	/* A description is a NodeDescription: 64 bytes at most, never cut short in silence. */
	snprintf(text, sizeof(text), "Hca 1 \"H\" \"%064d\"\n", 7);
	f = parse_ok(text);
	assert_int_equal(strlen(sim_fabric_find(f, "H")->desc), 64);
	sim_fabric_free(f);
	snprintf(text, sizeof(text), "Hca 1 \"H\" \"%065d\"\n", 7);
	parse_fails(text, "t.net:1: the description is longer than 64 bytes, what a NodeDescription holds");
	snprintf(text, sizeof(text), "Switch 2 \"S\" # \"%065d\" lid 4\n", 7);
	parse_fails(text, "t.net:1: the description is longer than 64 bytes, what a NodeDescription holds");
	/* An include's name, unquoted, as the quoted one. */
	memset(text, 'f', sizeof(text));
	memcpy(text, "include ", 8);
	text[5000] = '\0';
	parse_fails(text, "t.net:1: malformed include: the file name is longer than 4095 characters");
	/* A rate however long is a rate, and lanes that wrap around are no 4X. */
	parse_fails("Hca 1 \"H\"\n[1] \"S\"[1] # 4xQDRQDRQDRQDRQDRQDRQDRQDRQDRQDRQDRQDR\n",
		    "t.net:2: unknown link rate in the comment \"# 4xQDRQDRQDRQDRQDRQDRQDRQDRQDRQDRQDRQDR\"");
	parse_fails("Hca 1 \"H\"\n[1] \"S\"[1] # 4294967300xQDR\n",
		    "t.net:2: unknown link rate in the comment \"# 4294967300xQDR\"");
	/* A port number out of range is out of range, however large. */
	parse_fails("Hca 1 \"H\"\n[10001] \"S\"[1]\n", "t.net:2: port 10001 out of range: \"H\" has ports 1..1");
	parse_fails("Hca 1 \"H\"\n[99999999999999999999] \"S\"[1]\n",
		    "t.net:2: port [99999999999999999999] out of range: a node has at most 254 ports");
	parse_fails("Hca 1 \"H\"\n[1] \"S\"[99999999999]\n",
		    "t.net:2: port [99999999999] of \"S\" out of range: a node has at most 254 ports");
	parse_fails("Hca 1 \"H\"\n[1] \"S\"[10001]\n\nSwitch 2 \"S\"\n",
		    "t.net:2: port 10001 out of range: \"S\" has ports 1..2");
}

static void test_link_errors(void **state)
{
	(void)state;
	parse_fails("Hca 1 \"H\"\n[1] \"S\"[1]\n", "t.net:2: unknown node \"S\"");
	parse_fails("Hca 1 \"H\"\n[1] \"S\"[3]\n\nSwitch 2 \"S\"\n",
		    "t.net:2: port 3 out of range: \"S\" has ports 1..2");
	parse_fails("Switch 2 \"S\"\n[1] \"S\"[1]\n", "t.net:2: \"S\"[1] is linked to itself");
	/* Both ends say so, and disagree. */
	parse_fails("Hca 1 \"A\"\n[1] \"S\"[1]\n\nSwitch 2 \"S\"\n[1] \"B\"[1]\n\nHca 1 \"B\"\n",
		    "t.net:5: asymmetric link: \"S\"[1] goes to \"B\"[1] here, but t.net:2 links \"A\"[1] to it");
	parse_fails("Hca 1 \"A\"\n[1] \"S\"[1]\n\nSwitch 2 \"S\"\n[2] \"A\"[1]\n",
		    "t.net:5: asymmetric link: \"S\"[2] goes to \"A\"[1] here, but t.net:2 says \"A\"[1] goes to \"S\"[1]");
	/* Two ports claim one remote port that says nothing itself. */
	parse_fails("Hca 1 \"A\"\n[1] \"S\"[1]\n\nHca 1 \"B\"\n[1] \"S\"[1]\n\nSwitch 2 \"S\"\n",
		    "t.net:5: duplicate link: \"S\"[1] is already linked to \"A\"[1] (t.net:2)");
	/* Widths or speeds that cannot meet. */
	parse_fails("Hca 1 \"A\"\n[1] \"S\"[1] w=1\n\nSwitch 2 \"S\"\n[1] \"A\"[1] w=2\n",
		    "t.net:2: \"A\"[1] and \"S\"[1] share no enabled link width or speed (w=/s=/e= of the two ends)");
	/* GUIDs that collide. */
	parse_fails("caguid=0x10\nHca 1 \"A\"\n\ncaguid=0x10\nHca 1 \"B\"\n",
		    "t.net:5: duplicate GUID 0x0000000000000010: \"A\" (t.net:2) has it too");
	parse_fails("Hca 1 \"A\"\n[1](100001) \"S\"[1]\n\nHca 1 \"B\"\n[1](100001) \"S\"[2]\n\nSwitch 2 \"S\"\n",
		    "t.net:4: duplicate GUID 0x0000000000100001: \"A\" (t.net:1) has it too");
}

/* Errors are all reported, up to a limit, then counted. */
static void test_error_limit(void **state)
{
	struct umad_err errors = UMAD_ERR_INIT;
	char text[4096] = "";
	const char *last;
	int i, lines = 0;

	(void)state;
	for (i = 0; i < 25; i++)
		strcat(text, "bogus\n");
	assert_null(sim_topology_parse(text, "t.net", &errors));
	assert_true(errors.count > 0);
	for (last = umad_err_text(&errors); *last; last++)
		lines += *last == '\n';
	assert_int_equal(lines, SIM_TOPOLOGY_MAX_ERRORS + 1);
	assert_non_null(strstr(umad_err_text(&errors), "t.net:20: unrecognised line \"bogus\"\n"));
	assert_null(strstr(umad_err_text(&errors), "t.net:21:"));
	assert_non_null(strstr(umad_err_text(&errors), "... and 5 more errors\n"));
	umad_err_clear(&errors);
	/* A fabric with an error anywhere is not used, even if the rest is fine. */
	assert_null(sim_topology_parse("Hca 1 \"H\"\n\nbogus\n", "t.net", NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_fabric),
		cmocka_unit_test(test_headers_and_descriptions),
		cmocka_unit_test(test_ibnetdiscover_output),
		cmocka_unit_test(test_globals),
		cmocka_unit_test(test_identity),
		cmocka_unit_test(test_fdr10),
		cmocka_unit_test(test_module_prefix),
		cmocka_unit_test_setup_teardown(test_include, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_include_errors, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_include_chain, make_dir, remove_dir),
		cmocka_unit_test_setup_teardown(test_hostile_files, make_dir, remove_dir),
		cmocka_unit_test(test_header_errors),
		cmocka_unit_test(test_port_line_errors),
		cmocka_unit_test(test_port_option_errors),
		cmocka_unit_test(test_global_errors),
		cmocka_unit_test(test_length_boundaries),
		cmocka_unit_test(test_link_errors),
		cmocka_unit_test(test_error_limit),
		cmocka_unit_test_setup_teardown(test_load_progress, make_dir, remove_dir),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
