# Example programs, built against the library in this tree.
noinst_PROGRAMS += examples/list_ports
examples_list_ports_SOURCES = examples/list_ports.c
examples_list_ports_LDADD = libibumad.la
EXTRA_DIST += examples/demo.sh examples/fake-host.sh

.PHONY: demo
demo: examples/list_ports$(EXEEXT) libibumad.la
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' $(SHELL) $(srcdir)/examples/demo.sh
