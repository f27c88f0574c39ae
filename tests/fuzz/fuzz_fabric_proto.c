/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libFuzzer target for the shared fabric's server, as a hostile client
 * reaches it: the input is a series of datagrams (a 16-bit length, then
 * that many bytes) written to a connection the server serves, which it
 * then reads and handles until nothing is left; the client goes away and
 * the server must have dropped it, its ports and agents, and still serve a
 * well-behaved client after.  An input whose first byte is odd starts with a
 * valid FP_HELLO, so that the fuzzer reaches the requests behind it.
 *
 * Sources: tests/fuzz/fuzz_fabric_proto.c simfabric/fabric_server.c
 *   simfabric/fabric_proto.c backends/mad_rules.c and the fabric, with
 *   glib-2.0 ("make fuzz" builds and runs it).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "simfabric/fabric_proto.h"
#include "simfabric/fabric_server.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fabric_server *server;

static void serve_a_while(void)
{
	int i;

	for (i = 0; i < 8; i++)
		fabric_server_poll(server, 0, -1);
}

/* A client that says hello and gets its answer: the server still works. */
static void check_alive(void)
{
	struct fp_hello hello = { .version = FP_VERSION, .n_hosts = UINT32_MAX };
	struct fp_reader r;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		abort();
	if (fabric_server_add_client(server, sv[0]) < 0)
		abort();
	if (fp_send_message(sv[1], FP_HELLO, &hello, sizeof(hello), -1, 0) < 0)
		abort();
	serve_a_while();
	fp_reader_init(&r);
	if (fp_recv_message(sv[1], &r, MSG_DONTWAIT) != 1 || r.type != FP_HELLO_OK)
		abort();
	fp_reader_free(&r);
	close(sv[1]);
	serve_a_while();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int sv[2];
	size_t at = 1;

	if (!server) {
		struct fabric_server_options o = { .builtin_sm = 1 };
		char *errors = NULL;

		if (fabric_server_new(&o, &server, &errors) < 0)
			abort();
	}
	if (size < 1 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
		return 0;
	if (fabric_server_add_client(server, sv[0]) < 0)
		abort();
	if (data[0] & 1) {
		struct fp_hello hello = { .version = FP_VERSION, .n_hosts = UINT32_MAX };

		fp_send_message(sv[1], FP_HELLO, &hello, sizeof(hello), -1, MSG_DONTWAIT);
	}
	while (at + 2 <= size) {
		size_t n = (size_t)data[at] << 8 | data[at + 1];

		at += 2;
		if (n > size - at)
			n = size - at;
		if (send(sv[1], data + at, n, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
			break;
		at += n;
		serve_a_while();
	}
	serve_a_while();
	close(sv[1]);
	/* The server reads one message per round: what is left, then the end. */
	for (at = 0; at < size + 16 && fabric_server_clients(server) != 0; at++)
		fabric_server_poll(server, 0, -1);
	if (fabric_server_clients(server) != 0)
		abort();	/* a client gone must be dropped */
	check_alive();
	return 0;
}
