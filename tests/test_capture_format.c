/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Capture format: the synthesized IB packet (a DR NodeInfo Get checked
 * byte for byte, its ICRC and VCRC included), and pcapng
 * files read back by libpcap and decoded by stock tshark.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <pcap/pcap.h>

#include "pcap/crc.h"
#include "pcap/ib_packet.h"
#include "pcap/capture_file.h"
#include "pcap/pcapng_writer.h"
#include "pcap/pcapng_reader.h"
#include "tests/child.h"

/* NodeInfo:NodeType in the SMP data, spelled here as the IBA lays it out. */
#define NODEINFO_OFF_NODE_TYPE	2

/* DR SubnGet(NodeInfo) from LID 1 to the permissive LID, initial path [0, 1], TID 0x100001234. */
static void dr_get_nodeinfo(uint8_t mad[MAD_SIZE], struct ib_user_mad *hdr)
{
	memset(mad, 0, MAD_SIZE);
	memset(hdr, 0, sizeof(*hdr));
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_DIRECTED_ROUTE;
	mad[MAD_OFF_CLASS_VERSION] = 1;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET;
	mad[SMP_OFF_HOP_CNT] = 1;
	put_be64(mad + MAD_OFF_TID, 0x100001234ull);
	put_be16(mad + MAD_OFF_ATTR_ID, UMAD_SM_ATTR_NODE_INFO);
	put_be16(mad + SMP_OFF_DR_SLID, LID_PERMISSIVE);
	put_be16(mad + SMP_OFF_DR_DLID, LID_PERMISSIVE);
	mad[SMP_OFF_INITIAL_PATH + 1] = 1;	/* initial path [0, 1] */
	hdr->addr.lid = htobe16(LID_PERMISSIVE);
}

static void test_reference_vector(void **state)
{
	static const uint8_t lrh_bth[] = { 0xf0, 0x02, 0xff, 0xff, 0x00, 0x48, 0x00, 0x01,
					   0x64, 0x00, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00,
					   0x00, 0x00, 0x00, 0x00 };
	static const uint8_t crcs[] = { 0xdf, 0xc9, 0xc0, 0x79, 0xf4, 0x8f };
	struct ib_packet_ends ends = {
		.outbound = 1, .local_lid = 1, .local_qp = QP0_SMI, .pkey = PKEY_DEFAULT
	};
	uint8_t mad[MAD_SIZE], pkt[IB_MAD_PACKET_MAX];
	struct ib_user_mad hdr;
	int n;

	(void)state;
	dr_get_nodeinfo(mad, &hdr);
	n = ib_packet_build(pkt, sizeof(pkt), &hdr, mad, sizeof(mad), &ends);
	assert_int_equal(n, 290);
	assert_memory_equal(pkt, lrh_bth, sizeof(lrh_bth));
	assert_memory_equal(pkt + IB_LRH_LEN + IB_BTH_LEN + IB_DETH_LEN, mad, MAD_SIZE);
	assert_memory_equal(pkt + n - 6, crcs, sizeof(crcs));
	/* The CRC functions alone, on the same bytes. */
	assert_int_equal(ib_icrc(pkt, 284), 0x79c0c9df);
	assert_int_equal(ib_vcrc(pkt, 288), 0x8ff4);
}

/* The reference vector again, with the CRCs from the tables alone. */
static void test_reference_vector_without_folding(void **state)
{
	crc_use_folding(0);
	test_reference_vector(state);
	crc_use_folding(1);
}

/* A reflected CRC one bit at a time, straight from the definition. */
static uint32_t crc_bitwise(uint32_t poly, unsigned width, uint32_t reg, const uint8_t *p, size_t n)
{
	uint32_t reflected = 0;
	unsigned bit;

	for (bit = 0; bit < width; bit++)
		if (poly >> bit & 1)
			reflected |= 1u << (width - 1 - bit);
	while (n--) {
		reg ^= *p++;
		for (bit = 0; bit < 8; bit++)
			reg = reg & 1 ? (reg >> 1) ^ reflected : reg >> 1;
	}
	return reg;
}

