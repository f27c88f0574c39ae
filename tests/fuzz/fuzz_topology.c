/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libFuzzer target for the topology reader, includes and all: the input is
 * split at lines "--8<--" into up to four files (main.net, a.net, b.net,
 * c.net) in a private directory, so that include lines reach files the
 * fuzzer writes too; main.net is loaded, and of a fabric that comes back
 * every node and port is read (names, descriptions, GUIDs, links, both
 * ends of each), so that over-reads show.  The reader's bounds keep every
 * input finite.  An input without "include" and NUL bytes is parsed from
 * memory instead (the same parser, without the files' cost).
 *
 * Sources: tests/fuzz/fuzz_topology.c simfabric/fabric.c simfabric/topology.c,
 *   with glib-2.0 ("make fuzz" builds and runs it).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simfabric/topology.h"
#include "tests/fuzz/read_all.h"

#define SEPARATOR "\n--8<--\n"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static const char *const names[] = { "main.net", "a.net", "b.net", "c.net" };

static void cleanup(void)
{
	char path[128];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* On a memory file system when there is one: every input is four files. */
	snprintf(dir, sizeof(dir), "%s/umad-fuzz-topology-XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (!mkdtemp(dir))
		abort();
	atexit(cleanup);
	return 0;
}

static unsigned walk(const struct sim_fabric *f)
{
	unsigned sum = (unsigned)(f->n_nodes + f->n_links + f->n_switches + f->n_cas);
	size_t i;
	unsigned p;

	for (i = 0; i < f->n_nodes; i++) {
		const struct sim_node *n = f->nodes[i];

		sum += sum_bytes(n->name, strlen(n->name)) + sum_bytes(n->desc, strlen(n->desc)) +
		       (unsigned)n->node_guid + (unsigned)n->sys_guid + n->line + n->vendor_id +
		       n->device_id + n->revision + n->fw.major + n->fw.minor + n->fw.sub_minor;
		for (p = 0; p <= n->num_ports; p++) {
			const struct sim_port *port = &n->ports[p];

			sum += (unsigned)port->guid + port->width_enabled + port->speed_active +
			       port->state + port->mlnx_speed_supported + port->mlnx_speed_active;
			if (port->peer)
				sum += port->peer->num + (unsigned)(port->peer->peer == port) +
				       sum_bytes(port->peer->node->name, strlen(port->peer->node->name));
		}
	}
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data, *end = text + size;
	struct sim_fabric *f;
	struct umad_err errors = UMAD_ERR_INIT;
	char path[128];
	volatile unsigned sink = 0;
	size_t i;

	/* Without includes or NUL bytes one file says it all: parsed in memory, much faster. */
	if (!memmem(data, size, "include", 7) && !memchr(data, 0, size)) {
		char *copy = malloc(size + 1);

		if (!copy)
			return 0;
		memcpy(copy, data, size);
		copy[size] = '\0';
		f = sim_topology_parse(copy, "main.net", &errors);
		free(copy);
		goto judge;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *cut = i + 1 < sizeof(names) / sizeof(names[0]) ?
				  memmem(text, (size_t)(end - text), SEPARATOR, strlen(SEPARATOR)) : NULL;
		size_t len = cut ? (size_t)(cut - text) : (size_t)(end - text);
		FILE *fp;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		fp = fopen(path, "wb");
		if (!fp)
			abort();
		if (len)
			fwrite(text, 1, len, fp);
		fclose(fp);
		text = cut ? cut + strlen(SEPARATOR) : end;
	}
	snprintf(path, sizeof(path), "%s/main.net", dir);
	f = sim_topology_load(path, &errors);
judge:
	if (f) {
		sink += walk(f);
		sim_fabric_free(f);
	}
	sink += sum_bytes(umad_err_text(&errors), strlen(umad_err_text(&errors)));
	(void)sink;
	return 0;
}
