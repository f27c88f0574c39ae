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
static char err_text[256];	/* why pcapng_create() refused */

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

	w = pcapng_create(path, "libumad test", err_text, sizeof(err_text));
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
	w = pcapng_create(path, "libumad test", err_text, sizeof(err_text));
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
	w = pcapng_create(sym_path, "libumad test", err_text, sizeof(err_text));
	assert_null(w);
	assert_non_null(strstr(err_text, "symbolic link"));
	assert_int_equal(lstat(sym_path, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(first_word(target), 0x20646c6f);
	assert_int_equal(stat(target, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0644);
	assert_int_equal(st.st_size, 11);
	/* A dangling one is refused too: nothing is created where it points. */
	unlink(target);
	w = pcapng_create(sym_path, "libumad test", err_text, sizeof(err_text));
	assert_null(w);
	assert_int_equal(access(target, F_OK), -1);
	unlink(sym_path);

	/* A FIFO (even one with no reader: never opened, so nothing blocks), a directory. */
	snprintf(fifo, sizeof(fifo), "%s.fifo", path);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	w = pcapng_create(fifo, "libumad test", err_text, sizeof(err_text));
	assert_null(w);
	assert_string_equal(err_text, "a FIFO, not a regular file");
	assert_int_equal(lstat(fifo, &st), 0);
	assert_true(S_ISFIFO(st.st_mode));
	unlink(fifo);
	assert_int_equal(mkdir(fifo, 0700), 0);
	w = pcapng_create(fifo, "libumad test", err_text, sizeof(err_text));
	assert_null(w);
	assert_string_equal(err_text, "a directory, not a regular file");
	assert_int_equal(errno, EISDIR);
	rmdir(fifo);
	w = pcapng_create("/dev/null", "libumad test", err_text, sizeof(err_text));
	assert_null(w);
	assert_string_equal(err_text, "a character device, not a regular file");
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
	w = pcapng_create(file, "libumad test", err_text, sizeof(err_text));
	if (!w)
		fprintf(stderr, "refused: %s\n", err_text);
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
	w = pcapng_create(file, "libumad test", err_text, sizeof(err_text));
	if (w)
		pcapng_close(w);
	CHECK(w == NULL);
	CHECK_EQ(errno, EPERM);
	CHECK(strstr(err_text, "owned by user 0") != NULL);
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
	w = pcapng_create(file, "libumad test", err_text, sizeof(err_text));
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

/* A file another writer holds is not replaced; once it is closed, it is. */
static void test_file_in_use_is_kept(void **state)
{
	struct pcapng_writer *first, *second;

	(void)state;
	first = pcapng_create(path, "first", err_text, sizeof(err_text));
	assert_non_null(first);
	assert_true(pcapng_add_interface(first, "mlx5_0:1", NULL) >= 0);
	second = pcapng_create(path, "second", err_text, sizeof(err_text));
	assert_null(second);
	assert_int_equal(errno, EBUSY);
	assert_non_null(strstr(err_text, "another process is writing a capture into it"));
	assert_non_null(strstr(err_text, "%p"));
	assert_int_equal(pcapng_close(first), 0);
	second = pcapng_create(path, "second", err_text, sizeof(err_text));
	assert_non_null(second);
	assert_int_equal(pcapng_close(second), 0);
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
	char err[256];
	uint64_t id = 0, size, header;
	int i, got, records = 0;

	(void)state;
	w = pcapng_create(path, "libumad test", err_text, sizeof(err_text));
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

	r = capture_open(path, err, sizeof(err));
	assert_non_null(r);
	while ((got = capture_next(r, &rec, err, sizeof(err))) == 1)
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
	uint8_t mad[MAD_SIZE], pkt[IB_MAD_PACKET_MAX], *file;
	char err[PCAP_ERRBUF_SIZE], cmd[256], comment[200];
	struct capture_record rec;
	struct capture_reader *r;
	struct pcap_pkthdr *ph;
	const u_char *data;
	struct pcapng_writer *w;
	struct ib_user_mad hdr;
	size_t size, at;
	uint32_t type, total;
	int i, n, fillers = 0, records = 0;
	FILE *f;
	pcap_t *p;

	(void)state;
	w = pcapng_create(path, "libumad test", err_text, sizeof(err_text));
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

	f = fopen(path, "rb");
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
			fail_msg("block at offset %zu (%u bytes) crosses a page", at, total);
		fillers += type == 0x80000d1bu;
		records += type == 6;
	}
	free(file);
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

	r = capture_open(path, err, sizeof(err));
	if (!r)
		fail_msg("%s", err);
	n = 0;
	while ((i = capture_next(r, &rec, err, sizeof(err))) == 1)
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
	char err[512];
	int n = 0;

	(void)state;
	write_sample();
	r = capture_open(path, err, sizeof(err));
	if (!r)
		fail_msg("%s", err);
	while (capture_next(r, &rec, err, sizeof(err)) == 1) {
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
 * block is ever handed out.
 */
static void test_reader_huge_captured_length(void **state)
{
	static const uint32_t caplens[] = { 0xfffffff0u, 0xffffffecu, 0xffffffffu, 33, 32, 24 };
	uint8_t file[256];
	struct capture_record rec;
	struct capture_reader *r;
	char err[512];
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
		r = capture_open(path, err, sizeof(err));
		if (!r)
			fail_msg("%s", err);
		while ((got = capture_next(r, &rec, err, sizeof(err))) == 1) {
			unsigned sum = 0;

			/* Whatever comes back lies inside the 32 bytes the block holds. */
			assert_true(rec.len <= 32 - 16);
			for (k = 0; k < rec.len; k++)
				sum += rec.packet[k];
			assert_int_equal(sum, 0);
		}
		if (caplens[i] > 32)
			assert_int_equal(got, -1);
		else
			assert_int_equal(got, 0);
		if (got < 0)
			assert_non_null(strstr(err, "packet of"));
		capture_close(r);
	}
}

/* Every truncation and many corruptions of a good file: an error or the end, never a crash. */
static void test_reader_bad_input(void **state)
{
	uint8_t good[4096], bad[4096];
	struct capture_record rec;
	struct capture_reader *r;
	char err[512], bad_path[80];
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
		err[0] = '\0';
		r = capture_open(bad_path, err, sizeof(err));
		if (!r) {
			assert_non_null(strstr(err, bad_path));
			errors++;
			continue;
		}
		while ((got = capture_next(r, &rec, err, sizeof(err))) == 1)
			assert_true(rec.len <= 4096);
		if (got < 0) {
			assert_non_null(strstr(err, ": offset "));
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
static int read_records(const char *file, struct seen *seen, int max, char *err, size_t errlen,
			int *got)
{
	struct capture_record rec;
	struct capture_reader *r = capture_open(file, err, errlen);
	int n = 0;
	size_t k;

	if (!r)
		fail_msg("%s", err);
	while ((*got = capture_next(r, &rec, err, errlen)) == 1) {
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
static void test_reader_file_and_stream(void **state)
{
	enum { RECORDS = 4000, BIG = 700 * 1024 };
	static struct seen from_file[RECORDS], from_pipe[RECORDS];
	struct ib_packet_ends ends = { .outbound = 1, .local_lid = 1 };
	uint8_t mad[MAD_SIZE], pkt[IB_MAD_PACKET_MAX], back[IB_MAD_PACKET_MAX], *bytes, *spliced;
	char err[512], comment[64], name[64];
	struct capture_record rec;
	struct capture_reader *r;
	struct pcapng_writer *w;
	struct ib_user_mad hdr;
	size_t size, at, first_epb = 0;
	uint32_t type, total;
	int i, n, got, fd, status;
	pid_t pid;

	(void)state;
	unlink(path);
	w = pcapng_create(path, "libumad test", err_text, sizeof(err_text));
	assert_non_null(w);
	assert_int_equal(pcapng_add_interface(w, "mlx5_0:1", "test port"), 0);
	dr_get_nodeinfo(mad, &hdr);
	for (i = 0; i < RECORDS; i++) {
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
	spliced = calloc(1, size + BIG);
	assert_non_null(spliced);
	memcpy(spliced, bytes, first_epb);
	type = 0x00000bad;
	total = BIG;
	memcpy(spliced + first_epb, &type, 4);
	memcpy(spliced + first_epb + 4, &total, 4);
	memcpy(spliced + first_epb + BIG - 4, &total, 4);
	memcpy(spliced + first_epb + BIG, bytes + first_epb, size - first_epb);
	free(bytes);
	size += BIG;
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, spliced, size), (ssize_t)size);
	close(fd);

	n = read_records(path, from_file, RECORDS, err, sizeof(err), &got);
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
	r = capture_open(path, err, sizeof(err));
	if (!r)
		fail_msg("%s", err);
	fd = capture_reopen(r);
	assert_true(fd >= 0);
	i = 0;
	while (capture_next(r, &rec, err, sizeof(err)) == 1) {
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
	r = capture_open(name, err, sizeof(err));
	if (!r)
		fail_msg("%s", err);
	assert_int_equal(capture_reopen(r), -ESPIPE);
	capture_close(r);
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);

	pid = feed_pipe(spliced, size, 4093, name, sizeof(name), &fd);
	n = read_records(name, from_pipe, RECORDS, err, sizeof(err), &got);
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
	n = read_records(name, from_pipe, RECORDS, err, sizeof(err), &got);
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(n, 0);
	assert_int_equal(got, -1);
	assert_non_null(strstr(err, "truncated block"));
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
		cmocka_unit_test(test_capture_file_is_private),
		cmocka_unit_test(test_file_names),
		cmocka_unit_test_setup_teardown(test_reader_round_trip, make_path, remove_path),
		cmocka_unit_test_setup_teardown(test_reader_bad_input, make_path, remove_path),
		cmocka_unit_test_setup_teardown(test_reader_huge_captured_length, make_path,
						remove_path),
		cmocka_unit_test_setup_teardown(test_reader_file_and_stream, make_path, remove_path),
	};

	return cmocka_run_group_tests_name("capture format", tests, NULL, NULL);
}
