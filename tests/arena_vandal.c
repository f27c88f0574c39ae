/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A client of the fabric's server, of the server's own user, that writes
 * over the fabric's shared memory it maps, for tests/arena_written_over.sh:
 *
 *   arena_vandal SOCKET zero|punch|root
 *	attach at the first CA of the fabric served at SOCKET, map its
 *	memory, then: zero its first page (the header) through the mapping,
 *	punch a hole there (fallocate(PUNCH_HOLE): it reads as zeros), or
 *	zero the page after it (where the fabric's root lies).  Then "done"
 *	on stdout, and it stays connected until killed.  Why on stderr and
 *	exit 1 when it cannot; 2 for a bad command line.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "simfabric/arena.h"
#include "simfabric/fabric_client.h"

#define PAGE	4096u

int main(int argc, char **argv)
{
	struct umad_err err = UMAD_ERR_INIT;
	struct fp_node nodes[FP_MAX_HOSTS];
	struct fabric_client c;
	unsigned n = 0;
	uint8_t *base;
	int r;

	if (argc != 3 || (strcmp(argv[2], "zero") && strcmp(argv[2], "punch") &&
			  strcmp(argv[2], "root"))) {
		fprintf(stderr, "usage: %s SOCKET zero|punch|root\n", argv[0]);
		return 2;
	}
	r = fabric_client_connect(&c, argv[1], NULL, 0, 1, nodes, &n, &err);
	if (r == 0)
		r = fabric_client_map(&c, n, &err);
	if (r < 0) {
		fprintf(stderr, "%s\n", umad_err_text(&err));
		return 1;
	}
	base = (uint8_t *)(uintptr_t)sim_arena_base(c.arena);
	if (!strcmp(argv[2], "zero")) {
		memset(base, 0, PAGE);
	} else if (!strcmp(argv[2], "root")) {
		memset(base + PAGE, 0, PAGE);
	} else if (fallocate(sim_arena_fd(c.arena), FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0,
			     PAGE) < 0) {
		fprintf(stderr, "fallocate: %s\n", strerror(errno));
		return 1;
	}
	printf("done\n");
	fflush(stdout);
	/* Still connected, so that it is the next client's request that finds the damage. */
	pause();
	return 0;
}
