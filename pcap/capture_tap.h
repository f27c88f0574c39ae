/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The capture tap inside libibumad: with UMAD_CAPTURE=FILE every MAD sent
 * and received through the public API (and every send timeout) is written
 * to FILE as pcapng that stock Wireshark decodes, whatever the backend, in
 * sections of the process's own appended to what FILE holds (a forked
 * child's in sections of its own).
 * UMAD_CAPTURE_REDACT=1 zeroes M_Keys, SM_Keys and SA keys in the file.
 */
#ifndef LIBUMAD_CAPTURE_TAP_H
#define LIBUMAD_CAPTURE_TAP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <infiniband/umad.h>

extern atomic_int umad_tap_enabled;

/* Before the first call: read the file name from this variable instead of UMAD_CAPTURE. */
void umad_tap_use_variable(const char *name);

/* Reads UMAD_CAPTURE once; 1 when capturing. */
int umad_tap_start(void);

static inline int umad_tap_on(void)
{
	return atomic_load_explicit(&umad_tap_enabled, memory_order_relaxed) || umad_tap_start();
}

/* A port was opened: its LID, GID and P_Keys are what the packets need. */
void umad_tap_port_opened(int portid, const char *ca_name, int portnum, const umad_port_t *info);
void umad_tap_port_closed(int portid);
/* An agent was registered on portid with this QP (0 or 1). */
void umad_tap_agent(int portid, uint32_t agent_id, unsigned qpn);
/* A whole umad buffer (header of hdr_size, then mad_len bytes) came in, or a send timed out. */
void umad_tap_received(int portid, const struct ib_user_mad *umad, size_t hdr_size,
		       size_t mad_len);
/*
 * A MAD about to go out, copied while the caller still owns the buffer: once
 * sent, another thread may free or reuse it as soon as the answer arrives.
 * The header's agent_id, timeout_ms and retries are the send's arguments;
 * hi_tid, when not 0, the upper TID half a request goes out with (the
 * backend's, as the kernel rewrites it), recorded in its place.
 * Returns a ticket for umad_tap_send_done (0: not captured).
 */
uint64_t umad_tap_send_begin(int portid, const struct ib_user_mad *umad, size_t hdr_size,
			     size_t mad_len, uint32_t agent_id, uint32_t hi_tid,
			     uint32_t timeout_ms, uint32_t retries);
/* How the send went: a MAD not sent is left out of the file. */
void umad_tap_send_done(uint64_t ticket, int sent);

/* Wait until every MAD captured so far is in the file (umad_close_port, umad_done, exit). */
void umad_tap_sync(void);

/* Zero the keys a capture should not carry off site (M_Key, SM_Key, SA SM_Key). */
void umad_tap_redact(uint8_t *mad, size_t len);

#endif /* LIBUMAD_CAPTURE_TAP_H */
