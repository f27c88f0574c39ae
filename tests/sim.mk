# The simulated fabric: unit tests of its pieces, and Debian's unmodified
# opensm and infiniband-diags run against it (UMAD_BACKEND=sim).
if ENABLE_SIM
if HAVE_CMOCKA
check_PROGRAMS += tests/test_topology tests/test_sma tests/test_pma tests/test_sa tests/test_attr_tables
TESTS += tests/test_topology tests/test_sma tests/test_pma tests/test_sa tests/test_attr_tables

tests_test_topology_SOURCES = tests/test_topology.c
tests_test_topology_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(GLIB_CFLAGS)
tests_test_topology_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)

# The classes' attribute tables: one row per attribute, field lists inside the data.
tests_test_attr_tables_SOURCES = tests/test_attr_tables.c
tests_test_attr_tables_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(GLIB_CFLAGS)
tests_test_attr_tables_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)
tests_test_sma_SOURCES = tests/test_sma.c
tests_test_sma_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(GLIB_CFLAGS)
tests_test_sma_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)

tests_test_pma_SOURCES = tests/test_pma.c
tests_test_pma_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(GLIB_CFLAGS)
tests_test_pma_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)

tests_test_sa_SOURCES = tests/test_sa.c
tests_test_sa_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(GLIB_CFLAGS)
tests_test_sa_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)

# What a node's vendor and device ID make it show (sysfs identity, firmware).
check_PROGRAMS += tests/test_identity
TESTS += tests/test_identity
tests_test_identity_SOURCES = tests/test_identity.c
tests_test_identity_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_identity_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)

# Mellanox's vendor-specific class at the bytes vendstat reads.
check_PROGRAMS += tests/test_mlnx
TESTS += tests/test_mlnx
tests_test_mlnx_SOURCES = tests/test_mlnx.c
tests_test_mlnx_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_mlnx_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)

# Who a GMP reaches: QP1 alone, with its Q_Key (the PMA, the SA, a program's agents).
check_PROGRAMS += tests/test_net
TESTS += tests/test_net
tests_test_net_SOURCES = tests/test_net.c
tests_test_net_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(GLIB_CFLAGS)
tests_test_net_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)

# The congestion control agent.
check_PROGRAMS += tests/test_cc
TESTS += tests/test_cc
tests_test_cc_SOURCES = tests/test_cc.c
tests_test_cc_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(GLIB_CFLAGS)
tests_test_cc_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)

# The backend through the public API (it loads the built backend-sim.so).
check_PROGRAMS += tests/test_sim_backend
TESTS += tests/test_sim_backend
tests_test_sim_backend_SOURCES = tests/test_sim_backend.c
tests_test_sim_backend_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) \
	-DMODULE_DIR='"$(abs_top_builddir)/.libs"'
tests_test_sim_backend_LDADD = libibumad.la $(CMOCKA_LIBS) -lpthread
tests_test_sim_backend_DEPENDENCIES = libibumad.la backend-sim.la

# The shared fabric's server and its clients (malformed messages, clashes, faults told to
# clients, the server dying).
check_PROGRAMS += tests/test_arena
TESTS += tests/test_arena
tests_test_arena_SOURCES = tests/test_arena.c tests/arena_lock.c tests/arena_lock.h
tests_test_arena_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_arena_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)

# The framing: long messages sent as sockets drain, read whole or a slice at a time.
check_PROGRAMS += tests/test_fabric_proto
TESTS += tests/test_fabric_proto
tests_test_fabric_proto_SOURCES = tests/test_fabric_proto.c
tests_test_fabric_proto_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_fabric_proto_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)

check_PROGRAMS += tests/test_fabric_server
TESTS += tests/test_fabric_server
tests_test_fabric_server_SOURCES = tests/test_fabric_server.c tests/child.c tests/child.h \
	tests/arena_lock.c tests/arena_lock.h tests/own_server.c tests/own_server.h
tests_test_fabric_server_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(GLIB_CFLAGS) \
	-DMODULE_DIR='"$(abs_top_builddir)/.libs"'
