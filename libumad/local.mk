# libibumad.so.3: the public API, dispatch to backends, strings and dumps.

umadincludedir = $(includedir)/infiniband
umadinclude_HEADERS = \
	include/infiniband/umad.h \
	include/infiniband/umad_types.h \
	include/infiniband/umad_str.h \
	include/infiniband/umad_sm.h \
	include/infiniband/umad_sa.h \
	include/infiniband/umad_cm.h \
	include/infiniband/umad_sa_mcm.h

pkgconfig_DATA = libumad/libibumad.pc

# Everything of the library, as a convenience library the unit tests link
# statically (so that they can reach internals and use linker wraps).
noinst_LTLIBRARIES += libumad/libumad-core.la
libumad_libumad_core_la_SOURCES = \
	libumad/internal.h \
	base/file_kind.h \
	libumad/tap.h \
	base/mad_wire.h \
	base/mad_layout.h \
	libumad/dispatch.c \
	libumad/umad.c \
	libumad/resolve.c \
	libumad/ca_fetch.c \
	libumad/device_list.c \
	libumad/umad_str.c \
	libumad/dump.c \
	libumad/project_note.c \
	base/project_note.h \
	base/backend.h \
	base/umad_ioctl.h \
	base/link_speed.h \
	base/ca_port.h \
	base/errbuf.h \
	base/ibwarn.h
# The built-in backends join these sources in backends/local.mk.
libumad_libumad_core_la_CPPFLAGS = $(AM_CPPFLAGS) -DUMAD_MODULE_DIR='"$(umadmoduledir)"'
libumad_libumad_core_la_LIBADD =
if ENABLE_CAPTURE
# The UMAD_CAPTURE tap (libumad/tap.h says what the API calls without it).
libumad_libumad_core_la_LIBADD += pcap/libcapture.la pcap/libcapturemeta.la
endif

lib_LTLIBRARIES += libibumad.la
libibumad_la_SOURCES =
libibumad_la_LIBADD = libumad/libumad-core.la
# -version-info 7:0:4 gives libibumad.so.3.4.0 (SONAME libibumad.so.3, ABI level 4 as rdma-core).
libibumad_la_LDFLAGS = -version-info 7:0:4 -no-undefined \
	-Wl,--version-script=$(srcdir)/libumad/libibumad.map -Wl,-z,defs
EXTRA_libibumad_la_DEPENDENCIES = libumad/libibumad.map
EXTRA_DIST += libumad/libibumad.map libumad/libibumad.pc.in

if ENABLE_SIM
# libumad-sim.so.0: faults on the sim backend's fabric, for tests (libc and libdl only).
umadinclude_HEADERS += include/infiniband/umad_sim.h
lib_LTLIBRARIES += libumad-sim.la
libumad_sim_la_SOURCES = libumad/umad_sim.c base/sim_control.h base/fault_req.h
libumad_sim_la_CPPFLAGS = $(AM_CPPFLAGS) -DUMAD_MODULE_DIR='"$(umadmoduledir)"'
libumad_sim_la_LIBADD = libibumad.la
libumad_sim_la_LDFLAGS = -version-info 0:0:0 -no-undefined -Wl,-z,defs \
	-export-symbols-regex '^umad_sim_'
else
EXTRA_DIST += include/infiniband/umad_sim.h
endif

# After make install: ldconfig, so that programs find libibumad.so.3 in a
# directory the loader's configuration names (/usr/local/lib) through its
# cache; umad finds it without (its DT_RPATH).  Only for such a directory,
# never under DESTDIR (a staged install); when not root, what to run is said.
install-exec-hook: install-ldconfig
install-ldconfig:
	@dir='$(libdir)'; real=`realpath -m "$$dir" 2>/dev/null || echo "$$dir"`; \
	if test -n '$(DESTDIR)' || test -z '$(LDCONFIG)'; then :; \
	elif ! '$(LDCONFIG)' -v -N -X 2>/dev/null | grep -Eq "^($$dir|$$real):"; then \
		echo "libumad: $$dir is not among the loader's configured directories: programs find libibumad.so.3 there with LD_LIBRARY_PATH=$$dir (umad finds it by itself)"; \
	elif test "`id -u`" != 0; then \
		echo "libumad: run '$(LDCONFIG)' as root, so that programs find libibumad.so.3 in $$dir (umad finds it by itself)"; \
	else \
		echo "libumad: $(LDCONFIG)"; '$(LDCONFIG)' || \
		echo "libumad: $(LDCONFIG) failed: programs may find another libibumad.so.3 before $$dir's"; \
	fi
.PHONY: install-ldconfig
