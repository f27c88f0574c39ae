# Backends linked into libibumad.so.3 (libc only).  Backends needing glib or
# libpcap are modules: see the sim and replay fragments.
kernel_backend_sources = backends/kernel.c