tests_test_fabric_server_LDADD = simfabric/libfabricserver.la libumad-sim.la libibumad.la \
	$(GLIB_LIBS) $(CMOCKA_LIBS) -lpthread
tests_test_fabric_server_DEPENDENCIES = simfabric/libfabricserver.la libumad-sim.la libibumad.la \
	backend-sim.la

# What a client checks of its server before trusting it, and the attach timeout (a fake
# server in a child process; the cases needing another user run as root).
check_PROGRAMS += tests/test_fabric_client
TESTS += tests/test_fabric_client
tests_test_fabric_client_SOURCES = tests/test_fabric_client.c tests/child.c tests/child.h
tests_test_fabric_client_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) \
	-DMODULE_DIR='"$(abs_top_builddir)/.libs"'
tests_test_fabric_client_LDADD = simfabric/libsimfabric.la libibumad.la $(GLIB_LIBS) \
	$(CMOCKA_LIBS) -lpthread
tests_test_fabric_client_DEPENDENCIES = simfabric/libsimfabric.la libibumad.la backend-sim.la

# The descriptor's lazy signalling: who is woken, and when (threads racing the queue).
# When a wait for another process spins (simfabric/peer_wait.h), on a clock the test sets.
check_PROGRAMS += tests/test_peer_wait
TESTS += tests/test_peer_wait
tests_test_peer_wait_SOURCES = tests/test_peer_wait.c
tests_test_peer_wait_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_peer_wait_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)

check_PROGRAMS += tests/test_wakeup
TESTS += tests/test_wakeup
tests_test_wakeup_SOURCES = tests/test_wakeup.c
tests_test_wakeup_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) \
	-DMODULE_DIR='"$(abs_top_builddir)/.libs"'
tests_test_wakeup_LDADD = libibumad.la $(CMOCKA_LIBS) -lpthread
tests_test_wakeup_DEPENDENCIES = libibumad.la backend-sim.la

# Agents of one process, attached at two nodes, talking through the fabric.
check_PROGRAMS += tests/test_sim_agents
TESTS += tests/test_sim_agents
tests_test_sim_agents_SOURCES = tests/test_sim_agents.c
tests_test_sim_agents_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) \
	-DMODULE_DIR='"$(abs_top_builddir)/.libs"'
tests_test_sim_agents_LDADD = libibumad.la $(CMOCKA_LIBS) -lpthread
tests_test_sim_agents_DEPENDENCIES = libibumad.la backend-sim.la

# Faults through libumad-sim: links, nodes, drops, traps.
check_PROGRAMS += tests/test_sim_faults
TESTS += tests/test_sim_faults
tests_test_sim_faults_SOURCES = tests/test_sim_faults.c tests/own_net.h
tests_test_sim_faults_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(GLIB_CFLAGS) \
	-DMODULE_DIR='"$(abs_top_builddir)/.libs"'
# libsimfabric too: the fault request is also tested on a fabric of the test's own.
tests_test_sim_faults_LDADD = libumad-sim.la libibumad.la simfabric/libsimfabric.la \
	$(GLIB_LIBS) $(CMOCKA_LIBS) -lm
tests_test_sim_faults_DEPENDENCIES = libumad-sim.la libibumad.la backend-sim.la \
	simfabric/libsimfabric.la

# Its footprint on the host: device names, run-time directories of dead processes.
check_PROGRAMS += tests/test_sim_runtime
TESTS += tests/test_sim_runtime
tests_test_sim_runtime_SOURCES = tests/test_sim_runtime.c tests/child.c tests/child.h
tests_test_sim_runtime_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) \
	-DMODULE_DIR='"$(abs_top_builddir)/.libs"'
tests_test_sim_runtime_LDADD = libibumad.la backends/libsysfswriter.la $(CMOCKA_LIBS)
tests_test_sim_runtime_DEPENDENCIES = libibumad.la backend-sim.la

