# libFuzzer targets (tests/fuzz/fuzz_NAME.c, seed corpora in
# tests/fuzz/corpus/NAME/): "make fuzz" builds each with clang, ASan and
# UBSan and runs it FUZZ_SECONDS (0: no limit), or until FUZZ_RUNS inputs
# when that is set and comes first (FUZZ_TARGETS to pick some).  New inputs
# go to fuzz/corpus-NAME in the build tree; findings to fuzz/NAME-crash-*.
FUZZ_CC = clang
FUZZ_SECONDS = 60
FUZZ_RUNS =
# An input that runs longer than this many seconds is a finding (a hang), not
# libFuzzer's default twenty minutes.
FUZZ_INPUT_TIMEOUT = 25
FUZZ_TARGETS = capture_reader capture_meta topology sim_mad replay_match api scenario fabric_proto \
	fabric_auth fabric_tcp_addr elf_file arena_header
if ENABLE_KERNEL_FS
FUZZ_TARGETS += kernel_fs
endif
# ASan's default quarantine (256 MiB of freed memory held back) makes every
# input of the targets that allocate per call touch fresh pages: a smaller
# one runs them about a third faster and still catches a use after any of
# the last 16 MiB of frees.
FUZZ_ASAN_OPTIONS = quarantine_size_mb=16:malloc_context_size=4
FUZZ_FLAGS = -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	-I$(top_builddir) -I$(top_srcdir) -I$(top_srcdir)/include -include config.h

fuzz_capture_reader_sources = tests/fuzz/fuzz_capture_reader.c pcap/pcapng_reader.c
fuzz_capture_meta_sources = tests/fuzz/fuzz_capture_meta.c pcap/capture_meta.c
fuzz_topology_sources = tests/fuzz/fuzz_topology.c simfabric/fabric.c simfabric/topology.c \
	simfabric/arena.c simfabric/text.c
fuzz_sim_sources = simfabric/fabric.c simfabric/identity.c simfabric/mlnx.c simfabric/arena.c simfabric/topology.c simfabric/port_state.c \
	simfabric/sma.c simfabric/pma.c simfabric/cc.c simfabric/route.c simfabric/sa.c simfabric/sa_common.c simfabric/sa_records.c \
	simfabric/sa_path.c simfabric/sa_multipath.c simfabric/sa_mcast.c simfabric/sa_service.c simfabric/sa_inform.c \
	simfabric/subnet_up.c simfabric/net.c simfabric/fault.c simfabric/text.c simfabric/describe.c \
	backends/sysfs_writer.c backends/sysfs_values.c \
	backends/sim.c backends/runtime_dir.c backends/soft_port.c base/mad_rules.c \
	backends/mad_queue.c backends/sim_local.c backends/sim_remote.c simfabric/fabric_proto.c simfabric/fabric_client.c \
	simfabric/peer_wait.c simfabric/fabric_trust.c simfabric/hosting.c simfabric/fabric_auth.c simfabric/fabric_key.c \
	simfabric/fabric_tcp.c
fuzz_sim_mad_sources = tests/fuzz/fuzz_sim_mad.c $(fuzz_sim_sources)
# The fabric alone (no backend): scenarios applied to it, and described.
fuzz_simfabric_sources = simfabric/fabric.c simfabric/identity.c simfabric/mlnx.c simfabric/arena.c simfabric/topology.c simfabric/port_state.c \
	simfabric/sma.c simfabric/pma.c simfabric/cc.c simfabric/route.c simfabric/sa.c simfabric/sa_common.c \
	simfabric/sa_records.c simfabric/sa_path.c simfabric/sa_multipath.c simfabric/sa_mcast.c simfabric/sa_service.c \
	simfabric/sa_inform.c simfabric/subnet_up.c simfabric/net.c simfabric/fault.c \
	simfabric/text.c simfabric/describe.c simfabric/scenario.c simfabric/hosting.c base/mad_rules.c \
	simfabric/fabric_proto.c
fuzz_scenario_sources = tests/fuzz/fuzz_scenario.c $(fuzz_simfabric_sources)
fuzz_fabric_proto_sources = tests/fuzz/fuzz_fabric_proto.c simfabric/fabric_server.c simfabric/peer_wait.c \
	simfabric/fabric_trust.c simfabric/fabric_auth.c \
	simfabric/fabric_key.c simfabric/fabric_tcp.c simfabric/handshake_share.c \
	$(fuzz_simfabric_sources)
