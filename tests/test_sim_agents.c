/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Agents talking through the simulated fabric, in one process attached at
 * two nodes (UMAD_SIM_HOST=Hca1,Hca3 of the default fabric: devices sim0 and sim1): ibping's
 * exchange (vendor range 2 class, OpenIB OUI, a Get answered by the
 * server's GetResp), the kernel's receive rules (method masks, OUI, class
 * version, responses matched by TID), RMPP answers whole or in segments
 * after the receiver's registration, and the losses that end in the
 * sender's timeout; the built-in SA's tables (whole, through ENOSPC, or as
 * segments), a multicast group joined through it and reached through the
 * MFTs, and the PMA counting the process's own MADs.  The built-in SM gives
 * the LIDs the GMPs travel by.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <infiniband/umad.h>
#include <infiniband/umad_sa.h>
#include <infiniband/umad_sa_mcm.h>
#include <infiniband/umad_types.h>

#include "base/mad_wire.h"

#define PING_CLASS	0x32		/* ibping's vendor class (range 2) */
#define LONG_LEN	1000		/* an answer of several RMPP segments */
#define SHORT_LEN	32		/* an answer that fits in one */

struct msg {
	uint8_t buf[sizeof(struct ib_user_mad) + 4096];
};

struct side {
	int portid;
	uint16_t lid, sm_lid;
	uint64_t guid;
};

static struct side client, server;

static uint8_t *mad_of(struct msg *m)
{
	return umad_get_mad(m->buf);
}

static void port_of(const char *ca, struct side *side)
{
	umad_port_t port;

	assert_int_equal(umad_get_port(ca, 1, &port), 0);
	side->lid = (uint16_t)port.base_lid;
	side->sm_lid = (uint16_t)port.sm_lid;
	side->guid = be64toh(port.port_guid);
	umad_release_port(&port);
}

static int setup(void **state)
{
	(void)state;
	assert_int_equal(umad_init(), 0);
	client.portid = umad_open_port("sim0", 1);
	server.portid = umad_open_port("sim1", 1);
	assert_true(client.portid >= 0);
	assert_true(server.portid >= 0);
	port_of("sim0", &client);
	port_of("sim1", &server);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	umad_close_port(client.portid);
	umad_close_port(server.portid);
	umad_done();
	return 0;
}

static int reg_vendor(int portid, uint8_t method, uint32_t oui, uint8_t rmpp)
{
	long mask[16 / sizeof(long)] = { 0 };
	uint8_t oui_bytes[3] = { (uint8_t)(oui >> 16), (uint8_t)(oui >> 8), (uint8_t)oui };

	if (method)
		mask[method / (8 * sizeof(long))] |= 1L << (method % (8 * sizeof(long)));
	return umad_register_oui(portid, PING_CLASS, rmpp, oui_bytes, mask);
}

static void vendor_mad(struct msg *m, int agent, uint16_t dlid, uint8_t method, uint32_t tid,
		       const char *text)
{
	uint8_t *mad = mad_of(m);

	memset(m->buf, 0, sizeof(m->buf));
	umad_set_addr(m->buf, dlid, QP1_GSI, 0, UMAD_QKEY);
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = PING_CLASS;
	mad[MAD_OFF_CLASS_VERSION] = 1;
	mad[MAD_OFF_METHOD] = method;
	put_be32(mad + MAD_OFF_TID_LOW, tid);
	put_be24(mad + VENDOR_OFF_OUI, UMAD_OPENIB_OUI);
	if (text)
		strcpy((char *)mad + VENDOR_HDR_END, text);
	(void)agent;
}

/* Receive on portid within timeout_ms; the length, or the negative errno. */
static int recv_one(int portid, struct msg *m, int *agent, int timeout_ms)
{
	int len = (int)sizeof(m->buf) - (int)sizeof(struct ib_user_mad);
	int r = umad_recv(portid, m->buf, &len, timeout_ms);

	if (r < 0)
		return r;
	*agent = r;
	return len;
}

/* ibping's exchange: a Get to the server's LID, its GetResp with the same TID back. */
static void test_ping_echo(void **state)
{
	int c_agent = reg_vendor(client.portid, 0, UMAD_OPENIB_OUI, 0);
	int s_agent = reg_vendor(server.portid, UMAD_METHOD_GET, UMAD_OPENIB_OUI, 0);
	struct msg req, got, resp;
	int agent, len;

	(void)state;
	assert_true(c_agent >= 0);
	assert_true(s_agent >= 0);
	assert_true(client.lid && server.lid && client.lid != server.lid);

	vendor_mad(&req, c_agent, server.lid, UMAD_METHOD_GET, 0x1234, "ping");
	assert_int_equal(umad_send(client.portid, c_agent, req.buf, MAD_SIZE, 1000, 0), 0);

	/* The server's agent receives the request, from the client's LID on QP1. */
	len = recv_one(server.portid, &got, &agent, 1000);
	assert_int_equal(len, MAD_SIZE);
	assert_int_equal(agent, s_agent);
	assert_int_equal(umad_status(got.buf), 0);
	assert_int_equal(be16toh(umad_get_mad_addr(got.buf)->lid), client.lid);
	assert_int_equal(be32toh(umad_get_mad_addr(got.buf)->qpn), QP1_GSI);
	assert_string_equal((char *)mad_of(&got) + VENDOR_HDR_END, "ping");

	/* It answers to where the request came from, with the request's TID. */
	vendor_mad(&resp, s_agent, client.lid, UMAD_METHOD_GET_RESP, 0, "pong");
	memcpy(mad_of(&resp) + MAD_OFF_TID, mad_of(&got) + MAD_OFF_TID, MAD_TID_SIZE);
	assert_int_equal(umad_send(server.portid, s_agent, resp.buf, MAD_SIZE, 0, 0), 0);

	len = recv_one(client.portid, &got, &agent, 1000);
	assert_int_equal(len, MAD_SIZE);
	assert_int_equal(agent, c_agent);
	assert_int_equal(umad_status(got.buf), 0);
	assert_int_equal(mad_of(&got)[MAD_OFF_METHOD], UMAD_METHOD_GET_RESP);
	assert_int_equal(get_be32(mad_of(&got) + MAD_OFF_TID_LOW), 0x1234);
	assert_string_equal((char *)mad_of(&got) + VENDOR_HDR_END, "pong");
	assert_int_equal(be16toh(umad_get_mad_addr(got.buf)->lid), server.lid);

	/* Answered once: no timeout follows. */
	assert_int_equal(recv_one(client.portid, &got, &agent, 300), -ETIMEDOUT);
	umad_unregister(client.portid, c_agent);
	umad_unregister(server.portid, s_agent);
}

/* What the server's agent does not take is lost, and the client's request times out. */
static void test_receive_rules(void **state)
{
	int c_agent = reg_vendor(client.portid, 0, UMAD_OPENIB_OUI, 0);
	int s_agent = reg_vendor(server.portid, UMAD_METHOD_SET, UMAD_OPENIB_OUI, 0);
	struct msg req, got;
	int agent;

	(void)state;
	assert_true(c_agent >= 0 && s_agent >= 0);
	/* A Get where the server takes only Sets. */
	vendor_mad(&req, c_agent, server.lid, UMAD_METHOD_GET, 1, NULL);
	assert_int_equal(umad_send(client.portid, c_agent, req.buf, MAD_SIZE, 50, 0), 0);
	assert_int_equal(recv_one(client.portid, &got, &agent, 1000), MAD_HDR_SIZE);
	assert_int_equal(umad_status(got.buf), ETIMEDOUT);
	assert_int_equal(recv_one(server.portid, &got, &agent, 0), -EAGAIN);

	/* A Set with another OUI. */
	vendor_mad(&req, c_agent, server.lid, UMAD_METHOD_SET, 2, NULL);
	put_be24(mad_of(&req) + VENDOR_OFF_OUI, 0x000002);
	assert_int_equal(umad_send(client.portid, c_agent, req.buf, MAD_SIZE, 50, 0), 0);
	assert_int_equal(recv_one(client.portid, &got, &agent, 1000), MAD_HDR_SIZE);
	assert_int_equal(umad_status(got.buf), ETIMEDOUT);
	assert_int_equal(recv_one(server.portid, &got, &agent, 0), -EAGAIN);

	/* A Set with the OUI arrives; to a LID no one has, nothing does. */
	vendor_mad(&req, c_agent, server.lid, UMAD_METHOD_SET, 3, NULL);
	assert_int_equal(umad_send(client.portid, c_agent, req.buf, MAD_SIZE, 50, 0), 0);
	assert_int_equal(recv_one(server.portid, &got, &agent, 1000), MAD_SIZE);
	assert_int_equal(agent, s_agent);
	assert_int_equal(recv_one(client.portid, &got, &agent, 1000), MAD_HDR_SIZE);
	assert_int_equal(umad_status(got.buf), ETIMEDOUT);
	vendor_mad(&req, c_agent, 0xbfff, UMAD_METHOD_SET, 4, NULL);
	assert_int_equal(umad_send(client.portid, c_agent, req.buf, MAD_SIZE, 50, 0), 0);
	assert_int_equal(recv_one(client.portid, &got, &agent, 1000), MAD_HDR_SIZE);
	assert_int_equal(umad_status(got.buf), ETIMEDOUT);

	/* A response no request waits for is dropped. */
	vendor_mad(&req, s_agent, client.lid, UMAD_METHOD_GET_RESP, 5, NULL);
	assert_int_equal(umad_send(server.portid, s_agent, req.buf, MAD_SIZE, 0, 0), 0);
	assert_int_equal(recv_one(client.portid, &got, &agent, 100), -ETIMEDOUT);
	umad_unregister(client.portid, c_agent);
	umad_unregister(server.portid, s_agent);
}

/*
 * An answer of data_len bytes after the vendor header, sent with RMPP
 * active by an agent the kernel does RMPP for: whole for an agent
 * registered with an RMPP version, else its segments, each with the RMPP
 * header the kernels put on (the sender sets only the Active flag, as
 * opensm does).
 */
static void rmpp_answer(uint8_t client_rmpp, size_t data_len)
{
	int c_agent = reg_vendor(client.portid, 0, UMAD_OPENIB_OUI, client_rmpp);
	int s_agent = reg_vendor(server.portid, UMAD_METHOD_GET, UMAD_OPENIB_OUI, 1);
	size_t room = MAD_SIZE - VENDOR_HDR_END, i, segments = (data_len + room - 1) / room;
	size_t whole = VENDOR_HDR_END + data_len;
	struct msg req, got, resp;
	uint8_t *mad;
	int agent, len;

	assert_true(c_agent >= 0 && s_agent >= 0);
	vendor_mad(&req, c_agent, server.lid, UMAD_METHOD_GET, 0x77, NULL);
	assert_int_equal(umad_send(client.portid, c_agent, req.buf, MAD_SIZE, 1000, 0), 0);
	assert_int_equal(recv_one(server.portid, &got, &agent, 1000), MAD_SIZE);

	vendor_mad(&resp, s_agent, client.lid, UMAD_METHOD_GET_RESP, 0, NULL);
	mad = mad_of(&resp);
	memcpy(mad + MAD_OFF_TID, mad_of(&got) + MAD_OFF_TID, MAD_TID_SIZE);
	mad[RMPP_OFF_FLAGS] = UMAD_RMPP_FLAG_ACTIVE;
	for (i = 0; i < data_len; i++)
		mad[VENDOR_HDR_END + i] = (uint8_t)(i * 7 + 1);
	assert_int_equal(umad_send(server.portid, s_agent, resp.buf, (int)whole, 0, 0), 0);

	if (client_rmpp) {
		if (whole > MAD_SIZE) {
			/* Too small a buffer first: ENOSPC with the length the message needs. */
			int small = MAD_SIZE;

			assert_int_equal(umad_recv(client.portid, got.buf, &small, 1000), -ENOSPC);
			assert_int_equal(small, (int)whole);
		}
		len = recv_one(client.portid, &got, &agent, 1000);
		assert_int_equal(len, (int)whole);
		assert_int_equal(agent, c_agent);
		mad = mad_of(&got);
		/* The first segment's RMPP header, as the receiving kernel shows it. */
		assert_int_equal(mad[RMPP_OFF_VERSION], UMAD_RMPP_VERSION);
		assert_int_equal(mad[RMPP_OFF_TYPE], RMPP_TYPE_DATA);
		assert_int_equal(mad[RMPP_OFF_FLAGS] & RMPP_FLAGS_MASK,
				 UMAD_RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST |
				 (segments == 1 ? RMPP_FLAG_LAST : 0));
		assert_int_equal(get_be32(mad + RMPP_OFF_SEG_NUM), 1);
		assert_int_equal(get_be32(mad + RMPP_OFF_PAYLEN), whole - RMPP_HDR_END);
		for (i = 0; i < data_len; i++)
			assert_int_equal(mad[VENDOR_HDR_END + i], (uint8_t)(i * 7 + 1));
	} else {
		size_t at = 0;

		for (i = 1; i <= segments; i++) {
			size_t chunk = data_len - at < room ? data_len - at : room;

			len = recv_one(client.portid, &got, &agent, 1000);
			assert_int_equal(len, MAD_SIZE);
			mad = mad_of(&got);
			assert_int_equal(mad[RMPP_OFF_VERSION], UMAD_RMPP_VERSION);
			assert_int_equal(mad[RMPP_OFF_TYPE], RMPP_TYPE_DATA);
			assert_int_equal(get_be32(mad + RMPP_OFF_SEG_NUM), i);
			assert_int_equal(!!(mad[RMPP_OFF_FLAGS] & RMPP_FLAG_FIRST), i == 1);
			assert_int_equal(!!(mad[RMPP_OFF_FLAGS] & RMPP_FLAG_LAST), i == segments);
			/* PayloadLength: the whole payload in the first, this one's in the last. */
			if (i == segments)
				assert_int_equal(get_be32(mad + RMPP_OFF_PAYLEN),
						 VENDOR_HDR_END - RMPP_HDR_END + chunk);
			else if (i == 1)
				assert_int_equal(get_be32(mad + RMPP_OFF_PAYLEN), whole - RMPP_HDR_END);
			for (size_t j = 0; j < chunk; j++)
				assert_int_equal(mad[VENDOR_HDR_END + j], (uint8_t)((at + j) * 7 + 1));
			/* The rest of the last segment is padding. */
			for (size_t j = chunk; j < room; j++)
				assert_int_equal(mad[VENDOR_HDR_END + j], 0);
			at += chunk;
		}
	}
	assert_int_equal(recv_one(client.portid, &got, &agent, 200), -ETIMEDOUT);
	umad_unregister(client.portid, c_agent);
	umad_unregister(server.portid, s_agent);
}

static void test_long_answer_whole(void **state)
{
	(void)state;
	rmpp_answer(1, LONG_LEN);
}

static void test_long_answer_segments(void **state)
{
	(void)state;
	rmpp_answer(0, LONG_LEN);
}

/* An answer that fits one segment keeps its length whole (an SA table of one record). */
static void test_short_answer_whole(void **state)
{
	(void)state;
	rmpp_answer(1, SHORT_LEN);
}

static void test_short_answer_segment(void **state)
{
	(void)state;
	rmpp_answer(0, SHORT_LEN);
}

/*
 * A request longer than one MAD (RMPP Active, the kernel segmenting it)
 * reaches the server whole with the TID as it went out: the upper half the
 * sending agent's hi_tid, as on a one-MAD request of the same agent; the
 * sender's buffer keeps what it wrote.
 */
static void test_long_request_tid(void **state)
{
	int c_agent = reg_vendor(client.portid, 0, UMAD_OPENIB_OUI, 1);
	int s_agent = reg_vendor(server.portid, UMAD_METHOD_SET, UMAD_OPENIB_OUI, 1);
	size_t whole = VENDOR_HDR_END + LONG_LEN, i;
	struct msg req, got;
	uint32_t hi_tid;
	uint8_t *mad;
	int agent;

	(void)state;
	assert_true(c_agent >= 0 && s_agent >= 0);
	vendor_mad(&req, c_agent, server.lid, UMAD_METHOD_SET, 0x98, NULL);
	put_be32(mad_of(&req) + MAD_OFF_TID, 0xdeadbeef);
	assert_int_equal(umad_send(client.portid, c_agent, req.buf, MAD_SIZE, 0, 0), 0);
	assert_int_equal(recv_one(server.portid, &got, &agent, 1000), MAD_SIZE);
	hi_tid = get_be32(mad_of(&got) + MAD_OFF_TID);
	assert_true(hi_tid && hi_tid <= 0xffffff);

	vendor_mad(&req, c_agent, server.lid, UMAD_METHOD_SET, 0x99, NULL);
	mad = mad_of(&req);
	put_be32(mad + MAD_OFF_TID, 0xdeadbeef);
	mad[RMPP_OFF_FLAGS] = UMAD_RMPP_FLAG_ACTIVE;
	for (i = 0; i < LONG_LEN; i++)
		mad[VENDOR_HDR_END + i] = (uint8_t)(i * 3 + 1);
	assert_int_equal(umad_send(client.portid, c_agent, req.buf, (int)whole, 0, 0), 0);
	assert_int_equal(get_be32(mad + MAD_OFF_TID), 0xdeadbeef);
	assert_int_equal(recv_one(server.portid, &got, &agent, 1000), (int)whole);
	assert_int_equal(agent, s_agent);
	mad = mad_of(&got);
	assert_int_equal(get_be32(mad + MAD_OFF_TID), hi_tid);
	assert_int_equal(get_be32(mad + MAD_OFF_TID_LOW), 0x99);
	for (i = 0; i < LONG_LEN; i++)
		assert_int_equal(mad[VENDOR_HDR_END + i], (uint8_t)(i * 3 + 1));
	umad_unregister(client.portid, c_agent);
	umad_unregister(server.portid, s_agent);
}

/* A server thread answering pings while the client sends them: the exchange across threads. */
#define THREADED_PINGS	2000

struct server_args {
	int agent;
	int answered;
};

static void *ping_server(void *arg)
{
	struct server_args *a = arg;
	struct msg m;
	int got;

	while (a->answered < THREADED_PINGS) {
		if (recv_one(server.portid, &m, &got, 2000) != MAD_SIZE || got != a->agent)
			break;
		mad_of(&m)[MAD_OFF_METHOD] = UMAD_METHOD_GET_RESP;
		umad_set_addr(m.buf, be16toh(umad_get_mad_addr(m.buf)->lid), QP1_GSI, 0, UMAD_QKEY);
		if (umad_send(server.portid, a->agent, m.buf, MAD_SIZE, 0, 0) != 0)
			break;
		a->answered++;
	}
	return NULL;
}

static void test_threaded_pings(void **state)
{
	struct server_args a = { .agent = reg_vendor(server.portid, UMAD_METHOD_GET, UMAD_OPENIB_OUI, 0) };
	int c_agent = reg_vendor(client.portid, 0, UMAD_OPENIB_OUI, 0), i, got, answered = 0;
	pthread_t thread;
	struct msg m;

	(void)state;
	assert_true(a.agent >= 0 && c_agent >= 0);
	assert_int_equal(pthread_create(&thread, NULL, ping_server, &a), 0);
	for (i = 0; i < THREADED_PINGS; i++) {
		vendor_mad(&m, c_agent, server.lid, UMAD_METHOD_GET, 0x1000 + (uint32_t)i, NULL);
		assert_int_equal(umad_send(client.portid, c_agent, m.buf, MAD_SIZE, 2000, 0), 0);
		assert_int_equal(recv_one(client.portid, &m, &got, 3000), MAD_SIZE);
		assert_int_equal(umad_status(m.buf), 0);
		assert_int_equal(get_be32(mad_of(&m) + MAD_OFF_TID_LOW), 0x1000 + (uint32_t)i);
		answered++;
	}
	assert_int_equal(pthread_join(thread, NULL), 0);
	assert_int_equal(a.answered, THREADED_PINGS);
	assert_int_equal(answered, THREADED_PINGS);
	umad_unregister(client.portid, c_agent);
	umad_unregister(server.portid, a.agent);
}

/* --- the built-in SA ---------------------------------------------------------------- */

static int reg_sa(int portid, uint8_t rmpp, uint8_t method)
{
	long mask[16 / sizeof(long)] = { 0 };

	if (method)
		mask[method / (8 * sizeof(long))] |= 1L << (method % (8 * sizeof(long)));
	return umad_register(portid, UMAD_CLASS_SUBN_ADM, UMAD_SA_CLASS_VERSION, rmpp,
			     method ? mask : NULL);
}

static void sa_mad(struct msg *m, uint8_t method, uint16_t attr, uint64_t comp_mask, uint32_t tid)
{
	uint8_t *mad = mad_of(m);

	memset(m->buf, 0, sizeof(m->buf));
	umad_set_addr(m->buf, client.sm_lid, QP1_GSI, 0, UMAD_QKEY);
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_SUBN_ADM;
	mad[MAD_OFF_CLASS_VERSION] = UMAD_SA_CLASS_VERSION;
	mad[MAD_OFF_METHOD] = method;
	put_be32(mad + MAD_OFF_TID_LOW, tid);
	put_be16(mad + MAD_OFF_ATTR_ID, attr);
	put_be64(mad + SA_OFF_COMP_MASK, comp_mask);
}

/* NodeRecords of the default fabric: 2 switches and 4 HCA ports with links, 6 records. */
#define NODE_RECORDS	6
#define NODE_TABLE_LEN	(SA_HDR_END + NODE_RECORDS * SA_NODE_REC_SIZE)

/* A table of several MADs: whole for an RMPP agent, its length told first by ENOSPC. */
static void test_sa_table_whole(void **state)
{
	int agent = reg_sa(client.portid, UMAD_RMPP_VERSION, 0), got, small = MAD_SIZE;
	struct msg m;
	uint8_t *mad = mad_of(&m);

	(void)state;
	assert_true(agent >= 0);
	assert_true(client.sm_lid != 0);
	sa_mad(&m, UMAD_SA_METHOD_GET_TABLE, UMAD_SA_ATTR_NODE_REC, 0, 0x501);
	assert_int_equal(umad_send(client.portid, agent, m.buf, MAD_SIZE, 1000, 0), 0);
	assert_int_equal(umad_recv(client.portid, m.buf, &small, 1000), -ENOSPC);
	assert_int_equal(small, NODE_TABLE_LEN);
	assert_int_equal(recv_one(client.portid, &m, &got, 1000), NODE_TABLE_LEN);
	assert_int_equal(got, agent);
	assert_int_equal(umad_status(m.buf), 0);
	assert_int_equal(mad_method(mad), UMAD_SA_METHOD_GET_TABLE_RESP);
	assert_int_equal(mad_status(mad), 0);
	assert_int_equal(get_be32(mad + MAD_OFF_TID_LOW), 0x501);
	assert_int_equal(mad[RMPP_OFF_FLAGS] & (UMAD_RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST),
			 UMAD_RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST);
	assert_int_equal(get_be32(mad + RMPP_OFF_PAYLEN), NODE_TABLE_LEN - RMPP_HDR_END);
	assert_int_equal(get_be16(mad + SA_OFF_ATTR_OFFSET) * SA_ATTR_OFFSET_UNIT,
			 SA_NODE_REC_SIZE);
	umad_unregister(client.portid, agent);
}

/* The same table for an agent without RMPP: its segments, in order, for it to put together. */
static void test_sa_table_segments(void **state)
{
	int agent = reg_sa(client.portid, 0, 0), got, n = 0;
	size_t room = MAD_SIZE - SA_HDR_END, data = NODE_TABLE_LEN - SA_HDR_END;
	struct msg m;
	uint8_t *mad = mad_of(&m);

	(void)state;
	assert_true(agent >= 0);
	sa_mad(&m, UMAD_SA_METHOD_GET_TABLE, UMAD_SA_ATTR_NODE_REC, 0, 0x502);
	assert_int_equal(umad_send(client.portid, agent, m.buf, MAD_SIZE, 1000, 0), 0);
	do {
		assert_int_equal(recv_one(client.portid, &m, &got, 1000), MAD_SIZE);
		assert_int_equal(got, agent);
		n++;
		assert_int_equal(get_be32(mad + RMPP_OFF_SEG_NUM), n);
		assert_int_equal(get_be32(mad + MAD_OFF_TID_LOW), 0x502);
	} while (!(mad[RMPP_OFF_FLAGS] & RMPP_FLAG_LAST));
	assert_int_equal(n, (int)((data + room - 1) / room));
	assert_int_equal(recv_one(client.portid, &m, &got, 100), -ETIMEDOUT);
	umad_unregister(client.portid, agent);
}

/* Join the IPoIB broadcast group (MLID LID_MCAST_START) as a full member. */
static void join_broadcast(struct side *side, int agent, uint32_t tid)
{
	struct msg m;
	uint8_t *rec = mad_of(&m) + SA_HDR_END;
	static const uint8_t mgid[16] = { 0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0,
					  0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
	int got;

	sa_mad(&m, UMAD_METHOD_SET, UMAD_SA_ATTR_MCMEMBER_REC,
	       UMAD_SA_MCM_COMP_MASK_MGID | UMAD_SA_MCM_COMP_MASK_PORT_GID |
	       UMAD_SA_MCM_COMP_MASK_JOIN_STATE, tid);
	umad_set_addr(m.buf, side->sm_lid, QP1_GSI, 0, UMAD_QKEY);
	memcpy(rec, mgid, sizeof(mgid));
	put_be64(rec + 16, GID_PREFIX_LINK_LOCAL);	/* PortGID */
	put_be64(rec + 24, side->guid);
	rec[48] = 1;					/* Scope 0, JoinState: full member */
	assert_int_equal(umad_send(side->portid, agent, m.buf, MAD_SIZE, 1000, 0), 0);
	assert_int_equal(recv_one(side->portid, &m, &got, 1000), MAD_SIZE);
	assert_int_equal(umad_status(m.buf), 0);
	assert_int_equal(mad_status(mad_of(&m)), 0);
	assert_int_equal(get_be16(rec + 36), LID_MCAST_START);	/* MLID */
}

/* Joined through the SA, the two hosts reach each other at the group's MLID through the MFTs. */
static void test_multicast(void **state)
{
	int c_sa = reg_sa(client.portid, 0, 0), s_sa = reg_sa(server.portid, 0, 0);
	int c_agent = reg_vendor(client.portid, 0, UMAD_OPENIB_OUI, 0);
	int s_agent = reg_vendor(server.portid, UMAD_METHOD_SEND, UMAD_OPENIB_OUI, 0);
	struct msg m;
	int got;

	(void)state;
	assert_true(c_sa >= 0 && s_sa >= 0 && c_agent >= 0 && s_agent >= 0);
	/* Before anyone joined, the group has no tree: nothing arrives. */
	vendor_mad(&m, c_agent, LID_MCAST_START, UMAD_METHOD_SEND, 0x601, "all");
	assert_int_equal(umad_send(client.portid, c_agent, m.buf, MAD_SIZE, 0, 0), 0);
	assert_int_equal(recv_one(server.portid, &m, &got, 100), -ETIMEDOUT);

	join_broadcast(&client, c_sa, 0x602);
	join_broadcast(&server, s_sa, 0x603);
	vendor_mad(&m, c_agent, LID_MCAST_START, UMAD_METHOD_SEND, 0x604, "all");
	assert_int_equal(umad_send(client.portid, c_agent, m.buf, MAD_SIZE, 0, 0), 0);
	assert_int_equal(recv_one(server.portid, &m, &got, 1000), MAD_SIZE);
	assert_int_equal(got, s_agent);
	assert_string_equal((char *)mad_of(&m) + VENDOR_HDR_END, "all");
	assert_int_equal(be16toh(umad_get_mad_addr(m.buf)->lid), client.lid);
	/* Once, and not back to the sender. */
	assert_int_equal(recv_one(server.portid, &m, &got, 100), -ETIMEDOUT);
	assert_int_equal(recv_one(client.portid, &m, &got, 100), -ETIMEDOUT);
	umad_unregister(client.portid, c_sa);
	umad_unregister(server.portid, s_sa);
	umad_unregister(client.portid, c_agent);
	umad_unregister(server.portid, s_agent);
}

/* --- the PMA counts this process's MADs -------------------------------------------------- */

#define PC_OFF_XMIT_PKTS	32	/* PortCounters:PortXmitPkts, 32 bits */
#define PMA_OFF_PORT_SELECT	1	/* PortCounters:PortSelect */

static uint32_t own_xmit_pkts(int agent, uint32_t tid)
{
	struct msg m;
	uint8_t *mad = mad_of(&m);
	int got;

	memset(m.buf, 0, sizeof(m.buf));
	umad_set_addr(m.buf, client.lid, QP1_GSI, 0, UMAD_QKEY);
	mad[MAD_OFF_BASE_VERSION] = UMAD_BASE_VERSION;
	mad[MAD_OFF_CLASS] = UMAD_CLASS_PERF_MGMT;
	mad[MAD_OFF_CLASS_VERSION] = PMA_CLASS_VERSION;
	mad[MAD_OFF_METHOD] = UMAD_METHOD_GET;
	put_be32(mad + MAD_OFF_TID_LOW, tid);
	put_be16(mad + MAD_OFF_ATTR_ID, PMA_ATTR_PORT_COUNTERS);
	mad[PMA_OFF_DATA + PMA_OFF_PORT_SELECT] = 1;
	assert_int_equal(umad_send(client.portid, agent, m.buf, MAD_SIZE, 1000, 0), 0);
	assert_int_equal(recv_one(client.portid, &m, &got, 1000), MAD_SIZE);
	assert_int_equal(mad_status(mad), 0);
	return get_be32(mad + PMA_OFF_DATA + PC_OFF_XMIT_PKTS);
}

static void test_own_counters(void **state)
{
	int pma = umad_register(client.portid, UMAD_CLASS_PERF_MGMT, 1, 0, NULL);
	int c_agent = reg_vendor(client.portid, 0, UMAD_OPENIB_OUI, 0);
	uint32_t before, after;
	struct msg m;
	int i, got;

	(void)state;
	assert_true(pma >= 0 && c_agent >= 0);
	before = own_xmit_pkts(pma, 0x701);
	/* Ten MADs to the server's LID: each crosses the host's link, taken or not. */
	for (i = 0; i < 10; i++) {
		vendor_mad(&m, c_agent, server.lid, UMAD_METHOD_SEND, 0x710 + (uint32_t)i, NULL);
		assert_int_equal(umad_send(client.portid, c_agent, m.buf, MAD_SIZE, 0, 0), 0);
	}
	after = own_xmit_pkts(pma, 0x702);
	assert_int_equal(after - before, 10);
	(void)got;
	umad_unregister(client.portid, pma);
	umad_unregister(client.portid, c_agent);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ping_echo),
		cmocka_unit_test(test_receive_rules),
		cmocka_unit_test(test_long_answer_whole),
		cmocka_unit_test(test_long_answer_segments),
		cmocka_unit_test(test_short_answer_whole),
		cmocka_unit_test(test_short_answer_segment),
		cmocka_unit_test(test_long_request_tid),
		cmocka_unit_test(test_threaded_pings),
		cmocka_unit_test(test_sa_table_whole),
		cmocka_unit_test(test_sa_table_segments),
		cmocka_unit_test(test_multicast),
		cmocka_unit_test(test_own_counters),
	};

	setenv("UMAD_BACKEND", "sim", 1);
	setenv("UMAD_MODULE_DIR", MODULE_DIR, 1);
	setenv("UMAD_SIM_HOST", "Hca1,Hca3", 1);	/* one switch apart from the other */
	unsetenv("UMAD_SIM_SM");
	unsetenv("UMAD_SIM_TOPOLOGY");
	return cmocka_run_group_tests(tests, setup, teardown);
}
