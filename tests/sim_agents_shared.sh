#!/bin/sh
# test_sim_agents on a shared fabric: its two devices attached through
# `umad sim`, so that every exchange (RMPP answers whole and in segments,
# short tables, pings across threads, multicast) goes through the server.
needs=""
. "$(dirname "$0")/sim_env.sh"
umad=$top_builddir/cli/umad
[ -x "$umad" ] || { echo "FAIL: $umad not built"; exit 1; }
# The test needs the LIDs the built-in SM gives.
UMAD_SIM_SM=builtin sim timeout 300 "$umad" sim -- "$top_builddir/tests/test_sim_agents"
