/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * libFuzzer target for the replay backend: a capture made from the input is
 * loaded (request keys, answers, RMPP reassembly, the host's ports), then
 * requests from the input are sent through the backend's send and every
 * answer is read, byte by byte; the backend is torn down after each input.
 *
 * The first byte chooses how the capture is made: odd, the rest of the
 * input is the file as it is (any bytes: the reader's errors and cut
 * files); even, a valid pcapng is written from records described by the
 * input (interface, direction, comment, MAD bytes) with the project's own
 * writer and packet builder, so that most inputs reach the matcher.  The
 * input after a "SEND" marker holds the requests (umad address, MAD).
 *
 * Sources: tests/fuzz/fuzz_replay_match.c backends/replay.c backends/soft_port.c
 *   base/mad_rules.c backends/mad_queue.c pcap/pcapng_reader.c
 *   pcap/pcapng_writer.c pcap/capture_file.c pcap/ib_packet.c pcap/crc.c
 *   pcap/capture_meta.c
 *   ("make fuzz" builds and runs it).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/backend.h"
#include "tests/fuzz/backend_host.h"
#include "base/mad_wire.h"
#include "pcap/ib_packet.h"
#include "pcap/pcapng_writer.h"

#define MAX_MESSAGE 8192

extern const struct umad_backend umad_backend_replay;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The one libibumad call the backend makes (its debug level, for the exit report). */
int umad_debug(int level)
{
	(void)level;
	return 0;
}

static char path[80];

/* The input file goes with the process: runs must not pile files up in /dev/shm. */
static void remove_input(void)
{
	unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* On a memory file system when there is one: every input is a file. */
	snprintf(path, sizeof(path), "%s/umad-fuzz-replay-%d.pcapng",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (int)getpid());
	setenv("UMAD_REPLAY", path, 1);
	atexit(remove_input);
	return 0;
}

static int write_raw(const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int ok;

	if (fd < 0)
		return -1;
	ok = !size || write(fd, data, size) == (ssize_t)size;
	close(fd);
	return ok ? 0 : -1;
}

/*
 * Records: [interface 0..2][direction 0..2][comment kind][length hi][length lo][MAD...].
 * Interfaces are "fz0:1", "fz0:2" and an unnamed one.
 */
static int write_built(const uint8_t *data, size_t size)
{
	static const char *const comments[] = {
		"", "timeout=1", "agent=0 status=110 ", "segment=1/3", "segment=2/3", "segment=3/3",
	};
	static uint8_t pkt[IB_MAD_PACKET_MAX];
	struct umad_err err = UMAD_ERR_INIT;
	struct pcapng_writer *w;
	int ids[3], i, n = 0;
	uint64_t ts = 1700000000000000000ull;

	unlink(path);	/* the writer never replaces a file it would think in use */
	w = pcapng_create(path, "fuzz", &err);
	if (!w)
		return -1;
	ids[0] = pcapng_add_interface(w, "fz0:1", NULL);
	ids[1] = pcapng_add_interface(w, "fz0:2", NULL);
	ids[2] = pcapng_add_interface(w, "", NULL);
	while (size >= 5 && n++ < 64) {
		struct ib_user_mad hdr;
		struct ib_packet_ends ends = { 0 };
		uint8_t mad[MAD_SIZE] = { 0 };
		size_t len = ((size_t)data[3] << 8 | data[4]) % (MAD_SIZE + 1), take;
		int which = data[0] % 3, dir = data[1] % 3, built;
		const char *comment = comments[data[2] % 6];

		data += 5;
		size -= 5;
		take = len < size ? len : size;
		memcpy(mad, data, take);
		data += take;
		size -= take;
		memset(&hdr, 0, sizeof(hdr));
		hdr.addr.lid = htobe16((uint16_t)(0xfff0 + which));
		ends.local_qp = mad_class_is_smp(mad_class(mad)) ? QP0_SMI : QP1_GSI;
		hdr.addr.qpn = htobe32(ends.local_qp);
		ends.outbound = dir == PCAPNG_DIR_OUTBOUND;
		ends.local_lid = (uint16_t)(1 + which);
		ends.pkey = PKEY_DEFAULT;
		built = ib_packet_build(pkt, sizeof(pkt), &hdr, mad, len < MAD_HDR_SIZE ? MAD_HDR_SIZE : len,
					&ends);
		if (built < 0)
			continue;
		i = pcapng_write_ib(w, ids[which], ts += 1000, (enum pcapng_direction)dir, pkt,
				    (size_t)built, comment, 0);
		if (i < 0)
			break;
	}
	return pcapng_close(w) < 0 ? -1 : 0;
}

static const char *first_ca;
static int first_port_visit(const char *ca_name, void *arg)
{
	(void)arg;
	first_ca = ca_name;
	return 1;
}

/* Requests: [class for the agent][length hi][length lo][umad address 20][MAD...]. */
static unsigned send_requests(const uint8_t *data, size_t size)
{
	static uint8_t umad[sizeof(struct ib_user_mad) + MAX_MESSAGE];
	static const uint8_t classes[] = {
		UMAD_CLASS_SUBN_DIRECTED_ROUTE, UMAD_CLASS_SUBN_LID_ROUTED, UMAD_CLASS_PERF_MGMT,
		UMAD_CLASS_SUBN_ADM,
	};
	struct umad_agent_req req;
	uint32_t agents[4];
	size_t hdr = 0, i;
	unsigned sum = 0;
	int fd, open_errno = 0, portnum;
	umad_ca_t ca;

	first_ca = NULL;
	umad_backend_replay.for_each_ca(first_port_visit, NULL);
	if (!first_ca || umad_backend_replay.get_ca(first_ca, &ca) < 0)
		return 0;
	for (portnum = 0; portnum < UMAD_CA_MAX_PORTS && !ca.ports[portnum]; portnum++)
		;
	umad_backend_free_ca_ports(&ca);
	fd = umad_backend_replay.open_port(first_ca, portnum, &hdr, &open_errno);
	if (fd < 0)
		return 0;
	for (i = 0; i < 4; i++) {
		memset(&req, 0, sizeof(req));
		req.qpn = mad_class_is_smp(classes[i]) ? QP0_SMI : QP1_GSI;
		req.mgmt_class = classes[i];
		req.mgmt_class_version = classes[i] == UMAD_CLASS_SUBN_ADM ? UMAD_SA_CLASS_VERSION : 1;
		req.rmpp_version = classes[i] == UMAD_CLASS_SUBN_ADM ? UMAD_RMPP_VERSION : 0;
		req.legacy = 1;
		req.oui = UMAD_OPENIB_OUI;
		if (umad_backend_replay.register_agent(fd, &req, &agents[i]) < 0)
			agents[i] = 99;
	}
	while (size >= 23) {
		struct ib_user_mad *h = (struct ib_user_mad *)umad;
		size_t len = ((size_t)data[1] << 8 | data[2]) % (MAX_MESSAGE + 1), take;
		ssize_t n;

		memset(umad, 0, sizeof(struct ib_user_mad) + len);
		memcpy(&h->addr, data + 3, 20);
		h->agent_id = agents[data[0] % 4];
		h->timeout_ms = 1 + data[0] / 4 % 3;
		data += 23;
		size -= 23;
		take = len < size ? len : size;
		memcpy(umad + sizeof(struct ib_user_mad), data, take);
		data += take;
		size -= take;
		umad_backend_replay.send(fd, umad, sizeof(struct ib_user_mad) + len);
		while ((n = umad_backend_replay.recv(fd, umad, sizeof(umad))) > 0)
			for (i = 0; i < (size_t)n; i++)
				sum += umad[i];
	}
	umad_backend_replay.close_port(fd);
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *sends = size ? memmem(data, size, "SEND", 4) : NULL;
	size_t capture_size = sends ? (size_t)(sends - data) : size;
	volatile unsigned sink = 0;

	if (!size)
		return 0;
	if ((data[0] & 1 ? write_raw(data + 1, capture_size - 1)
			 : write_built(data + 1, capture_size - 1)) < 0)
		return 0;
	if (umad_backend_replay.init(&fuzz_host) == 0 && sends)
		sink += send_requests(sends + 4, size - capture_size - 4);
	umad_backend_replay.fini();
	(void)sink;
	return 0;
}
