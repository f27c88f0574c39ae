/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The capture tap as the API calls it: pcap/capture_tap.h in a build with
 * capture, calls that do nothing in one configured with --disable-capture,
 * so that umad.c reads the same either way and that library has no tap.
 */
#ifndef LIBUMAD_TAP_H
#define LIBUMAD_TAP_H

#ifdef ENABLE_CAPTURE
#include "pcap/capture_tap.h"
#else
#include <stddef.h>
#include <stdint.h>
#include <infiniband/umad.h>

static inline int umad_tap_on(void)
{
	return 0;
}

static inline void umad_tap_port_opened(int portid, const char *ca_name, int portnum,
					const umad_port_t *info)
{
	(void)portid, (void)ca_name, (void)portnum, (void)info;
}

static inline void umad_tap_port_closed(int portid)
{
	(void)portid;
}

static inline void umad_tap_agent(int portid, uint32_t agent_id, unsigned qpn)
{
	(void)portid, (void)agent_id, (void)qpn;
}

static inline void umad_tap_received(int portid, const struct ib_user_mad *umad,
				     size_t hdr_size, size_t mad_len)
{
	(void)portid, (void)umad, (void)hdr_size, (void)mad_len;
}

static inline uint64_t umad_tap_send_begin(int portid, const struct ib_user_mad *umad,
					   size_t hdr_size, size_t mad_len, uint32_t agent_id,
					   uint32_t hi_tid, uint32_t timeout_ms, uint32_t retries)
{
	(void)portid, (void)umad, (void)hdr_size, (void)mad_len;
	(void)agent_id, (void)hi_tid, (void)timeout_ms, (void)retries;
	return 0;
}

static inline void umad_tap_send_done(uint64_t ticket, int sent)
{
	(void)ticket, (void)sent;
}

static inline void umad_tap_sync(void)
{
}
#endif /* ENABLE_CAPTURE */

#endif /* LIBUMAD_TAP_H */
