# umad's command table against umad(1), and its one parser (tests/umad_cli.sh):
# in every build with umad, whichever of its commands the build has.
if BUILD_UMAD
TESTS += tests/umad_cli.sh
endif
EXTRA_DIST += tests/umad_cli.sh
