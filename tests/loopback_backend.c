/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The template backend (backends/loopback.c) altered for the tests, built
 * as backend-loopback.so in directories of its own:
 *   - tests/: with a hook for the capture tap's tests: once a MAD of
 *     attribute 0xff7f is sent, its buffer changes, as when another thread
 *     of the application gets the answer first and frees or reuses the
 *     request (opensm does);
 *   - tests/wrong-abi/ (LOOPBACK_WRONG_ABI): built for another contract
 *     version, which the loader must refuse;
 *   - tests/no-recv/ (LOOPBACK_NO_RECV): without a mandatory operation,
 *     which the loader must refuse.
 */
#define umad_backend_loopback template_loopback	/* the template's table, unused */
#include "backends/loopback.c"
#undef umad_backend_loopback

static ssize_t scribbling_send(int portid, const void *umad, size_t len)
{
	ssize_t n = loop_send(portid, umad, len);

	if (n > 0) {
		uint8_t *mad = (uint8_t *)umad + sizeof(struct ib_user_mad);

		if (mad[16] == 0xff && mad[17] == 0x7f)
			memset(mad, 0xa5, len - sizeof(struct ib_user_mad));
	}
	return n;
}

#ifdef LOOPBACK_WRONG_ABI
#define LOOPBACK_ABI (UMAD_BACKEND_ABI + 100)
#else
#define LOOPBACK_ABI UMAD_BACKEND_ABI
#endif

const struct umad_backend umad_backend_loopback = {
	.abi = LOOPBACK_ABI,
	.name = "loopback",
	.description = "test loopback module",
	.for_each_ca = loop_for_each_ca,
	.get_ca = loop_get_ca,
	.get_port = loop_get_port,
	.get_issm_path = loop_get_issm_path,
	.open_port = loop_open_port,
	.close_port = loop_close_port,
	.register_agent = loop_register,
	.unregister_agent = loop_unregister,
	.send = scribbling_send,
#ifndef LOOPBACK_NO_RECV
	.recv = loop_recv,
#endif
};