/* Tables and folding agree with the definition at every length, alignment and start value. */
static void test_crc_engines(void **state)
{
	static const struct { uint32_t poly; unsigned width; } polys[] = {
		{ 0x04c11db7u, 32 }, { 0x100bu, 16 },
	};
	static struct crc_reflected engine;
	uint8_t data[700];
	unsigned seed = 7, i, len, at, folded;

	(void)state;
	for (i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(rand_r(&seed) >> 7);
	crc_reflected_init(&engine, 0x04c11db7u, 32);
	/* CRC-32 (IEEE) of "123456789" is 0xCBF43926. */
	assert_int_equal(~crc_reflected_update(&engine, 0xffffffffu, (const uint8_t *)"123456789", 9),
			 0xcbf43926u);
	folded = (unsigned)crc_use_folding(1);
	for (i = 0; i < 2; i++) {
		crc_reflected_init(&engine, polys[i].poly, polys[i].width);
		for (len = 0; len < 600; len += len < 80 ? 1 : 13) {
			for (at = 0; at < 16; at += 5) {
				uint32_t mask = polys[i].width == 32 ? 0xffffffffu : 0xffffu;
				uint32_t start = (uint32_t)rand_r(&seed) & mask;
				uint32_t want = crc_bitwise(polys[i].poly, polys[i].width, start,
							    data + at, len);

				crc_use_folding(0);
				assert_int_equal(crc_reflected_update(&engine, start, data + at, len),
						 want);
				crc_use_folding(1);
				assert_int_equal(crc_reflected_update(&engine, start, data + at, len),
						 want);
			}
		}
	}
	/* x86-64 CPUs of the last decade have PCLMULQDQ: say when this one did not. */
	if (!folded)
		print_message("no carry-less multiply on this CPU: tables only\n");
}

static void test_variant_fields_do_not_change_icrc(void **state)
{
	struct ib_packet_ends ends = { .outbound = 1, .local_lid = 1 };
	uint8_t mad[MAD_SIZE], pkt[IB_MAD_PACKET_MAX];
	struct ib_user_mad hdr;
	uint32_t icrc;

	(void)state;
	dr_get_nodeinfo(mad, &hdr);
	assert_int_equal(ib_packet_build(pkt, sizeof(pkt), &hdr, mad, sizeof(mad), &ends), 290);
	icrc = ib_icrc(pkt, 284);
	pkt[LRH_OFF_VL] = 0x30;			/* another VL */
	pkt[IB_LRH_LEN + BTH_OFF_RESV8A] = 0xc0;	/* FECN/BECN */
	assert_int_equal(ib_icrc(pkt, 284), icrc);
	pkt[100] ^= 1;		/* but the payload counts */
	assert_int_not_equal(ib_icrc(pkt, 284), icrc);
}

static void test_gmp_inbound_with_grh(void **state)
{
	struct ib_packet_ends ends = { .outbound = 0, .local_lid = 7, .local_qp = QP1_GSI, .pkey = 0x8001 };
	uint8_t mad[MAD_SIZE] = {
		[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION, [MAD_OFF_CLASS] = UMAD_CLASS_PERF_MGMT,
		[MAD_OFF_CLASS_VERSION] = 1, [MAD_OFF_METHOD] = UMAD_METHOD_GET_RESP,
	};
	uint8_t pkt[IB_MAD_PACKET_MAX], *grh = pkt + IB_LRH_LEN, *bth = grh + IB_GRH_LEN;
	uint8_t *deth = bth + IB_BTH_LEN;
	struct ib_user_mad hdr;
	int n;

	(void)state;
	memset(&hdr, 0, sizeof(hdr));
	hdr.addr.lid = htobe16(2);
	hdr.addr.qpn = htobe32(QP1_GSI);
	hdr.addr.sl = 3;
	hdr.addr.grh_present = 1;
	hdr.addr.hop_limit = 64;
	hdr.addr.traffic_class = 0x12;
	hdr.addr.flow_label = htobe32(0xabcde);
	hdr.addr.gid[0] = 0xfe;
	ends.local_gid.raw[0] = 0xfd;
	n = ib_packet_build(pkt, sizeof(pkt), &hdr, mad, sizeof(mad), &ends);
	assert_int_equal(n, 330);
	/* The expected values as numbers: the wire's, not the vocabulary's. */
	assert_int_equal(pkt[LRH_OFF_VL], 0x00);		/* VL0 */
	assert_int_equal(pkt[LRH_OFF_SL_LNH], 0x33);		/* SL 3, LNH global */
	assert_int_equal(get_be16(pkt + LRH_OFF_DLID), 7);	/* DLID: us */
	assert_int_equal(get_be16(pkt + LRH_OFF_PKTLEN), 82);
	assert_int_equal(get_be16(pkt + LRH_OFF_SLID), 2);	/* SLID: the sender */
	assert_int_equal(grh[GRH_OFF_VER_TC_FLOW], 0x61);	/* IPVer 6, TClass 0x12 */
	assert_int_equal(grh[GRH_OFF_NEXT_HDR], 0x1b);		/* next header: BTH */
	assert_int_equal(grh[GRH_OFF_SGID], 0xfe);		/* SGID: the sender's */
	assert_int_equal(grh[GRH_OFF_DGID], 0xfd);		/* DGID: ours */
	assert_int_equal(get_be16(bth + BTH_OFF_PKEY), 0x8001);
	assert_int_equal(get_be24(bth + BTH_OFF_DEST_QP), 1);	/* our QP1 */
	assert_int_equal(get_be32(deth + DETH_OFF_QKEY), 0x80010000);
	assert_int_equal(get_be24(deth + DETH_OFF_SRC_QP), 1);
}

static void test_sizes(void **state)
{
	struct ib_packet_ends ends = { .outbound = 1 };
	uint8_t mad[8192] = { [MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION,
			      [MAD_OFF_CLASS] = UMAD_CLASS_SUBN_ADM }, pkt[9000];
	struct ib_user_mad hdr;

	(void)state;
	memset(&hdr, 0, sizeof(hdr));
	assert_int_equal(ib_packet_build(pkt, 100, &hdr, mad, MAD_SIZE, &ends), -ENOSPC);
	/* PktLen has 11 bits: 8188 bytes at most. */
	assert_int_equal(ib_packet_build(pkt, sizeof(pkt), &hdr, mad, 8192, &ends), -EINVAL);
	/* A payload that is no multiple of 4 is padded, and PadCnt says so. */
	assert_int_equal(ib_packet_build(pkt, sizeof(pkt), &hdr, mad, 254, &ends), 290);
	assert_int_equal(pkt[IB_LRH_LEN + BTH_OFF_PAD] >> BTH_PAD_SHIFT & 3, 2);
}

/* --- pcapng files --------------------------------------------------------- */

static char path[64];
static struct umad_err err_text;	/* why pcapng_create() refused */

static int make_path(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/umad-capture-test-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	return 0;
}

static int remove_path(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

/* Three frames: the DR Get out, its response in, a PerfMgt Get(PortCounters) out. */
static void write_sample(void)
{
	struct ib_packet_ends out = { .outbound = 1, .local_lid = 1, .local_qp = QP0_SMI };
	struct ib_packet_ends in = { .outbound = 0, .local_lid = 1, .local_qp = QP0_SMI };
	struct ib_packet_ends gsi = {
		.outbound = 1, .local_lid = 1, .local_qp = QP1_GSI, .pkey = PKEY_DEFAULT
	};
	uint8_t mad[MAD_SIZE], pkt[IB_MAD_PACKET_MAX];
	struct pcapng_writer *w;
	struct ib_user_mad hdr;
	int n;

	w = pcapng_create(path, "libumad test", &err_text);
	assert_non_null(w);
	assert_int_equal(pcapng_add_interface(w, "mlx5_0:1", "test port"), 0);

	dr_get_nodeinfo(mad, &hdr);
	n = ib_packet_build(pkt, sizeof(pkt), &hdr, mad, sizeof(mad), &out);
	assert_int_equal(pcapng_write_ib(w, 0, 1700000000000000000ull, PCAPNG_DIR_OUTBOUND,
					 pkt, (size_t)n, "agent=0 status=0", 1), 0);

	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET_RESP;
	put_be16(mad + MAD_OFF_STATUS, UMAD_SMP_DIRECTION);
	/* NodeInfo: base version, class version, type CA, 1 port. */
	mad[SMP_OFF_DATA + 0] = 1;
	mad[SMP_OFF_DATA + 1] = 1;
	mad[SMP_OFF_DATA + NODEINFO_OFF_NODE_TYPE] = NODE_TYPE_CA;
	mad[SMP_OFF_DATA + 3] = 1;
	n = ib_packet_build(pkt, sizeof(pkt), &hdr, mad, sizeof(mad), &in);
	assert_int_equal(pcapng_write_ib(w, 0, 1700000000001000000ull, PCAPNG_DIR_INBOUND,
					 pkt, (size_t)n, "agent=0 status=0", 1), 0);

	memset(mad, 0, sizeof(mad));
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_PERF_MGMT;
	mad[MAD_OFF_CLASS_VERSION] = 1;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET;
	put_be16(mad + MAD_OFF_ATTR_ID, 0x12);	/* PortCounters */
	mad[64 + 1] = 1;	/* PortSelect */
	memset(&hdr, 0, sizeof(hdr));
	hdr.addr.lid = htobe16(2);
	hdr.addr.qpn = htobe32(QP1_GSI);
	hdr.addr.qkey = htobe32(UMAD_QKEY);
	n = ib_packet_build(pkt, sizeof(pkt), &hdr, mad, sizeof(mad), &gsi);
	assert_int_equal(pcapng_write_ib(w, 0, 1700000000002000000ull, PCAPNG_DIR_OUTBOUND,
					 pkt, (size_t)n, "agent=1 status=0", 0), 0);
	assert_int_equal(pcapng_write_ib(w, 5, 0, PCAPNG_DIR_OUTBOUND, pkt, (size_t)n, NULL, 0),
			 -EINVAL);
	assert_int_equal(pcapng_close(w), 0);
}

static void test_libpcap_reads_it(void **state)
{
	char err[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *ph;
	const u_char *data;
	pcap_t *p;
	int n = 0;

	(void)state;
	write_sample();
	p = pcap_open_offline(path, err);
	if (!p)
		fail_msg("libpcap: %s", err);
	assert_int_equal(pcap_datalink(p), DLT_ERF);
	while (pcap_next_ex(p, &ph, &data) == 1) {
		assert_int_equal(ph->caplen, 16 + 290);
		assert_int_equal(data[8], 21);		/* ERF type InfiniBand */
		n++;
	}
	pcap_close(p);
	assert_int_equal(n, 3);
}

static void test_tshark_decodes_it(void **state)
{
	/* Direction (0 sent, 1 received) and packet id, then the Info column's MAD name. */
	static const char *const expected[][2] = {
		{ "0\t1\t", "SubnGet(NodeInfo)" },
		{ "1\t1\t", "SubnGetResp(NodeInfo)" },
		{ "0\t\t", "PERF (PortCounters)" },
	};
	char cmd[256], line[256];
	FILE *out;
	int i = 0;

	(void)state;
	if (access("/usr/bin/tshark", X_OK) != 0)
		skip();		/* installed by scripts/install-deps; CI has it */
	write_sample();
	snprintf(cmd, sizeof(cmd),
		 "tshark -r %s -T fields -e frame.p2p_dir -e frame.packet_id -e _ws.col.Info 2>/dev/null",
		 path);
	out = popen(cmd, "r");
	assert_non_null(out);
	while (fgets(line, sizeof(line), out)) {
		line[strcspn(line, "\n")] = '\0';
		if (i < 3 && (strncmp(line, expected[i][0], strlen(expected[i][0])) ||
			      !strstr(line, expected[i][1]) || strstr(line, "Malformed")))
			fail_msg("frame %d: tshark says '%s', expected '%s...%s'", i + 1, line,
				 expected[i][0], expected[i][1]);
		i++;
	}
	assert_int_equal(pclose(out), 0);
	assert_int_equal(i, 3);
}

/* The size of the file at path. */
static uint64_t file_size(void)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	return (uint64_t)st.st_size;
}

/* Write one sample record with packet id id. */
static void write_one(struct pcapng_writer *w, uint64_t id)
{
	struct ib_packet_ends ends = { .outbound = 1, .local_lid = 1 };
	uint8_t mad[MAD_SIZE], pkt[IB_MAD_PACKET_MAX];
	struct ib_user_mad hdr;
	int n;

	dr_get_nodeinfo(mad, &hdr);
	n = ib_packet_build(pkt, sizeof(pkt), &hdr, mad, sizeof(mad), &ends);
	assert_int_equal(pcapng_write_ib(w, 0, 1700000000000000000ull, PCAPNG_DIR_OUTBOUND, pkt,
					 (size_t)n, "agent=0 status=0", id), 0);
}

/* The first 4 bytes of a file: a pcapng section header's type, or what it held. */
static uint32_t first_word(const char *file)
{
	uint32_t word = 0;
	FILE *f = fopen(file, "rb");

	assert_non_null(f);
	assert_int_equal(fread(&word, 1, 4, f), 4);
	fclose(f);
	return word;
}

/*
 * A capture over an existing regular file replaces it: the new file is
 * 0600 whatever the old one was, and another name of the old file keeps
 * the old content.  A symlink is written through and stays a symlink; a
 * FIFO stays a FIFO and gets the data.
 */
static void test_existing_files_are_replaced(void **state)
{
	char link_path[80], sym_path[80], target[80], fifo[80];
	struct pcapng_writer *w;
	struct stat st;
	FILE *f;

	(void)state;
	/* A regular file: replaced, mode 0600; another link to it keeps the old content. */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("old content", f);
	fclose(f);
	assert_int_equal(chmod(path, 0644), 0);
	snprintf(link_path, sizeof(link_path), "%s.link", path);
	assert_int_equal(link(path, link_path), 0);
	w = pcapng_create(path, "libumad test", &err_text);
	assert_non_null(w);
	assert_int_equal(pcapng_close(w), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(first_word(path), 0x0a0d0d0a);
	assert_int_equal(first_word(link_path), 0x20646c6f);	/* "old " */
	unlink(link_path);

	/* A symbolic link: refused, its target untouched (not truncated, mode kept). */
	snprintf(target, sizeof(target), "%s.target", path);
	snprintf(sym_path, sizeof(sym_path), "%s.sym", path);
	f = fopen(target, "w");
	assert_non_null(f);
	fputs("old content", f);
	fclose(f);
	assert_int_equal(chmod(target, 0644), 0);
	assert_int_equal(symlink(target, sym_path), 0);
	w = pcapng_create(sym_path, "libumad test", &err_text);
	assert_null(w);
	assert_non_null(strstr(umad_err_text(&err_text), "symbolic link"));
	assert_int_equal(lstat(sym_path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(first_word(target), 0x20646c6f);
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(st.st_size, 11);
	/* A dangling one is refused too: nothing is created where it points. */
	unlink(target);
	w = pcapng_create(sym_path, "libumad test", &err_text);
	assert_null(w);
	assert_int_equal(access(target, F_OK), -1);
	unlink(sym_path);

	/* A FIFO (even one with no reader: never opened, so nothing blocks), a directory. */
	snprintf(fifo, sizeof(fifo), "%s.fifo", path);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	w = pcapng_create(fifo, "libumad test", &err_text);
	assert_null(w);
	assert_string_equal(umad_err_text(&err_text), "a FIFO, not a regular file");
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	unlink(fifo);
	assert_int_equal(mkdir(fifo, 0700), 0);
	w = pcapng_create(fifo, "libumad test", &err_text);
	assert_null(w);
	assert_string_equal(umad_err_text(&err_text), "a directory, not a regular file");
	assert_int_equal(errno, EISDIR);
	rmdir(fifo);
	w = pcapng_create("/dev/null", "libumad test", &err_text);
	assert_null(w);
	assert_string_equal(umad_err_text(&err_text), "a character device, not a regular file");
}

/* The user the private-mode cases run as: nobody when we are root, else ourselves. */
#define OTHER_UID 65534

static char private_dir[64];

/* Become the capturing user of the private-mode cases (nobody, if we are root). */
static int become_capturing_user(void)
{
	if (geteuid() != 0)
		return 0;
	return setgroups(0, NULL) == 0 && setgid(OTHER_UID) == 0 && setuid(OTHER_UID) == 0 ? 0 : -1;
}

/* In the child: a capture over our own 0666 file in a directory we may not write. */
static int capture_in_place(void)
{
	char file[96];
	struct pcapng_writer *w;
	struct stat st;

	CHECK(become_capturing_user() == 0);
	snprintf(file, sizeof(file), "%s/ours", private_dir);
	w = pcapng_create(file, "libumad test", &err_text);
	if (!w)
		fprintf(stderr, "refused: %s\n", umad_err_text(&err_text));
	CHECK(w != NULL);
	CHECK_EQ(pcapng_close(w), 0);
	CHECK_EQ(stat(file, &st), 0);
	CHECK_EQ(st.st_mode & 07777, 0600);
	CHECK_EQ(st.st_uid, geteuid());
	CHECK_EQ(st.st_size > 0, 1);
	return 0;
}

/* In the child (nobody): a capture over root's 0666 file in a sticky directory. */
static int capture_over_theirs(void)
{
	char file[96];
	struct pcapng_writer *w;

	CHECK(become_capturing_user() == 0);
	snprintf(file, sizeof(file), "%s/theirs", private_dir);
	w = pcapng_create(file, "libumad test", &err_text);
	if (w)
		pcapng_close(w);
	CHECK(w == NULL);
	CHECK_EQ(errno, EPERM);
	CHECK(strstr(umad_err_text(&err_text), "owned by user 0") != NULL);
	return 0;
}

/* A file of content "old content" at dir/name, mode, owned by uid. */
static void old_file(const char *name, mode_t mode, uid_t uid)
{
	char file[96];
	FILE *f;

	snprintf(file, sizeof(file), "%s/%s", private_dir, name);
	f = fopen(file, "w");
	assert_non_null(f);
	fputs("old content", f);
	fclose(f);
	assert_int_equal(chown(file, uid, (gid_t)-1), 0);
	assert_int_equal(chmod(file, mode), 0);
}

/*
 * Whatever was there, the capture file ends up mode 0600 and the capturing
 * user's, or is refused with the old file untouched: under a umask that
 * takes owner bits too, over the user's own 0666 file in a directory that
 * does not let them replace it (written in place), and over another user's
 * 0666 file in a sticky directory (refused: it would stay theirs).
 */
static void test_capture_file_is_private(void **state)
{
	struct child_result res;
	struct pcapng_writer *w;
	char file[96];
	struct stat st;
	mode_t old_mask;
	uid_t me = geteuid();

	(void)state;
	snprintf(private_dir, sizeof(private_dir), "/tmp/umad-capture-dir-XXXXXX");
	assert_non_null(mkdtemp(private_dir));

	/* A new file under umask 0277: 0400 from open(2), 0600 in the end. */
	snprintf(file, sizeof(file), "%s/new", private_dir);
	old_mask = umask(0277);
	w = pcapng_create(file, "libumad test", &err_text);
	umask(old_mask);
	assert_non_null(w);
	assert_int_equal(pcapng_close(w), 0);
	assert_int_equal(stat(file, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	unlink(file);

	/* The user's own 0666 file in a directory they may not write (root's, or read-only). */
	old_file("ours", 0666, me == 0 ? OTHER_UID : me);
	assert_int_equal(chmod(private_dir, 0555), 0);
	expect_child_ok(capture_in_place, NULL, NULL, &res);
	assert_int_equal(chmod(private_dir, 0700), 0);
	snprintf(file, sizeof(file), "%s/ours", private_dir);
	unlink(file);

	/* Another user's 0666 file in a sticky directory: refused, left as it was. */
	if (me == 0) {
		old_file("theirs", 0666, 0);
		assert_int_equal(chmod(private_dir, 01777), 0);
		expect_child_ok(capture_over_theirs, NULL, NULL, &res);
		snprintf(file, sizeof(file), "%s/theirs", private_dir);
		assert_int_equal(stat(file, &st), 0);
		assert_int_equal(st.st_mode & 07777, 0666);
		assert_int_equal(st.st_size, 11);
		assert_int_equal(first_word(file), 0x20646c6f);	/* "old " */
		unlink(file);
	} else {
		print_message("another user's file needs root to set up: that case not run\n");
	}
	assert_int_equal(rmdir(private_dir), 0);
}

/* A file another writer holds is not replaced (umad capture -w); once it is closed, it is. */
static void test_file_in_use_is_kept(void **state)
{
	struct pcapng_writer *first, *second;

	(void)state;
	first = pcapng_create(path, "first", &err_text);
	assert_non_null(first);
	assert_true(pcapng_add_interface(first, "mlx5_0:1", NULL) >= 0);
	second = pcapng_create(path, "second", &err_text);
	assert_null(second);
	assert_int_equal(errno, EBUSY);
	assert_non_null(strstr(umad_err_text(&err_text), "another process is writing a capture into it"));
	assert_non_null(strstr(umad_err_text(&err_text), "%p"));
	assert_int_equal(pcapng_close(first), 0);
	second = pcapng_create(path, "second", &err_text);
	assert_non_null(second);
	assert_int_equal(pcapng_close(second), 0);
	/* One appending to it (a process under UMAD_CAPTURE) holds it as well. */
	first = pcapng_append(path, "appending", &err_text);
	assert_non_null(first);
	assert_null(pcapng_create(path, "second", &err_text));
	assert_int_equal(errno, EBUSY);
	assert_int_equal(pcapng_close(first), 0);
}

/*
 * Walk the capture file's blocks: none may cross a 4 KiB page of the file.
 * How many are fillers and enhanced packets, for whoever asks.
 */
static void walk_pages(int *fillers, int *packets)
{
	uint32_t type, total;
	size_t size, at;
	uint8_t *file;
	FILE *f = fopen(path, "rb");

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	size = (size_t)ftell(f);
	rewind(f);
	file = malloc(size);
	assert_non_null(file);
	assert_int_equal(fread(file, 1, size, f), size);
	fclose(f);
	for (at = 0; at < size; at += total) {
		memcpy(&type, file + at, 4);
		memcpy(&total, file + at + 4, 4);
		assert_true(total >= 12 && at + total <= size);
		if (at / 4096 != (at + total - 1) / 4096)
			fail_msg("a block of type 0x%x at offset %zu (%u bytes) crosses a page", type, at,
				 total);
		if (fillers)
			*fillers += type == 0x80000d1bu;
		if (packets)
			*packets += type == PCAPNG_BT_EPB;
	}
	free(file);
}

/* A packet of id on interface iface of w (one MAD, the id's own length of comment). */
static void write_on(struct pcapng_writer *w, int iface, uint64_t id)
{
	struct ib_packet_ends ends = { .outbound = 1, .local_lid = 1 };
	uint8_t mad[MAD_SIZE], pkt[IB_MAD_PACKET_MAX];
	struct ib_user_mad hdr;
	char comment[160];
	int n;

	dr_get_nodeinfo(mad, &hdr);
	n = ib_packet_build(pkt, sizeof(pkt), &hdr, mad, sizeof(mad), &ends);
	/* Comments of varying length, so that blocks end everywhere in a page. */
	snprintf(comment, sizeof(comment), "agent=0 status=0 %.*s", (int)(id % 101),
		 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
		 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	assert_int_equal(pcapng_write_ib(w, iface, 1700000000000000000ull + id, PCAPNG_DIR_OUTBOUND,
					 pkt, (size_t)n, comment, id), 0);
}

/*
 * Two writers of one file taking turns (as two processes do, or the
 * preload shim and the tap): each turn of one after the other's begins a
 * section of its own, with its interfaces again under the same ids; no
 * block crosses a page; every packet is read once, on its own interface.
 */
#define TURNS_IDS 3000
static void test_writers_take_turns(void **state)
{
	static uint8_t seen[2 * TURNS_IDS + 1];
	struct pcapng_writer *one, *two;
	struct capture_record rec;
	struct capture_reader *r;
	struct umad_err err = UMAD_ERR_INIT;
	unsigned long sections = 0;
	uint64_t writer_one = 0, writer_two = 0, i;
	int got, records = 0;

	(void)state;
	memset(seen, 0, sizeof(seen));
	one = pcapng_append(path, "one", &err_text);
	assert_non_null(one);
	two = pcapng_append(path, "two", &err_text);
	assert_non_null(two);
	pcapng_set_batching(one, 1);
	pcapng_set_batching(two, 1);
	assert_int_equal(pcapng_add_interface(one, "one:1", NULL), 0);
	assert_int_equal(pcapng_add_interface(two, "two:1", NULL), 0);
	assert_int_equal(pcapng_add_interface(two, "two:2", NULL), 1);
	for (i = 1; i <= TURNS_IDS; i++) {
		write_on(one, 0, i);
		write_on(two, (int)(i % 2), TURNS_IDS + i);
		/* Turns of different lengths: flushes, and batches filled to their boundary. */
		if (i % 97 == 0)
			assert_int_equal(pcapng_flush(i % 2 ? one : two), 0);
	}
	assert_int_equal(pcapng_close(two), 0);
	assert_int_equal(pcapng_close(one), 0);

	r = capture_open(path, &err);
	assert_non_null(r);
	while ((got = capture_next(r, &rec, &err)) == 1) {
		int of_one = rec.packet_id <= TURNS_IDS;

		assert_true(rec.packet_id >= 1 && rec.packet_id <= 2 * TURNS_IDS);
		assert_int_equal(seen[rec.packet_id]++, 0);
		if (rec.section != sections)
			sections = rec.section;
		if (!*(of_one ? &writer_one : &writer_two))
			*(of_one ? &writer_one : &writer_two) = rec.writer;
		assert_true(rec.writer == (of_one ? writer_one : writer_two));
		if (of_one)
			assert_string_equal(rec.iface_name, "one:1");
		else
			assert_string_equal(rec.iface_name, rec.packet_id % 2 ? "two:2" : "two:1");
		records++;
	}
	if (got < 0)
		fail_msg("%s", umad_err_text(&err));
	capture_close(r);
	assert_int_equal(records, 2 * TURNS_IDS);
	assert_true(writer_one != writer_two);
	assert_true(sections > 4);

	walk_pages(NULL, NULL);
}

/*
 * Appended to, a file keeps what it holds and gets a section more; what
 * is not a whole capture of ours is refused and left as it was.
 */
static void test_append_refuses_what_it_cannot_extend(void **state)
{
	struct pcapng_writer *w;
	struct stat st;
	off_t size;
	FILE *f;

	(void)state;
	w = pcapng_append(path, "first", &err_text);
	assert_non_null(w);
	assert_int_equal(pcapng_add_interface(w, "mlx5_0:1", NULL), 0);
	write_one(w, 1);
	assert_int_equal(pcapng_close(w), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	size = st.st_size;
	w = pcapng_append(path, "second", &err_text);
	assert_non_null(w);
	assert_int_equal(pcapng_close(w), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size > size);
	size = st.st_size;

	/* Cut short by four bytes: not a whole block at the end. */
	assert_int_equal(truncate(path, size - 4), 0);
	w = pcapng_append(path, "third", &err_text);
	assert_null(w);
	assert_int_equal(errno, EBADMSG);
	assert_non_null(strstr(umad_err_text(&err_text), "does not end with a whole pcapng block"));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, size - 4);

	/* Classic pcap, and the other byte order: never appended to. */
	f = fopen(path, "wb");
	assert_non_null(f);
	/* A whole classic header: magic, version 2.4, zone, sigfigs, snap length, ERF. */
	fwrite("\xd4\xc3\xb2\xa1\x02\x00\x04\x00\0\0\0\0\0\0\0\0\0\0\x04\0\xc5\0\0\0", 1, 24,
	       f);
	fclose(f);
	assert_null(pcapng_append(path, "fourth", &err_text));
	assert_int_equal(errno, EEXIST);
	assert_non_null(strstr(umad_err_text(&err_text), "a classic pcap file, not pcapng"));
	f = fopen(path, "wb");
	assert_non_null(f);
	fwrite("\x0a\x0d\x0d\x0a\x00\x00\x00\x1c\x1a\x2b\x3c\x4d", 1, 12, f);
	fclose(f);
	assert_null(pcapng_append(path, "fifth", &err_text));
	assert_non_null(strstr(umad_err_text(&err_text), "a pcapng file in the other byte order"));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 12);
}

/* %p and %% in capture file names. */
static void test_file_names(void **state)
{
	char out[32], longer[600];

	(void)state;
	assert_int_equal(capture_file_name("cap-%p.pcapng", 4242, out, sizeof(out)), 0);
	assert_string_equal(out, "cap-4242.pcapng");
	assert_int_equal(capture_file_name("%p%p", 7, out, sizeof(out)), 0);
	assert_string_equal(out, "77");
	assert_int_equal(capture_file_name("100%%-%x-%", 1, out, sizeof(out)), 0);
	assert_string_equal(out, "100%-%x-%");
	assert_int_equal(capture_file_name("plain", 1, out, sizeof(out)), 0);
	assert_string_equal(out, "plain");
	/* Exactly full, one too many, and a pid that no longer fits. */
	assert_int_equal(capture_file_name("0123456789012345678901234567890", 1, out, sizeof(out)), 0);
	assert_int_equal(capture_file_name("01234567890123456789012345678901", 1, out, sizeof(out)),
			 -ENAMETOOLONG);
	assert_int_equal(capture_file_name("012345678901234567890123456%p", 123456, out, sizeof(out)),
			 -ENAMETOOLONG);
	memset(longer, 'x', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	assert_int_equal(capture_file_name(longer, 1, out, sizeof(out)), -ENAMETOOLONG);
	assert_int_equal(capture_file_name("", 1, out, 1), 0);
	assert_string_equal(out, "");
}

static void test_writes_end_aligned(void **state)
{
	struct capture_reader *r;
	struct capture_record rec;
	struct pcapng_writer *w;
	struct umad_err err = UMAD_ERR_INIT;
	uint64_t id = 0, size, header;
	int i, got, records = 0;

	(void)state;
	w = pcapng_create(path, "libumad test", &err_text);
	assert_non_null(w);
	header = file_size();		/* the section header, written at once */
	pcapng_set_batching(w, 1);
	assert_int_equal(pcapng_add_interface(w, "mlx5_0:1", "test port"), 0);
	/* Up to the first boundary. */
	while ((size = file_size()) == header)
		write_one(w, ++id);
	assert_int_equal(size, 256 * 1024);
	/* One record gathered past it: no multiple of 64 KiB to stop at. */
	assert_int_equal(pcapng_flush_aligned(w), 0);
	assert_int_equal(file_size(), size);
	assert_int_equal(pcapng_flush(w), 0);
	assert_true(file_size() > size && file_size() % (64 * 1024) != 0);
	/* Well past the next multiple of 64 KiB. */
	for (i = 0; i < 400; i++) {
		write_one(w, ++id);
		size = file_size();
		assert_true(size % (256 * 1024) == 0 || size < 512 * 1024);
	}
	size = file_size();
	assert_int_equal(pcapng_flush_aligned(w), 0);
	assert_true(file_size() > size);
	assert_int_equal(file_size() % (64 * 1024), 0);
	assert_int_equal(pcapng_close(w), 0);

	r = capture_open(path, &err);
	assert_non_null(r);
	while ((got = capture_next(r, &rec, &err)) == 1)
		assert_int_equal(rec.packet_id, (uint64_t)++records);
	assert_int_equal(got, 0);
	capture_close(r);
	assert_int_equal(records, (int)id);
}

/*
 * Many records with batching on: no block crosses a 4 KiB page of the file
 * (so a write killed between pages still ends on a block), the gaps are
 * filler blocks, and libpcap, tshark and our reader see every record.
 */
static void test_no_block_crosses_a_page(void **state)
{
	struct ib_packet_ends ends = { .outbound = 1, .local_lid = 1 };
	uint8_t mad[MAD_SIZE], pkt[IB_MAD_PACKET_MAX];
	char err[PCAP_ERRBUF_SIZE], cmd[256], comment[200];
	struct umad_err why = UMAD_ERR_INIT;
	struct capture_record rec;
	struct capture_reader *r;
	struct pcap_pkthdr *ph;
	const u_char *data;
	struct pcapng_writer *w;
	struct ib_user_mad hdr;
	int i, n, fillers = 0, records = 0;
	FILE *f;
	pcap_t *p;

	(void)state;
	w = pcapng_create(path, "libumad test", &err_text);
	assert_non_null(w);
	assert_int_equal(pcapng_add_interface(w, "mlx5_0:1", "test port"), 0);
	pcapng_set_batching(w, 1);
	dr_get_nodeinfo(mad, &hdr);
	n = ib_packet_build(pkt, sizeof(pkt), &hdr, mad, sizeof(mad), &ends);
	for (i = 0; i < 2000; i++) {
		/* Comments of varying length, so that blocks end everywhere in a page. */
		snprintf(comment, sizeof(comment), "record=%d%.*s", i, i % 97, "xxxxxxxxxxxxxxxx"
			 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
		assert_int_equal(pcapng_write_ib(w, 0, 1700000000000000000ull + (uint64_t)i,
						 PCAPNG_DIR_OUTBOUND, pkt, (size_t)n, comment,
						 (uint64_t)i + 1), 0);
	}
	assert_int_equal(pcapng_close(w), 0);

	walk_pages(&fillers, &records);
	assert_int_equal(records, 2000);
	assert_true(fillers > 100);	/* about one a page */

	p = pcap_open_offline(path, err);
	if (!p)
		fail_msg("libpcap: %s", err);
	n = 0;
	while ((i = pcap_next_ex(p, &ph, &data)) == 1)
		n++;
	assert_int_equal(i, PCAP_ERROR_BREAK);
	pcap_close(p);
	assert_int_equal(n, 2000);

	r = capture_open(path, &why);
	if (!r)
		fail_msg("%s", umad_err_text(&why));
	n = 0;
	while ((i = capture_next(r, &rec, &why)) == 1)
		assert_int_equal(rec.packet_id, (uint64_t)++n);
	assert_int_equal(i, 0);
	capture_close(r);
	assert_int_equal(n, 2000);

	if (access("/usr/bin/tshark", X_OK) == 0) {
		snprintf(cmd, sizeof(cmd), "tshark -r %s 2>&1 | grep -c 'SubnGet(NodeInfo)'", path);
		f = popen(cmd, "r");
		assert_non_null(f);
		assert_non_null(fgets(comment, sizeof(comment), f));
		assert_int_equal(pclose(f), 0);
		assert_int_equal(atoi(comment), 2000);
	}
}

static void test_reader_round_trip(void **state)
{
	struct capture_record rec;
	struct capture_reader *r;
	struct umad_err err = UMAD_ERR_INIT;
	int n = 0;

	(void)state;
	write_sample();
	r = capture_open(path, &err);
	if (!r)
		fail_msg("%s", umad_err_text(&err));
	while (capture_next(r, &rec, &err) == 1) {
		assert_string_equal(rec.iface_name, "mlx5_0:1");
		assert_int_equal(rec.len, 290);
		assert_int_equal(rec.packet[LRH_OFF_VL], n == 2 ? 0x00 : 0xf0);	/* VL0 for the GMP */
		assert_int_equal(rec.direction, n == 1 ? PCAPNG_DIR_INBOUND : PCAPNG_DIR_OUTBOUND);
		assert_int_equal(rec.packet_id, n < 2 ? 1 : 0);
		assert_true(rec.ts_ns == 1700000000000000000ull + (uint64_t)n * 1000000u);
		assert_non_null(strstr(rec.comment, n == 2 ? "agent=1" : "agent=0"));
		n++;
	}
	capture_close(r);
	assert_int_equal(n, 3);
}

/* Little-endian words of a hand-made pcapng. */
static size_t put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
	return 4;
}

/*
 * A packet block whose captured length is near 2^32 (the bounds check
 * summed it with the header and wrapped): refused, and nothing past the
 * block is ever handed out.  One within the block but short of the
 * packet's original length is refused too, as cut.
 */
static void test_reader_huge_captured_length(void **state)
{
	static const uint32_t caplens[] = { 0xfffffff0u, 0xffffffecu, 0xffffffffu, 33, 32, 24 };
	uint8_t file[256];
	struct capture_record rec;
	struct capture_reader *r;
	struct umad_err err = UMAD_ERR_INIT;
	size_t i, n, k;
	FILE *f;
	int got;

	(void)state;
	for (i = 0; i < sizeof(caplens) / sizeof(caplens[0]); i++) {
		memset(file, 0, sizeof(file));
		n = put_le32(file, 0x0a0d0d0a);		/* section header */
		n += put_le32(file + n, 28);
		n += put_le32(file + n, 0x1a2b3c4d);
		n += put_le32(file + n, 1);		/* version 1.0 */
		n += put_le32(file + n, 0xffffffffu);	/* section length: unknown */
		n += put_le32(file + n, 0xffffffffu);
		n += put_le32(file + n, 28);
		n += put_le32(file + n, 1);		/* interface: ERF */
		n += put_le32(file + n, 20);
		n += put_le32(file + n, 197);
		n += put_le32(file + n, 0);
		n += put_le32(file + n, 20);
		n += put_le32(file + n, 6);		/* enhanced packet block of 64 bytes */
		n += put_le32(file + n, 64);
		n += put_le32(file + n, 0);		/* interface 0 */
		n += put_le32(file + n, 0);
		n += put_le32(file + n, 0);
		n += put_le32(file + n, caplens[i]);
		n += put_le32(file + n, 64);
		file[n + 8] = 21;			/* ERF type InfiniBand, wire length 0xffff */
		file[n + 14] = 0xff;
		file[n + 15] = 0xff;
		n += 32;
		n += put_le32(file + n, 64);
		f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(file, 1, n, f), n);
		fclose(f);
		r = capture_open(path, &err);
		if (!r)
			fail_msg("%s", umad_err_text(&err));
		while ((got = capture_next(r, &rec, &err)) == 1) {
			unsigned sum = 0;

			/* Whatever comes back lies inside the 32 bytes the block holds. */
			assert_true(rec.len <= 32 - 16);
			for (k = 0; k < rec.len; k++)
				sum += rec.packet[k];
			assert_int_equal(sum, 0);
		}
		/* Past the block, or short of the 64 bytes the packet had: refused either way. */
		assert_int_equal(got, -EBADMSG);
		assert_non_null(strstr(umad_err_text(&err), caplens[i] > 32 ? "packet of" : "cut to"));
		capture_close(r);
	}
}

/* --- files that contradict themselves ------------------------------------- */

/* The sample written and read back into memory: SHB, IDB, three EPBs. */
static uint8_t sample[4096];
static size_t sample_size;

/* The first max bytes of file into out: how many. */
static size_t read_file(const char *file, uint8_t *out, size_t max)
{
	FILE *f = fopen(file, "rb");
	size_t n;

	assert_non_null(f);
	n = fread(out, 1, max, f);
	fclose(f);
	return n;
}

/* A word of the file, in the order the writer wrote it (ours). */
static uint32_t word_at(const uint8_t *file, size_t at)
{
	uint32_t v;

	memcpy(&v, file + at, 4);
	return v;
}

static void set_word(uint8_t *file, size_t at, uint32_t v)
{
	memcpy(file + at, &v, 4);
}

static void set_half(uint8_t *file, size_t at, uint16_t v)
{
	memcpy(file + at, &v, 2);
}

/* The offset of the nth (from 0) block of type in file. */
static size_t block_of(const uint8_t *file, size_t size, uint32_t type, int nth)
{
	size_t at;

	for (at = 0; at + 8 <= size; at += word_at(file, at + 4))
		if (word_at(file, at) == type && nth-- == 0)
			return at;
	fail_msg("no block %d of type 0x%x", nth, type);
	return 0;
}

/* Where things are in the sample: the EPB's fields, its ERF record, its IB packet. */
#define EPB_OFF_IFACE	8
#define EPB_OFF_CAPLEN	20
#define EPB_OFF_ORIGLEN	24
#define EPB_OFF_DATA	28
#define IDB_OFF_SNAPLEN	12
#define SHB_OFF_MAJOR	12

static size_t epb(uint8_t *file, size_t size, int nth)
{
	return block_of(file, size, PCAPNG_BT_EPB, nth);
}

static void only_section_header(uint8_t *f, size_t *size)
{
	*size = block_of(f, *size, PCAPNG_BT_IDB, 0);
}

static void no_packet(uint8_t *f, size_t *size)
{
	*size = epb(f, *size, 0);
}

static void version_2(uint8_t *f, size_t *size)
{
	(void)size;
	set_half(f, SHB_OFF_MAJOR, 2);
}

static void snaplen_below_packets(uint8_t *f, size_t *size)
{
	set_word(f, block_of(f, *size, PCAPNG_BT_IDB, 0) + IDB_OFF_SNAPLEN, 100);
}

static void cut_by_snaplen(uint8_t *f, size_t *size)
{
	size_t at = epb(f, *size, 1);

	set_word(f, at + EPB_OFF_ORIGLEN, word_at(f, at + EPB_OFF_ORIGLEN) + 100);
}

static void longer_than_original(uint8_t *f, size_t *size)
{
	size_t at = epb(f, *size, 1);

	set_word(f, at + EPB_OFF_ORIGLEN, word_at(f, at + EPB_OFF_ORIGLEN) - 4);
}

static void no_interface_before(uint8_t *f, size_t *size)
{
	set_word(f, block_of(f, *size, PCAPNG_BT_IDB, 0), 0xbad);	/* a block no one knows */
}

static void undescribed_interface(uint8_t *f, size_t *size)
{
	set_word(f, epb(f, *size, 1) + EPB_OFF_IFACE, 5);
}

static void erf_ethernet(uint8_t *f, size_t *size)
{
	f[epb(f, *size, 0) + EPB_OFF_DATA + ERF_OFF_TYPE] = ERF_TYPE_ETH;
}

static void erf_record_length(uint8_t *f, size_t *size)
{
	put_be16(f + epb(f, *size, 1) + EPB_OFF_DATA + ERF_OFF_RLEN, 100);
}

static void erf_wire_length_zero(uint8_t *f, size_t *size)
{
	put_be16(f + epb(f, *size, 0) + EPB_OFF_DATA + ERF_OFF_WLEN, 0);
}

static void erf_wire_length_over(uint8_t *f, size_t *size)
{
	put_be16(f + epb(f, *size, 0) + EPB_OFF_DATA + ERF_OFF_WLEN, 300);
}

static void lrh_too_long(uint8_t *f, size_t *size)
{
	put_be16(f + epb(f, *size, 2) + EPB_OFF_DATA + ERF_HDR_LEN + LRH_OFF_PKTLEN,
		 LRH_PKTLEN_MAX);
}

static void option_past_block(uint8_t *f, size_t *size)
{
	size_t at = epb(f, *size, 0) + EPB_OFF_DATA + word_at(f, epb(f, *size, 0) + EPB_OFF_CAPLEN);

	at = (at + 3) & ~(size_t)3;	/* the first option: epb_flags */
	set_half(f, at + 2, 0x7fff);
}

static void link_records_only(uint8_t *f, size_t *size)
{
	int i;

	for (i = 0; i < 3; i++)
		f[epb(f, *size, i) + EPB_OFF_DATA + ERF_OFF_TYPE] = ERF_TYPE_INFINIBAND_LINK;
}

static void rc_traffic_only(uint8_t *f, size_t *size)
{
	int i;

	for (i = 0; i < 3; i++)
		f[epb(f, *size, i) + EPB_OFF_DATA + ERF_HDR_LEN + IB_LRH_LEN + BTH_OFF_OPCODE] = 0x04;
}

/*
 * Read file (size bytes) at path: the MADs; the error in err, or at the end
 * why there is no MAD ("" when there are some).
 */
static int mads_of(const uint8_t *file, size_t size, struct umad_err *err, int *got)
{
	struct capture_record rec;
	struct capture_reader *r;
	size_t mad_len;
	int n = 0;
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(file, 1, size, f), size);
	fclose(f);
	r = capture_open(path, err);
	if (!r) {
		*got = -1;	/* not opened */
		return 0;
	}
	while ((*got = capture_next(r, &rec, err)) == 1)
		n += capture_mad(&rec, &mad_len) != NULL;
	if (*got == 0 && !capture_why_no_mad(r, err))
		umad_err_clear(err);
	capture_close(r);
	return n;
}

/* How each is refused, by the reader and by "umad capture stats" (exit status 1). */
static const struct {
	const char *name;
	void (*spoil)(uint8_t *file, size_t *size);
	int mads;		/* handed out before it */
	const char *says;	/* in the error, or in why there is no MAD */
} spoiled[] = {
	{ "only a section header", only_section_header, 0, "no interface block" },
	{ "no packet", no_packet, 0, ": no packet was captured" },
	{ "version 2.0", version_2, 0, "offset 0: pcapng version 2.0" },
	{ "snap length 100", snaplen_below_packets, 0,
	  "packet 1: 306 bytes captured, more than the snap length (100)" },
	{ "cut short", cut_by_snaplen, 1, "packet 2: cut to 306 of its 406 bytes" },
	{ "captured over original", longer_than_original, 1,
	  "packet 2: 306 bytes captured of a packet of 302" },
	{ "no interface block before", no_interface_before, 0,
	  "packet 1: packet on interface 0, which no interface block described" },
	{ "undescribed interface", undescribed_interface, 1,
	  "packet 2: packet on interface 5, which no interface block described" },
	{ "ERF Ethernet", erf_ethernet, 0, "packet 1: an ERF record of type 2 (Ethernet), not InfiniBand" },
	{ "ERF record length", erf_record_length, 1,
	  "packet 2: the ERF record length 100 disagrees with the 306 bytes captured" },
	{ "ERF wire length 0", erf_wire_length_zero, 0,
	  "packet 1: the ERF wire length 0 disagrees with the 290 bytes" },
	{ "ERF wire length over", erf_wire_length_over, 0,
	  "packet 1: the ERF record holds 290 bytes of a 300-byte packet" },
	{ "LRH PktLen", lrh_too_long, 2, "packet 3: the LRH gives the packet 8188 bytes" },
	{ "option past its block", option_past_block, 0,
	  "packet 1: option 2 of 32767 bytes runs past the end of its block" },
	{ "link records", link_records_only, 0, "none of its 3 packets is a MAD (3 InfiniBand link" },
	{ "RC traffic", rc_traffic_only, 0,
	  "none of its 3 packets is a MAD (3 InfiniBand packets not UD to or from QP0 or QP1)" },
};

/* "umad capture stats FILE": its exit status, its stderr in out. */
static int run_stats(const char *file, char *out, size_t size)
{
	char cmd[256];
	size_t n;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "%s capture stats %s 2>&1 >/dev/null", UMAD_CLI, file);
	p = popen(cmd, "r");
	assert_non_null(p);
	n = fread(out, 1, size - 1, p);
	out[n] = '\0';
	return pclose(p);
}

/*
 * Each way of spoiling a good capture is refused where it shows, naming the
 * file, the offset and the packet, after the records before it; a file with
 * no MAD says why; "umad capture stats" says the same and exits 1.
 */
static void test_reader_refuses_contradictions(void **state)
{
	static uint8_t file[4096];
	char out[1024];
	struct umad_err err = UMAD_ERR_INIT;
	size_t i, size;
	int got, n, status;
	FILE *f;

	(void)state;
	write_sample();
	sample_size = read_file(path, sample, sizeof(sample));
	for (i = 0; i < sizeof(spoiled) / sizeof(spoiled[0]); i++) {
		memcpy(file, sample, sample_size);
		size = sample_size;
		spoiled[i].spoil(file, &size);
		n = mads_of(file, size, &err, &got);
		if (got == 0 && !*umad_err_text(&err))
			fail_msg("%s: read as good, %d MADs", spoiled[i].name, n);
		if (n != spoiled[i].mads || !strstr(umad_err_text(&err), spoiled[i].says) ||
		    strncmp(umad_err_text(&err), path, strlen(path)))
			fail_msg("%s: %d MADs, then '%s'; expected %d, then '...%s'",
				 spoiled[i].name, n, umad_err_text(&err), spoiled[i].mads, spoiled[i].says);

		status = run_stats(path, out, sizeof(out));
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 1 || !strstr(out, spoiled[i].says))
			fail_msg("%s: umad capture stats exits %d, says '%s'", spoiled[i].name,
				 WIFEXITED(status) ? WEXITSTATUS(status) : -1, out);
	}
	/* The good one, for contrast. */
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(sample, 1, sample_size, f), sample_size);
	fclose(f);
	status = run_stats(path, out, sizeof(out));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("the good sample: umad capture stats exits %d, says '%s'",
			 WIFEXITED(status) ? WEXITSTATUS(status) : -1, out);
}

/*
 * The sample as classic pcap (as ibdump writes it): version major.4, snap
 * length snaplen, the second record's original length grown by cut.
 */
static size_t classic_sample(uint8_t *out, uint16_t major, uint32_t snaplen, uint32_t cut)
{
	size_t n = 0, at;
	int i;

	set_word(out, 0, PCAP_MAGIC_US);
	set_half(out, 4, major);
	set_half(out, 6, 4);
	set_word(out, 8, 0);
	set_word(out, 12, 0);
	set_word(out, 16, snaplen);
	set_word(out, 20, PCAPNG_LINKTYPE_ERF);
	n = PCAP_FILE_HEADER_LEN;
	for (i = 0; i < 3; i++) {
		uint32_t caplen;

		at = epb(sample, sample_size, i);
		caplen = word_at(sample, at + EPB_OFF_CAPLEN);
		set_word(out, n, 1700000000u);
		set_word(out, n + 4, (uint32_t)i);
		set_word(out, n + 8, caplen);
		set_word(out, n + 12, caplen + (i == 1 ? cut : 0));
		memcpy(out + n + PCAP_RECORD_HEADER_LEN, sample + at + EPB_OFF_DATA, caplen);
		n += PCAP_RECORD_HEADER_LEN + caplen;
	}
	return n;
}

/*
 * Classic pcap: version 2.4 with a snap length over the packets (or none)
 * reads; another major version, a snap length under the packets and a
 * record cut short are refused, naming the packet.
 */
static void test_reader_classic_contradictions(void **state)
{
	static uint8_t file[4096];
	struct umad_err err = UMAD_ERR_INIT;
	int got;

	(void)state;
	write_sample();
	sample_size = read_file(path, sample, sizeof(sample));
	assert_int_equal(mads_of(file, classic_sample(file, 2, 0xffff, 0), &err, &got),
			 3);
	assert_int_equal(got, 0);
	assert_int_equal(mads_of(file, classic_sample(file, 2, 0, 0), &err, &got), 3);
	assert_int_equal(got, 0);

	assert_int_equal(mads_of(file, classic_sample(file, 3, 0xffff, 0), &err, &got),
			 0);
	assert_int_equal(got, -1);
	assert_non_null(strstr(umad_err_text(&err), ": offset 0: pcap version 3.4"));
	assert_int_equal(mads_of(file, classic_sample(file, 2, 200, 0), &err, &got), 0);
	assert_int_equal(got, -EBADMSG);
	assert_non_null(strstr(umad_err_text(&err), ": offset 24: packet 1: 306 bytes captured, more than the snap "
			       "length (200)"));
	assert_int_equal(mads_of(file, classic_sample(file, 2, 0xffff, 50), &err, &got),
			 1);
	assert_int_equal(got, -EBADMSG);
	assert_non_null(strstr(umad_err_text(&err), ": offset 346: packet 2: cut to 306 of its 356 bytes"));
}

/*
 * Simple packet blocks (no interface id, no options) and the obsolete
 * packet blocks (a 16-bit interface id) are read as the enhanced ones:
 * skipping them lost their MADs.
 */
static void test_reader_other_packet_blocks(void **state)
{
	static const char *const comments[] = { "agent=0 status=0", "", "agent=1 status=0" };
	static uint8_t file[4096];
	struct capture_record rec;
	struct capture_reader *r;
	size_t at, caplen, n, spb;
	struct umad_err err = UMAD_ERR_INIT;
	int got, i = 0;

	(void)state;
	write_sample();
	sample_size = read_file(path, sample, sizeof(sample));
	/* The first EPB made obsolete: the same layout, an id of 16 bits and 16 of drops. */
	memcpy(file, sample, sample_size);
	at = epb(file, sample_size, 0);
	set_word(file, at, PCAPNG_BT_PB);
	set_half(file, at + EPB_OFF_IFACE, 0);
	set_half(file, at + EPB_OFF_IFACE + 2, 0);
	assert_int_equal(mads_of(file, sample_size, &err, &got), 3);
	assert_int_equal(got, 0);
	/* The second one simple: original length, then the data, padded. */
	at = epb(sample, sample_size, 1);
	caplen = word_at(sample, at + EPB_OFF_CAPLEN);
	memcpy(file, sample, at);
	spb = 16 + ((caplen + 3) & ~(size_t)3);
	set_word(file, at, PCAPNG_BT_SPB);
	set_word(file, at + 4, (uint32_t)spb);
	set_word(file, at + 8, (uint32_t)caplen);
	memset(file + at + 12, 0, spb - 16);
	memcpy(file + at + 12, sample + at + EPB_OFF_DATA, caplen);
	set_word(file, at + spb - 4, (uint32_t)spb);
	n = at + spb;
	at += word_at(sample, at + 4);
	memcpy(file + n, sample + at, sample_size - at);
	n += sample_size - at;
	assert_int_equal(mads_of(file, n, &err, &got), 3);
	assert_int_equal(got, 0);
	r = capture_open(path, &err);
	assert_non_null(r);
	while (capture_next(r, &rec, &err) == 1) {
		assert_int_equal(rec.len, 290);
		assert_int_equal(rec.iface, 0);
		assert_string_equal(rec.comment, comments[i]);
		i++;
	}
	capture_close(r);
	assert_int_equal(i, 3);
}

/* Every truncation and many corruptions of a good file: an error or the end, never a crash. */
static void test_reader_bad_input(void **state)
{
	uint8_t good[4096], bad[4096];
	struct capture_record rec;
	struct capture_reader *r;
	char bad_path[80];
	struct umad_err err = UMAD_ERR_INIT;
	size_t size, cut, i;
	unsigned seed = 12345;
	FILE *f;
	int got, errors = 0;

	(void)state;
	write_sample();
	f = fopen(path, "rb");
	assert_non_null(f);
	size = fread(good, 1, sizeof(good), f);
	fclose(f);
	snprintf(bad_path, sizeof(bad_path), "%s.bad", path);
	for (i = 0; i < size + 2000; i++) {
		memcpy(bad, good, size);
		cut = size;
		if (i < size) {
			cut = i;	/* truncated after i bytes */
		} else {
			int k;

			for (k = 0; k < 4; k++) {	/* a few random bytes changed */
				seed = seed * 1103515245u + 12345u;
				bad[(seed >> 8) % size] = (uint8_t)(seed >> 20);
			}
		}
		f = fopen(bad_path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(bad, 1, cut, f), cut);
		fclose(f);
		umad_err_clear(&err);
		r = capture_open(bad_path, &err);
		if (!r) {
			assert_non_null(strstr(umad_err_text(&err), bad_path));
			errors++;
			continue;
		}
		while ((got = capture_next(r, &rec, &err)) == 1)
			assert_true(rec.len <= 4096);
		if (got < 0) {
			assert_non_null(strstr(umad_err_text(&err), ": offset "));
			errors++;
		}
		capture_close(r);
	}
	unlink(bad_path);
	assert_true(errors > 0);
}

/* The whole of a file, its size in *size (freed by the caller). */
static uint8_t *read_whole(const char *file, size_t *size)
{
	struct stat st;
	uint8_t *bytes;
	FILE *f = fopen(file, "rb");

	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &st), 0);
	*size = (size_t)st.st_size;
	bytes = malloc(*size ? *size : 1);
	assert_non_null(bytes);
	assert_int_equal(fread(bytes, 1, *size, f), *size);
	fclose(f);
	return bytes;
}

/* What a record said, kept to compare two readings of one capture. */
struct seen {
	uint64_t packet_id, packet_at;
	size_t len;
	unsigned sum;
	int direction;
	char comment[64];
};

/* Every record of path (the last's error in err): their number, at most max kept in seen. */
static int read_records(const char *file, struct seen *seen, int max, struct umad_err *err,
			int *got)
{
	struct capture_record rec;
	struct capture_reader *r = capture_open(file, err);
	int n = 0;
	size_t k;

	if (!r)
		fail_msg("%s", umad_err_text(err));
	while ((*got = capture_next(r, &rec, err)) == 1) {
		assert_true(n < max);
		seen[n].packet_id = rec.packet_id;
		seen[n].packet_at = rec.packet_at;
		seen[n].len = rec.len;
		seen[n].direction = rec.direction;
		seen[n].sum = 0;
		for (k = 0; k < rec.len; k++)
			seen[n].sum = seen[n].sum * 31 + rec.packet[k];
		snprintf(seen[n].comment, sizeof(seen[n].comment), "%s", rec.comment);
		n++;
	}
	capture_close(r);
	return n;
}

/* A child writing bytes into a pipe in pieces of 'piece' bytes; the read end's name in name. */
static pid_t feed_pipe(const uint8_t *bytes, size_t size, size_t piece, char *name, size_t max,
		       int *read_end)
{
	int fds[2];
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		size_t at = 0;

		close(fds[0]);
		while (at < size) {
			size_t n = size - at < piece ? size - at : piece;
			ssize_t put = write(fds[1], bytes + at, n);

			if (put <= 0)
				_exit(1);
			at += (size_t)put;
		}
		_exit(0);
	}
	close(fds[1]);
	*read_end = fds[0];
	snprintf(name, max, "/proc/self/fd/%d", fds[0]);
	return pid;
}

/*
 * Enough records to fill the reader's buffer several times, and a block
 * larger than the buffer among them: the file read directly and the same
 * bytes read from a pipe in odd pieces give the same records, each packet
 * lies in the file at its packet_at, and a descriptor of the file (not of
 * the pipe) reads it back there.
 */
/*
 * A capture of records MADs at path, with a block of a type no reader knows,
 * big bytes long (larger than the reader's buffer), spliced in before the
 * first packet: its bytes (*size of them, the caller frees them) and where
 * the first packet block is (*first_epb).
 */
static uint8_t *write_spliced(int records, uint32_t big, size_t *size_out, size_t *first_epb_out)
{
	struct ib_packet_ends ends = { .outbound = 1, .local_lid = 1 };
	uint8_t mad[MAD_SIZE], pkt[IB_MAD_PACKET_MAX], *bytes, *spliced;
	struct pcapng_writer *w;
	struct ib_user_mad hdr;
	size_t size, at, first_epb = 0;
	uint32_t type, total;
	char comment[64];
	int i, n, fd;

	unlink(path);
	w = pcapng_create(path, "libumad test", &err_text);
	assert_non_null(w);
	assert_int_equal(pcapng_add_interface(w, "mlx5_0:1", "test port"), 0);
	dr_get_nodeinfo(mad, &hdr);
	for (i = 0; i < records; i++) {
		put_be64(mad + MAD_OFF_TID, (uint64_t)i);
		ends.outbound = i % 2 == 0;
		n = ib_packet_build(pkt, sizeof(pkt), &hdr, mad, sizeof(mad), &ends);
		/* Comments of varying length: blocks end anywhere in the buffer. */
		snprintf(comment, sizeof(comment), "agent=%d%.*s", i, i % 23, " status=0 retries=0 qpn=0");
		assert_int_equal(pcapng_write_ib(w, 0, 1700000000000000000ull + (uint64_t)i,
						 i % 2 ? PCAPNG_DIR_INBOUND : PCAPNG_DIR_OUTBOUND, pkt,
						 (size_t)n, comment, (uint64_t)i + 1), 0);
	}
	assert_int_equal(pcapng_close(w), 0);

	/* A block of a type no reader knows, larger than the buffer, before the first packet. */
	bytes = read_whole(path, &size);
	for (at = 0; at + 8 <= size; at += total) {
		memcpy(&type, bytes + at, 4);
		memcpy(&total, bytes + at + 4, 4);
		assert_true(total >= 12);
		if (type == 6) {
			first_epb = at;
			break;
		}
	}
	assert_true(first_epb > 0);
	spliced = calloc(1, size + big);
	assert_non_null(spliced);
	memcpy(spliced, bytes, first_epb);
	type = 0x00000bad;
	total = big;
	memcpy(spliced + first_epb, &type, 4);
	memcpy(spliced + first_epb + 4, &total, 4);
	memcpy(spliced + first_epb + big - 4, &total, 4);
	memcpy(spliced + first_epb + big, bytes + first_epb, size - first_epb);
	free(bytes);
	size += big;
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, spliced, size), (ssize_t)size);
	close(fd);

	*size_out = size;
	*first_epb_out = first_epb;
	return spliced;
}

