/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * A run's private directory (umad sim, umad kernel), so that what COMMAND
 * writes of its own stays with the run: the socket of umad sim's fabric,
 * and the state of the tools, which would otherwise go to the machine's
 * places and be shared by every run there (opensm's GUID-to-LID cache in
 * /var/cache/opensm, its log and dumps in /var/log):
 *
 *   DIR/state/cache   OSM_CACHE_DIR (guid2lid, guid2mkey, neighbors)
 *   DIR/state/log     OSM_TMP_DIR (opensm's dumps), and opensm's log
 *   DIR/state/tmp     TMPDIR
 *
 * each variable set only when the user has not set it.  opensm has no
 * variable for its log: when COMMAND is opensm itself, and none of its
 * options says where the log goes (-f, --log_file, or a config file: -F,
 * --config), --log_file DIR/state/log/opensm.log goes first among its
 * options; an opensm that COMMAND runs by name finds DIR/bin/opensm first
 * on PATH, which does the same (one run by its full path logs where it
 * would).
 *
 * DIR is a runtime_dir (backends/runtime_dir.h): PREFIX.PID.XXXXXX in
 * XDG_RUNTIME_DIR, TMPDIR or /tmp, mode 0700, ours, locked while the run
 * lives (COMMAND and what it starts hold the lock too), removed at the end;
 * one left by a run killed with SIGKILL is removed by the next run once
 * its maker is dead and nothing of it holds the lock.  Kept state (keep):
 * the tools' directory is umad-state.XXXXXX beside DIR instead, and stays.
 */
#ifndef CLI_RUN_STATE_H
#define CLI_RUN_STATE_H

#include <limits.h>

#include "backends/runtime_dir.h"

struct run_state {
	struct runtime_dir dir;		/* DIR; its path "" when none was made */
	char state[PATH_MAX];		/* the tools' directory; "" when none was made */
	char log[PATH_MAX + 16];	/* opensm's log in it */
	char bin[PATH_MAX + 8];		/* DIR/bin, opensm's stand-in first on PATH; "" when none */
	int keep;			/* state outlives the run */
};

/*
 * Make DIR (PREFIX.PID.XXXXXX) and the tools' directory (inside it, or
 * kept beside it).  what names the command in messages.  0, or -1 after
 * saying why.
 */
int run_state_open(struct run_state *rs, const char *what, const char *prefix, int keep);

/*
 * In COMMAND's process, before it execs: the variables the user has not
 * set, pointing into the tools' directory, and a descriptor of DIR's lock
 * that COMMAND inherits (the run lives while any of its processes does).
 */
void run_state_enter(const struct run_state *rs);

/*
 * COMMAND's argv, with opensm's log in the tools' directory when COMMAND
 * is opensm and does not say where its log goes; argv itself otherwise.
 * What is returned other than argv is free()d by the caller (the strings
 * are argv's or rs's).  NULL when out of memory.
 */
char **run_state_command(const struct run_state *rs, char **argv);

/* At the end: DIR removed, and all in it (kept state is not in it). */
void run_state_close(struct run_state *rs);

#endif /* CLI_RUN_STATE_H */