# The built-in SM's bring-up: LIDs, routes, multicast trees, port values.
check_PROGRAMS += tests/test_subnet_up
TESTS += tests/test_subnet_up
tests_test_subnet_up_SOURCES = tests/test_subnet_up.c
tests_test_subnet_up_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(GLIB_CFLAGS)
tests_test_subnet_up_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)

# The live fabric described (show, JSON, dump, dot), and scenario files.
check_PROGRAMS += tests/test_describe tests/test_scenario
TESTS += tests/test_describe tests/test_scenario
tests_test_describe_SOURCES = tests/test_describe.c
tests_test_describe_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(GLIB_CFLAGS) \
	-DTOP_SRCDIR='"$(abs_top_srcdir)"'
tests_test_describe_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)
tests_test_scenario_SOURCES = tests/test_scenario.c
tests_test_scenario_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(GLIB_CFLAGS)
tests_test_scenario_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)

# The fault module: its table of kinds, the one parser of umad fabric's arguments and scenario
# lines, the text written back, the bytes FP_CONTROL carries.
# The owner of a fabric: attaching, IsSM and the step-aside, clashes, routing, change notices.
check_PROGRAMS += tests/test_hosting
TESTS += tests/test_hosting
tests_test_hosting_SOURCES = tests/test_hosting.c
tests_test_hosting_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(GLIB_CFLAGS)
tests_test_hosting_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)

check_PROGRAMS += tests/test_fault
TESTS += tests/test_fault
tests_test_fault_SOURCES = tests/test_fault.c tests/own_net.h
tests_test_fault_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(GLIB_CFLAGS)
tests_test_fault_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)

# Trap 128 and PortStateChange when a switch port's state changes: by an SMP, a peer, a fault.
check_PROGRAMS += tests/test_port_traps
TESTS += tests/test_port_traps
tests_test_port_traps_SOURCES = tests/test_port_traps.c
tests_test_port_traps_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(GLIB_CFLAGS)
tests_test_port_traps_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)

# A fabric reached over TCP: its key file, the handshake proving both ends hold the key, the
# address as written and the sockets (loopback, IPv4 and IPv6).
check_PROGRAMS += tests/test_fabric_key
TESTS += tests/test_fabric_key
tests_test_fabric_key_SOURCES = tests/test_fabric_key.c
tests_test_fabric_key_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_fabric_key_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)
check_PROGRAMS += tests/test_fabric_auth
TESTS += tests/test_fabric_auth
tests_test_fabric_auth_SOURCES = tests/test_fabric_auth.c
tests_test_fabric_auth_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(GLIB_CFLAGS)
tests_test_fabric_auth_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS) -lpthread
check_PROGRAMS += tests/test_fabric_tcp
TESTS += tests/test_fabric_tcp
tests_test_fabric_tcp_SOURCES = tests/test_fabric_tcp.c
tests_test_fabric_tcp_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_fabric_tcp_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS) -lpthread
check_PROGRAMS += tests/test_handshake_share
TESTS += tests/test_handshake_share
tests_test_handshake_share_SOURCES = tests/test_handshake_share.c
tests_test_handshake_share_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS)
tests_test_handshake_share_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) $(CMOCKA_LIBS)
# How the shared fabric's clients and server wait for each other: every sleeper woken, on one
# CPU and spread; a client killed mid-wait costs the server nothing (a server process, clients).
check_PROGRAMS += tests/test_fabric_waits
TESTS += tests/test_fabric_waits
tests_test_fabric_waits_SOURCES = tests/test_fabric_waits.c tests/own_server.c tests/own_server.h
tests_test_fabric_waits_CPPFLAGS = $(AM_CPPFLAGS) $(CMOCKA_CFLAGS) $(GLIB_CFLAGS)
tests_test_fabric_waits_LDADD = simfabric/libfabricserver.la $(GLIB_LIBS) $(CMOCKA_LIBS) -lpthread
endif

