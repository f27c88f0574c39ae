/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * sa_probe METHOD ATTR COMPMASK DATA...: one SA request, as written, to the
 * SM's LID from the first device's port 1, and its answer:
 *
 *   status 0xSSSS method 0xMM attr 0xAAAA records N
 *   RECORD-HEX                (one line per record, or the echoed data of an error)
 *
 * METHOD, ATTR and COMPMASK are numbers (0x...), DATA is the SA data in
 * hexadecimal (several words are joined; "@GID" stands for the port's own
 * GID, "@GUID" for its GUID, "@LID" for its LID), zero-padded.  A GetMulti
 * (0x14) goes as an RMPP message, as dual-sided RMPP sends it; so does any
 * request longer than one MAD.  Answers are taken whole (the agent does RMPP).  For the shell tests that ask an SA what
 * opensm answers and compare (tests/osmtest_sa.sh).
 * Exit 0 with an answer, 1 without one, 2 on bad arguments or setup.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/umad.h>
#include <infiniband/umad_sa.h>
#include <infiniband/umad_types.h>

#include "libumad/base/mad_wire.h"

#define TIMEOUT_MS	3000
#define MAX_DATA	(4 * SA_DATA_SIZE)	/* a request of up to four segments */
#define SM_WAIT_TRIES	100
#define SM_WAIT_US	100000

