/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libFuzzer target for the public API's argument paths: a sequence of
 * calls with arbitrary arguments (CA names, port numbers, portids, agent
 * ids, classes, OUIs, flags, lengths, timeouts, NULL pointers where the
 * API allows them) on the sim backend, loaded through the module loader
 * as in any program.  Lengths stay within the buffers passed (the API
 * reads and writes as much as it is told to, as rdma-core's does); every
 * byte the API returns is read.
 *
 * Sources: tests/fuzz/fuzz_api.c and libibumad's (libumad/dispatch.c
 *   libumad/umad.c libumad/resolve.c libumad/device_list.c
 *   libumad/umad_str.c libumad/dump.c backends/sysfs_reader.c backends/kernel.c
 *   pcap/crc.c pcap/ib_packet.c pcap/pcapng_writer.c pcap/capture_tap.c),
 *   with FUZZ_MODULE_DIR naming a directory holding a backend-sim.so built
 *   for fuzzing ("make fuzz" builds both).
 */
#include "config.h"
#include "tests/fuzz/read_all.h"
#include "tests/fuzz/take_input.h"

#include <endian.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/umad.h>
#include <infiniband/umad_str.h>

#define MAX_MAD 2048
#define SLOTS 4

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	setenv("UMAD_BACKEND", "sim", 1);
	setenv("UMAD_MODULE_DIR", FUZZ_MODULE_DIR, 1);
	unsetenv("UMAD_SIM_TOPOLOGY");
	unsetenv("UMAD_SIM_SYSFS");
	unsetenv("UMAD_CAPTURE");
	return umad_init() == 0 ? 0 : (abort(), 0);
}

static int take_int(struct input *in)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 4; i++)
		v = v << 8 | take8(in);
	return (int)v;
}

/* A small number most of the time, any int now and then. */
static int take_small(struct input *in, int range)
{
	uint8_t b = take8(in);

	return b == 0xff ? take_int(in) : b % range;
}

/* A CA name: NULL, the real one, or up to 40 bytes of input. */
static const char *take_name(struct input *in, char *buf, size_t max)
{
	uint8_t how = take8(in);
	size_t n;

	if (how % 4 == 0)
		return NULL;
	if (how % 4 == 1)
		return "sim0";
	n = take8(in) % 41;
	if (n > max - 1)
		n = max - 1;
	if (n > in->left)
		n = in->left;
	memcpy(buf, in->p, n);
	buf[n] = '\0';
	in->p += n;
	in->left -= n;
	return buf;
}

static unsigned sum_port(const umad_port_t *port)
{
	return sum_bytes(port, sizeof(*port)) +
	       sum_bytes(port->pkeys, port->pkeys_size * sizeof(*port->pkeys));
}

