/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * sa_probe METHOD ATTR COMPMASK DATA...: one SA request, as written, to the
 * SM's LID from the first device's port 1, and its answer:
 *
 *   status 0xSSSS method 0xMM attr 0xAAAA records N length L
 *   RECORD-HEX                (one line per record, or the echoed data of an error)
 *
 * sa_probe - : requests from stdin, one a line, each "count ARGS..." (the
 * status line only) or "records ARGS..." (the records too), ARGS as above;
 * each answer follows a line "> " and the request, "no answer" for none.
 * One process sends them all, so that an SA of the process's own keeps
 * what they register.
 *
 * METHOD, ATTR and COMPMASK are numbers (0x...), DATA is the SA data in
 * hexadecimal (several words are joined; "@GID" stands for the port's own
 * GID, "@GUID" for its GUID, "@LID" for its LID), zero-padded.  A GetMulti
 * (0x14) goes as an RMPP message, as dual-sided RMPP sends it; so does any
 * request longer than one MAD.  Answers are taken whole (the agent does RMPP).  For the shell tests that ask an SA what
 * opensm answers and compare (tests/osmtest_sa.sh).
 * Exit 0 with an answer (every answer), 1 without one, 2 on bad arguments or setup.
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

#include "base/mad_wire.h"

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

#define MAX_WORDS	64
#define MAX_LINE	4096

/* Where requests go from, and to. */
struct probe {
	int portid, agent;
	uint16_t sm_lid, lid;
	uint64_t guid, prefix;
	void *buf;
};

/* Open the first device's port 1 once its SM is known; 0 or -1 with a message. */
static int probe_open(struct probe *p)
{
	char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	umad_port_t port;
	int tries;

	if (umad_init() < 0 || umad_get_cas_names(names, UMAD_MAX_DEVICES) < 1) {
		fprintf(stderr, "sa_probe: no device\n");
		return -1;
	}
	for (tries = 0; tries < SM_WAIT_TRIES && !p->sm_lid; tries++) {
		if (umad_get_port(names[0], 1, &port) < 0) {
			fprintf(stderr, "sa_probe: %s port 1: no port\n", names[0]);
			return -1;
		}
		p->sm_lid = (uint16_t)port.sm_lid;
		p->lid = (uint16_t)port.base_lid;
		p->guid = be64toh(port.port_guid);
		p->prefix = be64toh(port.gid_prefix);
		umad_release_port(&port);
		if (!p->sm_lid)
			usleep(SM_WAIT_US);
	}
	if (!p->sm_lid) {
		fprintf(stderr, "sa_probe: no SM LID\n");
		return -1;
	}
	/* The agent does RMPP: requests of several segments go, tables come whole. */
	p->portid = umad_open_port(names[0], 1);
	p->agent = p->portid < 0 ? -1 :
		   umad_register(p->portid, UMAD_CLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION,
				 UMAD_RMPP_VERSION, NULL);
	p->buf = calloc(1, umad_size() + 16 * MAD_SIZE);
	if (p->agent < 0 || !p->buf) {
		fprintf(stderr, "sa_probe: cannot open %s port 1\n", names[0]);
		return -1;
	}
	return 0;
}

/*
 * Send one request (METHOD ATTR COMPMASK DATA... in words) and print its
 * answer, the records too when `records`: 0, 1 for no answer, 2 for bad words.
 */
