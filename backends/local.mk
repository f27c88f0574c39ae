# Backends linked into libibumad.so.3 (libc only).  Backends needing glib or
# libpcap are modules: see the sim and replay fragments.
kernel_backend_sources = backends/kernel.c

# The replay backend: a module (found through UMAD_MODULE_DIR or $(pkglibdir)).
pkglib_LTLIBRARIES += backend-replay.la
backend_replay_la_SOURCES = backends/replay.c backends/mad_queue.c backends/mad_queue.h
backend_replay_la_LIBADD = pcap/libcapturereader.la
backend_replay_la_LDFLAGS = -module -avoid-version -shared

# The sim backend: a module, since the simulated fabric uses glib.
if ENABLE_SIM
pkglib_LTLIBRARIES += backend-sim.la
backend_sim_la_SOURCES = backends/sim.c backends/mad_queue.c backends/mad_queue.h
backend_sim_la_LIBADD = simfabric/libsimfabric.la
backend_sim_la_LDFLAGS = -module -avoid-version -shared -no-undefined
endif