# The key handshake between two hosts: network namespaces joined by a veth pair (root; a
# harness later tests source), tcp_auth_peer serving in one and connecting from the other.
check_PROGRAMS += tests/tcp_auth_peer
tests_tcp_auth_peer_SOURCES = tests/tcp_auth_peer.c
tests_tcp_auth_peer_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS)
TESTS += tests/tcp_auth_netns.sh
EXTRA_DIST += tests/netns_pair.sh tests/tcp_auth_netns.sh
# A fair share of the TCP server's handshake slots: peers without the key holding and
# renewing connections (tcp_keyless_peer) while clients over the loopback are served.
check_PROGRAMS += tests/tcp_keyless_peer
tests_tcp_keyless_peer_SOURCES = tests/tcp_keyless_peer.c
TESTS += tests/tcp_handshake_share.sh
EXTRA_DIST += tests/tcp_handshake_share.sh
# A client of the same user writing over the fabric's shared memory: the server stops with its
# message, never of a signal.
check_PROGRAMS += tests/arena_vandal
tests_arena_vandal_SOURCES = tests/arena_vandal.c
tests_arena_vandal_LDADD = simfabric/libsimfabric.la $(GLIB_LIBS) -lpthread
TESTS += tests/arena_written_over.sh
EXTRA_DIST += tests/arena_written_over.sh
# A fabric over TCP between two namespaces: opensm and the diags as remote clients.
TESTS += tests/fabric_tcp.sh
EXTRA_DIST += tests/fabric_tcp.sh

# Debian's opensm and infiniband-diags on UMAD_BACKEND=sim (and ibsim as the oracle).
TESTS += tests/sim_tools.sh
EXTRA_DIST += tests/sim_env.sh tests/opensm_session.sh tests/sim_tools.sh tests/sim_capture.sh \
	tests/sim_capture_shared.sh tests/sim_builtin.sh

# A fabric of Mellanox nodes under the tools: vendor attributes, FDR10, the
# hosts' identity (CA type, firmware, board ID).
TESTS += tests/sim_mellanox.sh
EXTRA_DIST += tests/sim_mellanox.sh

# A backend that cannot start, seen by the tools: they print the library's reason.
TESTS += tests/sim_init_errors.sh
EXTRA_DIST += tests/sim_init_errors.sh

# The hint, once per process, that each process has a fabric of its own
# (ibping to another process's ibping -S), and not where it does not help.
TESTS += tests/sim_own_fabric.sh
EXTRA_DIST += tests/sim_own_fabric.sh

# UMAD_SIM_SYSFS against another user's links and directories (root, and
# nobody through setpriv; skipped when not root).
TESTS += tests/sysfs_other_user.sh
EXTRA_DIST += tests/sysfs_other_user.sh

# HDR, NDR, EDR and FDR fabrics as clusters print them: the diags print them
# back at their speeds, opensm and the built-in SM bring them up alike.
TESTS += tests/sim_fabric_speeds.sh
EXTRA_DIST += tests/sim_fabric_speeds.sh tests/fabrics/hdr-ndr.topo tests/fabrics/edr-fdr.topo

# The live fabric's dump next to ibnetdiscover's output, JSON read by
# Python, dot drawn by Graphviz (each part skipped without its tool).
TESTS += tests/describe_tools.sh
EXTRA_DIST += tests/describe_tools.sh

# The same tools on the fabric as the built-in SM leaves it; errors injected
# into an unmodified tool's process by a preload calling libumad-sim.
TESTS += tests/sim_builtin.sh
check_LTLIBRARIES += tests/inject_errors.la
tests_inject_errors_la_SOURCES = tests/inject_errors.c
tests_inject_errors_la_LIBADD = libumad-sim.la
tests_inject_errors_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere

