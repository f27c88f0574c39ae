/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libFuzzer target for the address of a fabric over TCP as a user writes
 * it (--listen ADDR:PORT, UMAD_SIM_FABRIC=tcp:HOST:PORT): any text is read
 * or refused with a reason, never a crash; what it reads names a host and
 * a port of 1 to 65535, and written back as HOST:PORT ([HOST]:PORT for
 * IPv6) reads the same again.
 *
 * Sources: tests/fuzz/fuzz_fabric_tcp_addr.c simfabric/fabric_tcp.c
 * ("make fuzz" builds and runs it).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simfabric/fabric_tcp.h"
#include "tests/fuzz/read_all.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fabric_tcp_addr a, again;
	char text[FABRIC_TCP_HOST_MAX + 64], line[FABRIC_TCP_NAME_MAX + 8];
	struct umad_err err;
	const char *after;
	volatile unsigned sink = 0;
	unsigned long port;

	if (size >= sizeof(text))
		size = sizeof(text) - 1;
	memcpy(text, data, size);
	text[size] = '\0';
	after = fabric_tcp_strip_scheme(text);
	if (after && after != text + strlen(FABRIC_TCP_SCHEME))
		abort();
	umad_err_clear(&err);
	if (fabric_tcp_parse(after ? after : text, &a, &err) < 0) {
		if (!umad_err_text(&err)[0])
			abort();
		sink += sum_string(umad_err_text(&err));
		return 0;
	}
	port = strtoul(a.port, NULL, 10);
	if (!a.host[0] || port < 1 || port > 65535 || strspn(a.port, "0123456789") !=
	    strlen(a.port) || a.port[0] == '0')
		abort();
	snprintf(line, sizeof(line), strchr(a.host, ':') ? "[%s]:%s" : "%s:%s", a.host, a.port);
	if (fabric_tcp_parse(line, &again, NULL) < 0 || memcmp(&a, &again, sizeof(a)))
		abort();
	(void)sink;
	return 0;
}
