# Backends linked into libibumad.so.3 (libc only).  Backends needing glib or
# libpcap are modules: see the sim and replay fragments.
kernel_backend_sources = backends/kernel.c backends/sysfs_reader.c backends/sysfs_reader.h \
	backends/sysfs_layout.h

# User-space umad ports (open-port table, agents, the kernel's rules), for
# the backends without a kernel.
soft_port_sources = backends/soft_port.c backends/soft_port.h \
	backends/mad_rules.c backends/mad_rules.h \
	backends/mad_queue.c backends/mad_queue.h

# The replay backend: a module (found through UMAD_MODULE_DIR or $(pkglibdir)).
pkglib_LTLIBRARIES += backend-replay.la
backend_replay_la_SOURCES = backends/replay.c $(soft_port_sources)
backend_replay_la_LIBADD = pcap/libcapturereader.la
backend_replay_la_LDFLAGS = -module -avoid-version -shared

# The sim backend: a module, since the simulated fabric uses glib.
if ENABLE_SIM
pkglib_LTLIBRARIES += backend-sim.la
backend_sim_la_SOURCES = backends/sim.c backends/runtime_dir.c backends/runtime_dir.h \
	$(soft_port_sources)
backend_sim_la_LIBADD = simfabric/libsimfabric.la backends/libsysfswriter.la
backend_sim_la_LDFLAGS = -module -avoid-version -shared -no-undefined
endif

# The writer of fake sysfs trees (libc only): the sim backend's host, the
# tests' hosts and the example's.
noinst_LTLIBRARIES += backends/libsysfswriter.la
backends_libsysfswriter_la_SOURCES = backends/sysfs_writer.c backends/sysfs_writer.h \
	backends/sysfs_layout.h