# A stranger's first bytes at a fabric's TCP port (the key handshake), and the address as written.
fuzz_fabric_auth_sources = tests/fuzz/fuzz_fabric_auth.c simfabric/fabric_auth.c \
	simfabric/fabric_key.c simfabric/fabric_trust.c
fuzz_fabric_tcp_addr_sources = tests/fuzz/fuzz_fabric_tcp_addr.c simfabric/fabric_tcp.c
# A stranger's program as umad sim and umad doctor read it: ELF, its notes, the loader's cache.
fuzz_elf_file_sources = tests/fuzz/fuzz_elf_file.c cli/elf_file.c cli/ld_cache.c
# The fabric's shared memory as a client of the same user may leave its header.
fuzz_arena_header_sources = tests/fuzz/fuzz_arena_header.c simfabric/arena.c
fuzz_libibumad_sources = libumad/dispatch.c libumad/umad.c libumad/resolve.c libumad/ca_fetch.c \
	libumad/device_list.c libumad/umad_str.c libumad/dump.c backends/sysfs_reader.c \
	backends/kernel.c pcap/crc.c pcap/ib_packet.c pcap/capture_file.c pcap/pcapng_writer.c \
	pcap/capture_meta.c pcap/capture_tap.c
fuzz_api_sources = tests/fuzz/fuzz_api.c $(fuzz_libibumad_sources)
# umad kernel's file system (FUSE requests on a socket) over the sim backend in the process.
fuzz_kernel_fs_sources = tests/fuzz/fuzz_kernel_fs.c cli/kfs.c cli/kfs_dev.c cli/kfs_tree.c \
	cli/kfs_query.c $(fuzz_sim_sources)
fuzz_replay_match_sources = tests/fuzz/fuzz_replay_match.c backends/replay.c backends/replay_index.c \
	backends/soft_port.c base/mad_rules.c backends/mad_queue.c pcap/pcapng_reader.c \
	pcap/pcapng_writer.c pcap/capture_file.c pcap/ib_packet.c pcap/crc.c pcap/capture_meta.c

EXTRA_DIST += tests/fuzz
CLEANFILES += fuzz/fuzz_capture_reader fuzz/fuzz_capture_meta fuzz/fuzz_topology fuzz/fuzz_sim_mad fuzz/fuzz_api \
	fuzz/fuzz_replay_match fuzz/fuzz_fabric_proto fuzz/fuzz_scenario \
	fuzz/fuzz_fabric_auth fuzz/fuzz_fabric_tcp_addr fuzz/fuzz_kernel_fs fuzz/fuzz_elf_file \
	fuzz/fuzz_arena_header \
	fuzz/modules/backend-sim.so

fuzz/fuzz_capture_reader: $(fuzz_capture_reader_sources:%=$(top_srcdir)/%)
	@$(MKDIR_P) fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(fuzz_capture_reader_sources:%=$(top_srcdir)/%) -o $@
fuzz/fuzz_capture_meta: $(fuzz_capture_meta_sources:%=$(top_srcdir)/%)
	@$(MKDIR_P) fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(fuzz_capture_meta_sources:%=$(top_srcdir)/%) -o $@
fuzz/fuzz_topology: $(fuzz_topology_sources:%=$(top_srcdir)/%)
	@$(MKDIR_P) fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) $(GLIB_CFLAGS) -fsanitize=fuzzer \
		$(fuzz_topology_sources:%=$(top_srcdir)/%) $(GLIB_LIBS) -o $@
fuzz/fuzz_sim_mad: $(fuzz_sim_mad_sources:%=$(top_srcdir)/%)
	@$(MKDIR_P) fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) $(GLIB_CFLAGS) -fsanitize=fuzzer \
		$(fuzz_sim_mad_sources:%=$(top_srcdir)/%) $(GLIB_LIBS) -lpthread -o $@
fuzz/fuzz_fabric_proto: $(fuzz_fabric_proto_sources:%=$(top_srcdir)/%)
	@$(MKDIR_P) fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) $(GLIB_CFLAGS) -fsanitize=fuzzer \
		$(fuzz_fabric_proto_sources:%=$(top_srcdir)/%) $(GLIB_LIBS) -lpthread -o $@