static void test_reader_file_and_stream(void **state)
{
	enum { RECORDS = 4000, BIG = 700 * 1024 };
	static struct seen from_file[RECORDS], from_pipe[RECORDS];
	uint8_t back[IB_MAD_PACKET_MAX], *spliced;
	struct umad_err err = UMAD_ERR_INIT;
	struct capture_record rec;
	struct capture_reader *r;
	size_t size, first_epb;
	int i, n, got, fd, status;
	char name[64];
	pid_t pid;

	(void)state;
	spliced = write_spliced(RECORDS, BIG, &size, &first_epb);

	n = read_records(path, from_file, RECORDS, &err, &got);
	assert_int_equal(got, 0);
	assert_int_equal(n, RECORDS);
	for (i = 0; i < RECORDS; i++) {
		assert_int_equal(from_file[i].packet_id, (uint64_t)i + 1);
		assert_int_equal(from_file[i].len, 290);
		assert_true(from_file[i].packet_at + from_file[i].len <= size);
		assert_int_equal(from_file[i].direction,
				 i % 2 ? PCAPNG_DIR_INBOUND : PCAPNG_DIR_OUTBOUND);
		assert_int_equal(strncmp(from_file[i].comment, "agent=", 6), 0);
		assert_int_equal(atoi(from_file[i].comment + 6), i);
	}
	/* The packet is where packet_at says, in the file and through capture_reopen(). */
	r = capture_open(path, &err);
	if (!r)
		fail_msg("%s", umad_err_text(&err));
	fd = capture_reopen(r);
	assert_true(fd >= 0);
	i = 0;
	while (capture_next(r, &rec, &err) == 1) {
		assert_memory_equal(spliced + rec.packet_at, rec.packet, rec.len);
		if (i++ % 97 == 0) {
			assert_int_equal(pread(fd, back, rec.len, (off_t)rec.packet_at),
					 (ssize_t)rec.len);
			assert_memory_equal(back, rec.packet, rec.len);
		}
	}
	close(fd);
	capture_close(r);

	/* The same bytes from a pipe, written in pieces that split blocks anywhere. */
	pid = feed_pipe(spliced, size, 4093, name, sizeof(name), &fd);
	r = capture_open(name, &err);
	if (!r)
		fail_msg("%s", umad_err_text(&err));
	assert_int_equal(capture_reopen(r), -ESPIPE);
	capture_close(r);
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);

	pid = feed_pipe(spliced, size, 4093, name, sizeof(name), &fd);
	n = read_records(name, from_pipe, RECORDS, &err, &got);
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(got, 0);
	assert_int_equal(n, RECORDS);
	for (i = 0; i < RECORDS; i++) {
		assert_int_equal(from_pipe[i].packet_id, from_file[i].packet_id);
		assert_int_equal(from_pipe[i].packet_at, from_file[i].packet_at);
		assert_int_equal(from_pipe[i].len, from_file[i].len);
		assert_int_equal(from_pipe[i].sum, from_file[i].sum);
		assert_string_equal(from_pipe[i].comment, from_file[i].comment);
	}

	/* Cut inside the big block, from a pipe: no record, then the error. */
	pid = feed_pipe(spliced, first_epb + BIG / 2, 65536, name, sizeof(name), &fd);
	n = read_records(name, from_pipe, RECORDS, &err, &got);
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(n, 0);
	assert_int_equal(got, -EBADMSG);
	assert_non_null(strstr(umad_err_text(&err), "truncated block"));
	free(spliced);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reference_vector),
		cmocka_unit_test(test_reference_vector_without_folding),
		cmocka_unit_test(test_crc_engines),
		cmocka_unit_test(test_variant_fields_do_not_change_icrc),
		cmocka_unit_test(test_gmp_inbound_with_grh),
		cmocka_unit_test(test_sizes),
		cmocka_unit_test_setup_teardown(test_libpcap_reads_it, make_path, remove_path),
		cmocka_unit_test_setup_teardown(test_tshark_decodes_it, make_path, remove_path),
		cmocka_unit_test_setup_teardown(test_no_block_crosses_a_page, make_path, remove_path),
		cmocka_unit_test_setup_teardown(test_writes_end_aligned, make_path, remove_path),
		cmocka_unit_test_setup_teardown(test_existing_files_are_replaced, make_path,
						remove_path),
		cmocka_unit_test_setup_teardown(test_file_in_use_is_kept, make_path, remove_path),
		cmocka_unit_test_setup_teardown(test_writers_take_turns, make_path, remove_path),
		cmocka_unit_test_setup_teardown(test_append_refuses_what_it_cannot_extend, make_path,
						remove_path),
		cmocka_unit_test(test_capture_file_is_private),
		cmocka_unit_test(test_file_names),
		cmocka_unit_test_setup_teardown(test_reader_round_trip, make_path, remove_path),
		cmocka_unit_test_setup_teardown(test_reader_bad_input, make_path, remove_path),
		cmocka_unit_test_setup_teardown(test_reader_refuses_contradictions, make_path,
						remove_path),
		cmocka_unit_test_setup_teardown(test_reader_classic_contradictions, make_path,
						remove_path),
		cmocka_unit_test_setup_teardown(test_reader_other_packet_blocks, make_path,
						remove_path),
		cmocka_unit_test_setup_teardown(test_reader_huge_captured_length, make_path,
						remove_path),
		cmocka_unit_test_setup_teardown(test_reader_file_and_stream, make_path, remove_path),
	};

	return cmocka_run_group_tests_name("capture format", tests, NULL, NULL);
}