static int hex_nibble(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Append the bytes of hex string s (or a stand-in) to data; -1 on a bad string. */
static int add_hex(uint8_t *data, size_t *len, const char *s, uint64_t guid, uint64_t prefix,
		   uint16_t lid)
{
	uint8_t word[16];
	size_t n = 0, i;

	if (!strcmp(s, "@GID") || !strcmp(s, "@GUID")) {
		if (!strcmp(s, "@GID")) {
			put_be64(word, prefix);
			n = 8;
		}
		put_be64(word + n, guid);
		n += 8;
	} else if (!strcmp(s, "@LID")) {
		put_be16(word, lid);
		n = 2;
	} else {
		for (; s[0]; s += 2) {
			int hi = hex_nibble(s[0]), lo = s[1] ? hex_nibble(s[1]) : -1;

			if (hi < 0 || lo < 0 || *len + n >= MAX_DATA)
				return -1;
			data[*len + n++] = (uint8_t)(hi << 4 | lo);
		}
		*len += n;
		return 0;
	}
	if (*len + n > MAX_DATA)
		return -1;
	for (i = 0; i < n; i++)
		data[*len + i] = word[i];
	*len += n;
	return 0;
}

int main(int argc, char **argv)
{
	char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	uint8_t data[MAX_DATA] = { 0 };
	size_t data_len = 0, msg_len, i, rec, nrec;
	umad_port_t port;
	uint16_t sm_lid = 0, lid = 0, status;
	uint64_t guid = 0, prefix = 0;
	int portid, agent, rmpp, tries, len;
	uint8_t method;
	uint16_t attr;
	uint64_t comp;
	void *buf;
	uint8_t *mad;

	if (argc < 4) {
		fprintf(stderr, "usage: sa_probe METHOD ATTR COMPMASK DATA...\n");
		return 2;
	}
	method = (uint8_t)strtoul(argv[1], NULL, 0);
	attr = (uint16_t)strtoul(argv[2], NULL, 0);
	comp = strtoull(argv[3], NULL, 0);
	if (umad_init() < 0 || umad_get_cas_names(names, UMAD_MAX_DEVICES) < 1) {
		fprintf(stderr, "sa_probe: no device\n");
		return 2;
	}
	for (tries = 0; tries < SM_WAIT_TRIES && !sm_lid; tries++) {
		if (umad_get_port(names[0], 1, &port) < 0) {
			fprintf(stderr, "sa_probe: %s port 1: no port\n", names[0]);
			return 2;
		}
		sm_lid = (uint16_t)port.sm_lid;
		lid = (uint16_t)port.base_lid;
		guid = be64toh(port.port_guid);
		prefix = be64toh(port.gid_prefix);
		umad_release_port(&port);
		if (!sm_lid)
			usleep(SM_WAIT_US);
	}
	if (!sm_lid) {
		fprintf(stderr, "sa_probe: no SM LID\n");
		return 2;
	}
	for (i = 4; i < (size_t)argc; i++)
		if (add_hex(data, &data_len, argv[i], guid, prefix, lid) < 0) {
			fprintf(stderr, "sa_probe: bad data '%s'\n", argv[i]);
			return 2;
		}
	rmpp = method == UMAD_SA_METHOD_GET_MULTI || data_len > SA_DATA_SIZE;
	/* Whole segments' worth of data: the last one padded as the kernel pads it. */
	msg_len = data_len <= SA_DATA_SIZE ? MAD_SIZE :
		  SA_HDR_END + (data_len + SA_DATA_SIZE - 1) / SA_DATA_SIZE * SA_DATA_SIZE;

	portid = umad_open_port(names[0], 1);
	agent = portid < 0 ? -1 :
		umad_register(portid, UMAD_CLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION, UMAD_RMPP_VERSION,
			      NULL);
	buf = calloc(1, umad_size() + 16 * MAD_SIZE);
	if (agent < 0 || !buf) {
		fprintf(stderr, "sa_probe: cannot open %s port 1\n", names[0]);
		return 2;
	}
	mad = umad_get_mad(buf);
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_ADM;
	mad[MAD_OFF_CLASS_VERSION] = UMAD_SA_CLASS_VERSION;
	mad[MAD_OFF_METHOD] = method;
	put_be64(mad + MAD_OFF_TID, (uint64_t)getpid() << 8 | 1);
	put_be16(mad + MAD_OFF_ATTR_ID, attr);
	put_be64(mad + SA_OFF_COMP_MASK, comp);
	if (rmpp) {
		mad[RMPP_OFF_VERSION] = UMAD_RMPP_VERSION;
		mad[RMPP_OFF_TYPE] = RMPP_TYPE_DATA;
		mad[RMPP_OFF_FLAGS] = UMAD_RMPP_FLAG_ACTIVE;
	}
	memcpy(mad + SA_HDR_END, data, data_len);
	umad_set_addr(buf, sm_lid, QP1_GSI, 0, UMAD_QKEY);
	if (umad_send(portid, agent, buf, (int)msg_len, TIMEOUT_MS, 0) < 0) {
		fprintf(stderr, "sa_probe: send: %s\n", strerror(errno));
		return 1;
	}
	len = 16 * MAD_SIZE;
	if (umad_recv(portid, buf, &len, -1) < 0 || umad_status(buf)) {
		fprintf(stderr, "sa_probe: no answer\n");
		return 1;
	}
	status = get_be16(mad + MAD_OFF_STATUS);
	rec = (size_t)get_be16(mad + SA_OFF_ATTR_OFFSET) * SA_ATTR_OFFSET_UNIT;
	nrec = rec && (size_t)len > SA_HDR_END ? ((size_t)len - SA_HDR_END) / rec : 0;
	if (method != UMAD_SA_METHOD_GET_TABLE && method != UMAD_SA_METHOD_GET_MULTI && nrec)
		nrec = 1;
	printf("status 0x%04x method 0x%02x attr 0x%04x records %zu length %d\n", status,
	       mad[MAD_OFF_METHOD], get_be16(mad + MAD_OFF_ATTR_ID), status ? 0 : nrec, len);
	if (status || !nrec) {
		nrec = 1;
		rec = SA_DATA_SIZE;
	}
	for (i = 0; i < nrec; i++) {
		size_t b;

		for (b = 0; b < rec && SA_HDR_END + i * rec + b < (size_t)len; b++)
			printf("%02x", mad[SA_HDR_END + i * rec + b]);
		printf("\n");
	}
	umad_close_port(portid);
	umad_done();
	return 0;
}
