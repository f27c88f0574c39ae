# The backends (see base/backend.h).  Each has one row in
# libumad/dispatch.c and its file here: a built-in backend (libc only) in
# the list linked into libibumad.so.3, a module (backend-NAME.so, loaded
# from UMAD_MODULE_DIR or $(pkglibdir)) in a block of its own.

# Built-in backends: linked into libibumad.so.3.
libumad_libumad_core_la_SOURCES += backends/kernel.c backends/sysfs_reader.c \
	backends/sysfs_reader.h backends/sysfs_layout.h

backend_module_ldflags = -module -avoid-version -shared -no-undefined

# User-space umad ports (open-port table, agents, the kernel's rules), for
# the backends without a kernel.
# (The kernel's rules, base/mad_rules.c, come with simfabric for the sim backend.)
soft_port_sources = backends/soft_port.c backends/soft_port.h \
	backends/mad_queue.c backends/mad_queue.h

# The replay backend, answering from a capture.
if ENABLE_CAPTURE
pkglib_LTLIBRARIES += backend-replay.la
backend_replay_la_SOURCES = backends/replay.c backends/replay_index.c backends/replay_index.h \
	$(soft_port_sources) base/mad_rules.c base/mad_rules.h
backend_replay_la_LIBADD = pcap/libcapturereader.la pcap/libcapturemeta.la
backend_replay_la_LDFLAGS = -module -avoid-version -shared
endif

# The sim backend: the simulated fabric uses glib.
if ENABLE_SIM
pkglib_LTLIBRARIES += backend-sim.la
backend_sim_la_SOURCES = backends/sim.c base/sim_control.h \
	backends/sim_transport.h backends/sim_local.c backends/sim_remote.c \
	backends/runtime_dir.c backends/runtime_dir.h \
	$(soft_port_sources)
backend_sim_la_LIBADD = simfabric/libsimfabric.la backends/libsysfswriter.la
# Only what the loader and libumad-sim look up is exported: calls inside the module
# then go straight to their function, not through the PLT.
backend_sim_la_LDFLAGS = $(backend_module_ldflags) -export-symbols-regex '^umad_(backend_sim|sim_control)$$'
endif

# The template backend: built by make check beside the other modules (the
# loader's tests use it), not installed.
check_LTLIBRARIES += backend-loopback.la
backend_loopback_la_SOURCES = backends/loopback.c
backend_loopback_la_LDFLAGS = $(backend_module_ldflags) -rpath /nowhere

# The writer of fake sysfs trees (libc only): the sim backend's host, the
# tests' hosts and the example's.
noinst_LTLIBRARIES += backends/libsysfswriter.la
backends_libsysfswriter_la_SOURCES = backends/sysfs_writer.c backends/sysfs_writer.h \
	backends/sysfs_values.c backends/sysfs_values.h \
	backends/sysfs_layout.h