static int probe_one(struct probe *p, int n, char **words, int records, uint64_t tid)
{
	uint8_t data[MAX_DATA] = { 0 };
	size_t data_len = 0, msg_len, i, rec, nrec;
	uint8_t method, *mad;
	uint16_t status;
	int rmpp, len;

	if (n < 3) {
		fprintf(stderr, "sa_probe: a request is METHOD ATTR COMPMASK DATA...\n");
		return 2;
	}
	for (i = 3; i < (size_t)n; i++)
		if (add_hex(data, &data_len, words[i], p->guid, p->prefix, p->lid) < 0) {
			fprintf(stderr, "sa_probe: bad data '%s'\n", words[i]);
			return 2;
		}
	method = (uint8_t)strtoul(words[0], NULL, 0);
	rmpp = method == UMAD_SA_METHOD_GET_MULTI || data_len > SA_DATA_SIZE;
	/* Whole segments' worth of data: the last one padded as the kernel pads it. */
	msg_len = data_len <= SA_DATA_SIZE ? MAD_SIZE :
		  SA_HDR_END + (data_len + SA_DATA_SIZE - 1) / SA_DATA_SIZE * SA_DATA_SIZE;

	memset(p->buf, 0, umad_size() + 16 * MAD_SIZE);
	mad = umad_get_mad(p->buf);
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_ADM;
	mad[MAD_OFF_CLASS_VERSION] = UMAD_SA_CLASS_VERSION;
	mad[MAD_OFF_METHOD] = method;
	put_be64(mad + MAD_OFF_TID, tid);
	put_be16(mad + MAD_OFF_ATTR_ID, (uint16_t)strtoul(words[1], NULL, 0));
	put_be64(mad + SA_OFF_COMP_MASK, strtoull(words[2], NULL, 0));
	if (rmpp) {
		mad[RMPP_OFF_VERSION] = UMAD_RMPP_VERSION;
		mad[RMPP_OFF_TYPE] = RMPP_TYPE_DATA;
		mad[RMPP_OFF_FLAGS] = UMAD_RMPP_FLAG_ACTIVE;
	}
	memcpy(mad + SA_HDR_END, data, data_len);
	umad_set_addr(p->buf, p->sm_lid, QP1_GSI, 0, UMAD_QKEY);
	if (umad_send(p->portid, p->agent, p->buf, (int)msg_len, TIMEOUT_MS, 0) < 0) {
		printf("no answer: send: %s\n", strerror(errno));
		return 1;
	}
	len = 16 * MAD_SIZE;
	if (umad_recv(p->portid, p->buf, &len, -1) < 0 || umad_status(p->buf)) {
		printf("no answer\n");
		return 1;
	}
	status = get_be16(mad + MAD_OFF_STATUS);
	rec = (size_t)get_be16(mad + SA_OFF_ATTR_OFFSET) * SA_ATTR_OFFSET_UNIT;
	nrec = rec && (size_t)len > SA_HDR_END ? ((size_t)len - SA_HDR_END) / rec : 0;
	if (method != UMAD_SA_METHOD_GET_TABLE && method != UMAD_SA_METHOD_GET_MULTI && nrec)
		nrec = 1;
	printf("status 0x%04x method 0x%02x attr 0x%04x records %zu length %d\n", status,
	       mad[MAD_OFF_METHOD], get_be16(mad + MAD_OFF_ATTR_ID), status ? 0 : nrec, len);
	if (!records)
		return 0;
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
	return 0;
}

/* Requests from stdin, one a line: the worst result. */
static int probe_lines(struct probe *p)
{
	char line[MAX_LINE], *words[MAX_WORDS], *save = NULL, *w;
	uint64_t tid = (uint64_t)getpid() << 16;
	int worst = 0, n, r;

	while (fgets(line, sizeof(line), stdin)) {
		line[strcspn(line, "\n")] = 0;
		n = 0;
		for (w = strtok_r(line, " \t", &save); w && n < MAX_WORDS;
		     w = strtok_r(NULL, " \t", &save))
			words[n++] = w;
		if (!n)
			continue;
		printf(">");
		for (r = 0; r < n; r++)
			printf(" %s", words[r]);
		printf("\n");
		if (strcmp(words[0], "count") && strcmp(words[0], "records")) {
			fprintf(stderr, "sa_probe: '%s': count or records first\n", words[0]);
			return 2;
		}
		r = probe_one(p, n - 1, words + 1, !strcmp(words[0], "records"), ++tid);
		if (r == 2)
			return 2;
		if (r > worst)
			worst = r;
		fflush(stdout);
	}
	return worst;
}

int main(int argc, char **argv)
{
	struct probe p = { 0 };
	int r;

	if (argc < 2 || (strcmp(argv[1], "-") && argc < 4)) {
		fprintf(stderr, "usage: sa_probe METHOD ATTR COMPMASK DATA... | sa_probe -\n");
		return 2;
	}
	if (probe_open(&p) < 0)
		return 2;
	if (!strcmp(argv[1], "-"))
		r = probe_lines(&p);
	else
		r = probe_one(&p, argc - 1, argv + 1, 1, (uint64_t)getpid() << 8 | 1);
	umad_close_port(p.portid);
	umad_done();
	free(p.buf);
	return r;
}
