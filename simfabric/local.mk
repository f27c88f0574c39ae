# The simulated fabric: model, topology reader, responders (SMA, PMA, SA, CC),
# the built-in SM's bring-up, routing, traffic and faults.
# Used by the sim backend module (glib is allowed there, never in libibumad.so.3).
if ENABLE_SIM
noinst_LTLIBRARIES += simfabric/libsimfabric.la
simfabric_libsimfabric_la_SOURCES = \
	simfabric/fabric.c simfabric/fabric.h \
	simfabric/identity.c simfabric/identity.h \
	simfabric/mlnx.c simfabric/mlnx.h \
	simfabric/arena.c simfabric/arena.h \
	simfabric/topology.c simfabric/topology.h \
	simfabric/port_state.c simfabric/port_state.h \
	simfabric/attr_table.h simfabric/sma.c simfabric/sma.h \
	simfabric/pma.c simfabric/pma.h \
	simfabric/cc.c simfabric/cc.h \
	simfabric/route.c simfabric/route.h \
	simfabric/sa.c simfabric/sa.h simfabric/sa_types.h simfabric/sa_common.h simfabric/sa_common.c \
	simfabric/sa_records.c simfabric/sa_path.c simfabric/sa_multipath.c simfabric/sa_mcast.c \
	simfabric/sa_service.c simfabric/sa_inform.c \
	simfabric/subnet_up.c simfabric/subnet_up.h \
	simfabric/net.c simfabric/net.h \
	simfabric/fault.c simfabric/fault.h base/fault_req.h \
	simfabric/hosting.c simfabric/hosting.h \
	base/mad_rules.c base/mad_rules.h \
	simfabric/fabric_proto.c simfabric/fabric_proto.h \
	simfabric/peer_wait.c simfabric/peer_wait.h \
	simfabric/fabric_client.c simfabric/fabric_client.h \
	simfabric/fabric_trust.c simfabric/fabric_trust.h \
	simfabric/fabric_key.c simfabric/fabric_key.h \
	simfabric/fabric_auth.c simfabric/fabric_auth.h \
	simfabric/fabric_tcp.c simfabric/fabric_tcp.h \
	simfabric/handshake_share.c simfabric/handshake_share.h \
	simfabric/text.c simfabric/text.h \
	simfabric/describe.c simfabric/describe.h \
	simfabric/scenario.c simfabric/scenario.h
simfabric_libsimfabric_la_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS)
simfabric_libsimfabric_la_LIBADD = $(GLIB_LIBS)
# The shared fabric's server (umad fabric serve, umad sim): the umad command's.
noinst_LTLIBRARIES += simfabric/libfabricserver.la
simfabric_libfabricserver_la_SOURCES = simfabric/fabric_server.c simfabric/fabric_server.h
simfabric_libfabricserver_la_CFLAGS = $(AM_CFLAGS) $(GLIB_CFLAGS)
simfabric_libfabricserver_la_LIBADD = simfabric/libsimfabric.la $(GLIB_LIBS)
# Installed beside the others, as libumad(7) and umad(1) name them: the
# built-in SM's bring-up, how it differs from opensm's choices; the grammar
# of scenario files (simfabric/scenario.h, umad fabric scenario).
dist_doc_DATA += doc/sim-subnet.md doc/scenario-format.md
endif