fuzz/fuzz_scenario: $(fuzz_scenario_sources:%=$(top_srcdir)/%)
	@$(MKDIR_P) fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) $(GLIB_CFLAGS) -fsanitize=fuzzer \
		$(fuzz_scenario_sources:%=$(top_srcdir)/%) $(GLIB_LIBS) -o $@
fuzz/fuzz_fabric_auth: $(fuzz_fabric_auth_sources:%=$(top_srcdir)/%)
	@$(MKDIR_P) fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) $(GLIB_CFLAGS) -fsanitize=fuzzer \
		$(fuzz_fabric_auth_sources:%=$(top_srcdir)/%) $(GLIB_LIBS) -o $@
fuzz/fuzz_fabric_tcp_addr: $(fuzz_fabric_tcp_addr_sources:%=$(top_srcdir)/%)
	@$(MKDIR_P) fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(fuzz_fabric_tcp_addr_sources:%=$(top_srcdir)/%) -o $@
fuzz/fuzz_elf_file: $(fuzz_elf_file_sources:%=$(top_srcdir)/%)
	@$(MKDIR_P) fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(fuzz_elf_file_sources:%=$(top_srcdir)/%) -o $@
fuzz/fuzz_arena_header: $(fuzz_arena_header_sources:%=$(top_srcdir)/%)
	@$(MKDIR_P) fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer $(fuzz_arena_header_sources:%=$(top_srcdir)/%) \
		-lpthread -o $@
fuzz/fuzz_replay_match: $(fuzz_replay_match_sources:%=$(top_srcdir)/%)
	@$(MKDIR_P) fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer \
		$(fuzz_replay_match_sources:%=$(top_srcdir)/%) -lpthread -o $@
fuzz/fuzz_kernel_fs: $(fuzz_kernel_fs_sources:%=$(top_srcdir)/%)
	@$(MKDIR_P) fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) $(GLIB_CFLAGS) $(FUSE3_CFLAGS) -fsanitize=fuzzer \
		$(fuzz_kernel_fs_sources:%=$(top_srcdir)/%) $(GLIB_LIBS) $(FUSE3_LIBS) -lpthread -o $@
# The API target loads the sim backend through the module loader, as programs do.
fuzz/modules/backend-sim.so: $(fuzz_sim_sources:%=$(top_srcdir)/%)
	@$(MKDIR_P) fuzz/modules
	$(FUZZ_CC) $(FUZZ_FLAGS) $(GLIB_CFLAGS) -fsanitize=fuzzer-no-link -shared -fPIC \
		$(fuzz_sim_sources:%=$(top_srcdir)/%) $(GLIB_LIBS) -o $@
fuzz/fuzz_api: $(fuzz_api_sources:%=$(top_srcdir)/%) fuzz/modules/backend-sim.so
	@$(MKDIR_P) fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -fsanitize=fuzzer -DFUZZ_MODULE_DIR='"$(abs_top_builddir)/fuzz/modules"' \
		-DUMAD_MODULE_DIR='"$(abs_top_builddir)/fuzz/modules"' \
		$(fuzz_api_sources:%=$(top_srcdir)/%) -ldl -lpthread -o $@

.PHONY: fuzz
fuzz: $(FUZZ_TARGETS:%=fuzz/fuzz_%)
	@status=0; for t in $(FUZZ_TARGETS); do \
		mkdir -p fuzz/corpus-$$t; \
		echo "fuzz: $$t, FUZZ_SECONDS=$(FUZZ_SECONDS)$(if $(FUZZ_RUNS), FUZZ_RUNS=$(FUZZ_RUNS))"; \
		ASAN_OPTIONS="$(FUZZ_ASAN_OPTIONS)" fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) -timeout=$(FUZZ_INPUT_TIMEOUT) $(if $(FUZZ_RUNS),-runs=$(FUZZ_RUNS)) -print_final_stats=1 \
			-artifact_prefix=fuzz/$$t- fuzz/corpus-$$t $(top_srcdir)/tests/fuzz/corpus/$$t \
			> fuzz/$$t.log 2>&1 || { status=1; echo "fuzz: $$t FAILED"; tail -n 60 fuzz/$$t.log; }; \
		grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' fuzz/$$t.log | tr '\n' ' '; echo; \
	done; exit $$status