/* Close portid; the slots that held it forget it, so that none leaks and none is closed twice. */
static void close_port(int fds[SLOTS], int portid)
{
	int i;

	if (umad_close_port(portid) == 0)
		for (i = 0; i < SLOTS; i++)
			if (fds[i] == portid)
				fds[i] = -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t umad[sizeof(struct ib_user_mad) + MAX_MAD];
	struct input in = { data, size };
	int fds[SLOTS] = { -1, -1, -1, -1 }, i;
	volatile unsigned sink = 0;
	char name[48];

	while (in.left) {
		uint8_t op = take8(&in) % 16;
		int slot = take8(&in) % SLOTS, fd = fds[slot];

		switch (op) {
		case 0: {
			umad_ca_t ca;

			if (umad_get_ca(take_name(&in, name, sizeof(name)), &ca) == 0) {
				for (i = 0; i < UMAD_CA_MAX_PORTS; i++)
					if (ca.ports[i])
						sink += sum_port(ca.ports[i]);
				sink += sum_bytes(ca.ca_name, sizeof(ca.ca_name));
				umad_release_ca(&ca);
			}
			break;
		}
		case 1: {
			umad_port_t port;
			const char *n = take_name(&in, name, sizeof(name));

			if (umad_get_port(n, take_small(&in, 12), &port) == 0) {
				sink += sum_port(&port);
				umad_release_port(&port);
			}
			break;
		}
		case 2: case 3: {
			const char *n = take_name(&in, name, sizeof(name));
			int portnum = take_small(&in, 4);

			if (fd >= 0)
				close_port(fds, fd);
			fds[slot] = op == 2 ? umad_open_port(n, portnum) : umad_open_smi_port(n, portnum);
			break;
		}
		case 4: {
			/* An open portid, or any number at all (which may be another slot's). */
			close_port(fds, take8(&in) % 2 ? fd : take_int(&in));
			break;
		}
		case 5: {
			long mask[16 / sizeof(long)];
			int mgmt_class = take_small(&in, 256), version = take_small(&in, 9);
			uint8_t rmpp = take8(&in) % 3, with_mask = take8(&in) & 1;

			for (i = 0; i < (int)sizeof(mask); i++)
				((uint8_t *)mask)[i] = take8(&in);
			sink += (unsigned)umad_register(fd, mgmt_class, version, rmpp,
							with_mask ? mask : NULL);
			break;
		}
		case 6: {
			long mask[16 / sizeof(long)] = { 0 };
			uint8_t oui[3] = { take8(&in), take8(&in), take8(&in) };
			int mgmt_class = take_small(&in, 256);
			uint8_t rmpp = take8(&in) % 3, with_oui = take8(&in) & 1;

			mask[0] = take_int(&in);
			sink += (unsigned)umad_register_oui(fd, mgmt_class, rmpp, with_oui ? oui : NULL, mask);
			break;
		}
		case 7: {
			struct umad_reg_attr attr;
			uint32_t id = 0;
			uint8_t nulls = take8(&in);

			memset(&attr, 0, sizeof(attr));
			attr.mgmt_class = take8(&in);
			attr.mgmt_class_version = take8(&in) % 9;
			attr.flags = (uint32_t)take_int(&in);
			attr.method_mask[0] = (uint64_t)take_int(&in);
			attr.oui = (uint32_t)take_int(&in);
			attr.rmpp_version = take8(&in) % 3;
			sink += (unsigned)umad_register2(fd, nulls & 1 ? NULL : &attr,
							 nulls & 2 ? NULL : &id) + attr.flags + id;
			break;
		}
		case 8:
			sink += (unsigned)umad_unregister(fd, take_small(&in, 40));
			break;
		case 9: {
			int agent = take_small(&in, 40), timeout = take_small(&in, 3),
			    retries = take_small(&in, 3);
			int length = (take8(&in) << 8 | take8(&in)) % (MAX_MAD + 1);
			size_t n;

			memset(umad, 0, sizeof(umad));
			for (i = 0; i < 20; i++)
				((uint8_t *)umad_get_mad_addr(umad))[i] = take8(&in);
			n = (size_t)length < in.left ? (size_t)length : in.left;
			memcpy(umad_get_mad(umad), in.p, n);
			in.p += n;
			in.left -= n;
			/* A negative length now and then; timeouts short, nothing waits. */
			sink += (unsigned)umad_send(fd, agent, umad, take8(&in) == 0xfe ? -1 : length,
						    timeout, retries);
			break;
		}
		case 10: {
			int length = take8(&in) % 9 * 256, r;

			if (take8(&in) == 0xfe)
				length = -1;
			r = umad_recv(fd, umad, &length, 0);
			if (r >= 0 && length >= 0 && (size_t)length <= MAX_MAD)
				sink += sum_bytes(umad, umad_size() + (size_t)length);
			sink += (unsigned)r;
			break;
		}
		case 11:
			sink += (unsigned)umad_poll(fd, 0) + (unsigned)umad_get_fd(fd);
			break;
		case 12: {
			char cas[4][UMAD_CA_NAME_LEN];
			__be64 guids[12];
			int n = umad_get_cas_names(cas, take8(&in) % 5);

			for (i = 0; i < n && i < 4; i++)
				sink += sum_string(cas[i]);
			n = umad_get_ca_portguids(take_name(&in, name, sizeof(name)),
						  take8(&in) & 1 ? guids : NULL, take8(&in) % 13);
			if (n > 0)
				sink += sum_bytes(guids, (size_t)n * sizeof(guids[0]));
			break;
		}
		case 13: {
			char path[256];
			int max = take8(&in) % 257;
			const char *n = take_name(&in, name, sizeof(name));

			if (umad_get_issm_path(n, take_small(&in, 12), max ? path : NULL, max) == 0)
				sink += sum_string(path);
			break;
		}
		case 14: {
			uint8_t mgmt_class = take8(&in), method = take8(&in);
			uint16_t attr = (uint16_t)(take8(&in) << 8 | take8(&in));
			uint16_t status = (uint16_t)(take8(&in) << 8 | take8(&in));

			sink += sum_string(umad_class_str(mgmt_class)) +
				sum_string(umad_method_str(mgmt_class, method)) +
				sum_string(umad_attribute_str(mgmt_class, htobe16(attr))) +
				sum_string(umad_common_mad_status_str(htobe16(status))) +
				sum_string(umad_sa_mad_status_str(htobe16(status)));
			break;
		}
		default: {
			struct umad_device_node *list = umad_get_ca_device_list(), *node;
			struct umad_ca_pair pairs[2];
			const char *n = take_name(&in, name, sizeof(name));
			int got;

			for (node = list; node; node = node->next)
				sink += sum_string(node->ca_name);
			umad_free_ca_device_list(list);
			got = umad_get_smi_gsi_pairs(pairs, take8(&in) % 3);
			if (got > 0)
				sink += sum_bytes(pairs, (size_t)(got < 2 ? got : 2) * sizeof(pairs[0]));
			if (umad_get_smi_gsi_pair_by_ca_name(n, take8(&in), pairs, take8(&in) & 1) == 0)
				sink += sum_bytes(pairs, sizeof(pairs[0]));
			umad_set_addr(umad, take_int(&in), take_int(&in), take_int(&in), take_int(&in));
			sink += (unsigned)umad_set_pkey(umad, take_int(&in)) +
				(unsigned)umad_get_pkey(umad) + (unsigned)umad_status(umad);
			break;
		}
		}
	}
	for (i = 0; i < SLOTS; i++)
		if (fds[i] >= 0)
			close_port(fds, fds[i]);
	(void)sink;
	return 0;
}
