# Example programs, built against the library in this tree.
noinst_PROGRAMS += examples/list_ports examples/dr_walk
examples_list_ports_SOURCES = examples/list_ports.c
examples_list_ports_LDADD = libibumad.la
examples_dr_walk_SOURCES = examples/dr_walk.c
examples_dr_walk_LDADD = libibumad.la
# A fake host for the kernel backend, written by the fake sysfs writer.
noinst_PROGRAMS += examples/fake_host
examples_fake_host_SOURCES = examples/fake_host.c
examples_fake_host_LDADD = backends/libsysfswriter.la
EXTRA_DIST += examples/demo.sh

# The README's demo: the DR walk and Debian's ibnetdiscover on the embedded fabric.
.PHONY: demo
demo: examples/dr_walk$(EXEEXT) examples/list_ports$(EXEEXT) libibumad.la
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' $(SHELL) $(srcdir)/examples/demo.sh
