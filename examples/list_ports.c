/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * List the host's InfiniBand devices and ports through the libibumad API,
 * then open the port a tool would pick by default.  Works with any backend:
 *   UMAD_BACKEND=kernel (default), sim, replay.
 */
#include <endian.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <infiniband/umad.h>

static const char *node_type_name(unsigned type)
{
	switch (type) {
	case 1: return "CA";
	case 2: return "Switch";
	case 3: return "Router";
	default: return "?";
	}
}

int main(void)
{
	char names[UMAD_MAX_DEVICES][UMAD_CA_NAME_LEN];
	int n, i, p, fd, port = 0;
	umad_ca_t ca;

	if (umad_init() < 0) {
		fprintf(stderr, "umad_init failed\n");
		return 1;
	}
	n = umad_get_cas_names(names, UMAD_MAX_DEVICES);
	if (n < 0) {
		fprintf(stderr, "umad_get_cas_names: %s\n", strerror(-n));
		return 1;
	}
	for (i = 0; i < n; i++) {
		int r = umad_get_ca(names[i], &ca);

		if (r < 0) {
			printf("%s: cannot read: %s\n", names[i], strerror(-r));
			continue;
		}
		printf("%s: %s, %d port(s), node GUID 0x%016" PRIx64 ", firmware %s\n",
		       ca.ca_name, node_type_name(ca.node_type), ca.numports,
		       be64toh(ca.node_guid), ca.fw_ver[0] ? ca.fw_ver : "-");
		for (p = 0; p <= ca.numports && p < UMAD_CA_MAX_PORTS; p++) {
			umad_port_t *port_info = ca.ports[p];

			if (!port_info)
				continue;
			printf("  port %d: state %u phys %u rate %u LID %u SM LID %u link %s GUID 0x%016" PRIx64 "\n",
			       p, port_info->state, port_info->phys_state, port_info->rate,
			       port_info->base_lid, port_info->sm_lid, port_info->link_layer,
			       be64toh(port_info->port_guid));
		}
		umad_release_ca(&ca);
	}

	fd = umad_open_port(NULL, port);
	if (fd < 0) {
		printf("default port: cannot open: %s\n", strerror(-fd));
	} else {
		umad_port_t info;

		if (umad_get_port(NULL, 0, &info) == 0) {
			printf("default port: %s port %d (umad header %zu bytes)\n",
			       info.ca_name, info.portnum, umad_size());
			umad_release_port(&info);
		}
		umad_close_port(fd);
	}
	umad_done();
	return 0;
}