# Captures of the same tools on the simulator, read by tshark and replayed.
if ENABLE_CAPTURE
TESTS += tests/sim_capture.sh
# Several programs, one after another and at once, writing one capture.
TESTS += tests/sim_capture_shared.sh
# One fabric for many processes: umad sim and umad fabric with the same tools.
TESTS += tests/fabric_shared.sh
# A client's fake sysfs tree follows the shared fabric (SMs, link faults).
TESTS += tests/fabric_sysfs.sh
# The agents' exchanges of test_sim_agents again, through a shared fabric's server.
TESTS += tests/sim_agents_shared.sh
# Every saquery record type from opensm's SA in another process, as opensm sent it.
TESTS += tests/fabric_sa_opensm.sh
# ibportstate disable and enable under opensm -s 0: Trap 128 tells it, and the route comes back.
TESTS += tests/fabric_portstate.sh
check_PROGRAMS += tests/capture_messages
tests_capture_messages_SOURCES = tests/capture_messages.c
tests_capture_messages_LDADD = pcap/libcapturereader.la pcap/libcapturemeta.la
# The kernel's TID rewriting on every fabric: hi_tids of agents, 1,000 SMPs
# outstanding, a multicast re-registration storm that ends.
TESTS += tests/sim_tids.sh
check_PROGRAMS += tests/tid_probe
tests_tid_probe_SOURCES = tests/tid_probe.c
tests_tid_probe_LDADD = libibumad.la
# umad_send()'s retries resent as the kernel resends them, on every path a MAD takes.
TESTS += tests/sim_retries.sh
check_PROGRAMS += tests/retry_probe
tests_retry_probe_SOURCES = tests/retry_probe.c
tests_retry_probe_LDADD = libumad-sim.la libibumad.la -lpthread
# Sixteen programs at once on a shared fabric that drops, beside a busy loop: exactly once.
TESTS += tests/fabric_many_drops.sh
# MCMemberRecord joins, creations and leaves: the built-in SA answers as opensm does.
TESTS += tests/mcast_rules.sh
check_PROGRAMS += tests/mcast_rules
tests_mcast_rules_SOURCES = tests/mcast_rules.c
tests_mcast_rules_LDADD = libibumad.la
# osmtest's flows against the built-in SA, in-process and shared, on several
# fabrics; the built-in SA's answers to what they ask against opensm's
# (sa_probe asks an SA one request).
TESTS += tests/osmtest_sa.sh tests/sa_oracle.sh
check_PROGRAMS += tests/sa_probe
tests_sa_probe_SOURCES = tests/sa_probe.c
tests_sa_probe_LDADD = libibumad.la
# umad fabric refuses a delay over a minute and a scenario's node too long, saying so.
TESTS += tests/fabric_limits.sh
# umad sim installed where the loader does not look runs COMMAND on its own library.
TESTS += tests/sim_prefix.sh
# The umad command against its usage and umad(1): options, numbers, SIGHUP, man pages.
TESTS += tests/umad_usage.sh
# Replies of many megabytes through the server, on fabrics of 4,176 and 1,344 nodes.
TESTS += tests/fabric_big.sh
# What opensm programs in switches, kept as real switches keep it: port 0 Active (dfsssp).
TESTS += tests/opensm_switch_port0.sh
# SL-to-VL tables per input and output port: torus-2QoS's read back as written.
TESTS += tests/opensm_sl2vl.sh
# The run directory of umad sim and umad kernel: private, reclaimed after kill -9.
TESTS += tests/sim_run_dir.sh
# opensm's cache, dumps and log in the run's directory: two runs at once share nothing.
TESTS += tests/sim_opensm_private.sh
AM_TESTS_ENVIRONMENT += MAKE='$(MAKE)'; export MAKE;
endif
EXTRA_DIST += tests/fabric_shared.sh tests/fabric_sysfs.sh tests/sim_agents_shared.sh tests/sim_tids.sh \
	tests/sim_retries.sh tests/fabric_many_drops.sh tests/mcast_rules.sh tests/osmtest_sa.sh tests/sa_oracle.sh \
	tests/fabric_sa_opensm.sh tests/fabric_limits.sh tests/sim_prefix.sh tests/umad_usage.sh \
	tests/fabric_big.sh tests/opensm_switch_port0.sh tests/opensm_sl2vl.sh \
	tests/fabric_portstate.sh tests/sim_run_dir.sh tests/sim_opensm_private.sh
endif

