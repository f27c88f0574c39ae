# umad kernel: programs of every kind on a simulated host through FUSE (the differential test, node_exporter, two hosts).
# The three-way differential test: Debian's libibumad3, this library's kernel backend and
# its sim backend on one host of a served fabric, the static program (which the script
# compiles itself, -static, outside the sanitizers' flags), node_exporter, the capture shim.
if ENABLE_CAPTURE
if ENABLE_SIM
if ENABLE_KERNEL_FS
TESTS += tests/kernel_diff.sh
endif
endif
endif
EXTRA_DIST += tests/kernel_diff.sh tests/kernel_static_probe.c
