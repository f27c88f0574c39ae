/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * umad fabric ... and umad sim ...: a shared simulated fabric, served to
 * many processes, and controlled from the command line.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/command_check.h"
#include "cli/command_run.h"
#include "cli/fabric_cmd.h"
#include "cli/run_state.h"
#include "simfabric/fabric_client.h"
#include "simfabric/fabric_key.h"
#include "simfabric/fabric_server.h"
#include "simfabric/fabric_tcp.h"
#include "simfabric/pma.h"
#include "simfabric/scenario.h"

/* Each line indented as a continuation of umad's "usage: " (umad.c prints it after its own). */
#define USAGE_INDENT	"       "
static const char usage_serve[] =
	USAGE_INDENT "umad fabric serve [-t FILE] [--socket PATH] [--sm builtin|none] [--private]\n"
	USAGE_INDENT "                  [--listen HOST:PORT --key-file FILE]\n";
static const char usage_sim[] =
	USAGE_INDENT "umad sim [-t FILE] [--socket PATH] [--host NODE[,NODE...]] [--sm builtin|none]\n"
	USAGE_INDENT "         [--private] [--kernel] [--keep-state] -- COMMAND [ARGS...]\n";
static const char usage_text[] =
	USAGE_INDENT "umad fabric [--socket PATH] show [--json] [NODE]\n"
	USAGE_INDENT "umad fabric [--socket PATH] dump\n"
	USAGE_INDENT "umad fabric [--socket PATH] dot [NODE]\n"
	USAGE_INDENT "umad fabric [--socket PATH] scenario FILE\n";

/* The control commands: each fault (the fault module's, as a scenario line has it), the texts. */
static void control_usage(FILE *out)
{
	char form[128];
	int op;

	for (op = SIM_FAULT_LINK; op < SIM_FAULT_N_OPS; op++) {
		sim_fault_usage((enum sim_fault_op)op, form, sizeof(form));
		fprintf(out, USAGE_INDENT "umad fabric [--socket PATH] %s\n", form);
	}
	fputs(usage_text, out);
}

static void fabric_usage(FILE *out)
{
	fputs(usage_serve, out);
	control_usage(out);
}

static void sim_usage(FILE *out)
{
	fputs(usage_sim, out);
}

/* The usage, its first line starting with "usage: " when told so. */
static void print_usage(FILE *out, int first)
{
	fprintf(out, "%s%s", first ? "usage: " : "", usage_serve + (first ? strlen(USAGE_INDENT) : 0));
	fputs(usage_sim, out);
	control_usage(out);
}

/*
 * The counters a fault may raise (the fault parser's refusal points here):
 * the error counters only; the traffic counters count what the fabric carries.
 */
static void print_error_counters(FILE *out)
{
	static const char indent[] = "              ";
	size_t col = 0, n;
	unsigned c;

	fprintf(out, "%sCOUNTER: an error counter (PortCounters, and the details):\n", indent);
	for (c = 0; c < SIM_PMA_N_COUNTERS; c++) {
		const char *name = sim_pma_counter_name((enum sim_pma_counter)c);

		n = strlen(name) + (c + 1 < SIM_PMA_N_COUNTERS ? 1 : 0);
		if (col && col + 1 + n > 78) {
			fputc('\n', out);
			col = 0;
		}
		col += (size_t)fprintf(out, "%s%s%s", col ? " " : indent, name,
				       c + 1 < SIM_PMA_N_COUNTERS ? "," : "\n");
	}
}

static void fabric_help(FILE *out)
{
	int op;

	fprintf(out, "fabric FAULT  a fault on a running shared fabric, as a scenario line writes it\n"
		     "              without its time (doc/scenario-format.md):\n");
	for (op = SIM_FAULT_LINK; op < SIM_FAULT_N_OPS; op++) {
		fprintf(out, "  %-11s %s\n", sim_fault_op_name((enum sim_fault_op)op),
			sim_fault_op_info((enum sim_fault_op)op)->help);
		if (op == SIM_FAULT_COUNTER)
			print_error_counters(out);
	}
}

/* A command line of sim or fabric that does not parse: its usage, exit status 2. */
static int usage_error(void)
{
	print_usage(stderr, 1);
	return 2;
}

/* --- options shared by serve and sim ----------------------------------------------- */

struct serve_options {
	char *topology;
	char *socket;
	char *listen;		/* serve: over TCP too, at HOST:PORT */
	char *key_file;		/* the key TCP clients must prove they hold */
	char *hosts;
	char *sm;		/* --sm, else UMAD_SIM_SM, else builtin */
	int builtin_sm;
	gboolean private_memory;	/* --private: clients do not map the fabric */
	gboolean kernel;	/* sim --kernel: COMMAND sees the host's files (umad kernel) */
	gboolean keep_state;	/* sim --keep-state: the tools' state outlives the run */
	char **command;		/* sim: COMMAND and its arguments */
};

/*
 * The options' values, as the command table's parser sets them: serve's
 * and sim's rows name the same ones (one command a process).  FILENAME, not
 * STRING: a value is taken as the bytes given, in any locale.
 */
static struct serve_options opts;
/* umad fabric --socket PATH: the fabric its commands are for (serve's too, unless its own). */
static char *fabric_socket;

#define OPTION_TOPOLOGY { "topology", 't', 0, G_OPTION_ARG_FILENAME, &opts.topology, \
	"The fabric of FILE: ibsim's net format or ibnetdiscover's (default: the embedded one)", "FILE" }
#define OPTION_SOCKET { "socket", 0, 0, G_OPTION_ARG_FILENAME, &opts.socket, \
	"Serve at PATH (default: UMAD_SIM_FABRIC, else the user's runtime directory)", "PATH" }
#define OPTION_SM { "sm", 0, 0, G_OPTION_ARG_FILENAME, &opts.sm, \
	"The fabric's own subnet manager: builtin (default, or UMAD_SIM_SM) or none", \
	"builtin|none" }
#define OPTION_PRIVATE { "private", 0, 0, G_OPTION_ARG_NONE, &opts.private_memory, \
	"Clients map nothing: every MAD goes through the server", NULL }

static const GOptionEntry serve_entries[] = {
	OPTION_TOPOLOGY, OPTION_SOCKET, OPTION_SM, OPTION_PRIVATE,
	{ "listen", 0, 0, G_OPTION_ARG_FILENAME, &opts.listen,
	  "Serve over TCP too, at HOST:PORT (with --key-file)", "HOST:PORT" },
	{ "key-file", 0, 0, G_OPTION_ARG_FILENAME, &opts.key_file,
	  "The key TCP clients must prove they hold", "FILE" },
	G_OPTION_ENTRY_NULL
};

static const GOptionEntry sim_entries[] = {
	OPTION_TOPOLOGY,
	{ "socket", 0, 0, G_OPTION_ARG_FILENAME, &opts.socket,
	  "Serve at PATH (default: the socket in the run's own directory)", "PATH" },
	{ "host", 0, 0, G_OPTION_ARG_FILENAME, &opts.hosts,
	  "COMMAND's programs attach at these nodes (default: UMAD_SIM_HOST)", "NODE[,NODE...]" },
	OPTION_SM, OPTION_PRIVATE,
	{ "kernel", 0, 0, G_OPTION_ARG_NONE, &opts.kernel,
	  "COMMAND runs under umad kernel: it reaches the host through its files", NULL },
	{ "keep-state", 0, 0, G_OPTION_ARG_NONE, &opts.keep_state,
	  "The tools' state (opensm's log, caches) outlives the run", NULL },
	G_OPTION_ENTRY_NULL
};

static int parse_sm(const char *what, const char *v, int *builtin)
{
	if (!strcmp(v, "builtin"))
		*builtin = 1;
	else if (!strcmp(v, "none"))
		*builtin = 0;
	else {
		fprintf(stderr, "umad: %s: --sm %s: expected builtin or none\n", what, v);
		return -1;
	}
	return 0;
}

/*
 * After the table's parser: the values checked, and what is not an option
 * (serve: nothing; sim: COMMAND after --).  0, or the exit status of a
 * usage error.
 */
static int parse_serve(const char *what, int argc, char **argv, char **command,
		       struct serve_options *o)
{
	const char *sm = opts.sm ? opts.sm : getenv("UMAD_SIM_SM");

	*o = opts;
	if (!o->socket)
		o->socket = fabric_socket;
	o->builtin_sm = 1;
	if (sm && *sm && parse_sm(what, sm, &o->builtin_sm) < 0)
		return 2;
	if (argc > 1) {
		fprintf(stderr, "umad: %s: unexpected argument '%s'\n", what, argv[1]);
		return usage_error();
	}
	if (!strcmp(what, "sim") && (!command || !command[0])) {
		fprintf(stderr, "umad: %s: missing the command to run after --\n", what);
		return usage_error();
	}
	if (!o->listen != !o->key_file) {
		fprintf(stderr, "umad: %s: %s\n", what, o->listen ?
			"--listen needs --key-file: clients over TCP prove they hold its key" :
			"--key-file goes with --listen");
		return usage_error();
	}
	o->command = command;
	return 0;
}

/* On a terminal, a long load shows how far it got: "reading FILE: 42%". */
struct load_progress {
	const char *what, *file;
	int last;
};

static void show_progress(void *arg, size_t done, size_t total)
{
	struct load_progress *lp = arg;
	int pct = total ? (int)(done * 100 / total) : 100;

	if (pct == lp->last)
		return;
	lp->last = pct;
	fprintf(stderr, "\rumad: %s: reading %s: %d%%", lp->what, lp->file, pct);
	if (pct == 100)
		fprintf(stderr, ", bringing the fabric up...\n");
	fflush(stderr);
}

static struct fabric_server *start_server(const char *what, const struct serve_options *o,
					  const char *path)
{
	struct load_progress lp = { .what = what, .file = o->topology, .last = -1 };
	struct fabric_server_options so = {
		.topology = o->topology, .builtin_sm = o->builtin_sm, .log = NULL,
		.private_memory = o->private_memory,
		.progress = o->topology && isatty(STDERR_FILENO) ? show_progress : NULL,
		.progress_arg = &lp,
	};
	struct fabric_server *s;
	struct umad_err errors = UMAD_ERR_INIT;
	int r = fabric_server_new(&so, &s, &errors);

	if (r < 0) {
		const char *why = errors.count ? umad_err_text(&errors) : strerror(-r);

		fprintf(stderr, "umad: %s: cannot load %s:\n%s", what,
			o->topology ? o->topology : "the default fabric", why);
		if (why[0] && why[strlen(why) - 1] != '\n')
			fputc('\n', stderr);
		return NULL;
	}
	r = fabric_server_listen(s, path, &errors);
	if (r < 0) {
		fprintf(stderr, "umad: %s: %s\n", what, umad_err_text(&errors));
		fabric_server_free(s);
		return NULL;
	}
	return s;
}

/* What arrives on a descriptor the server's loop watches: serve's, and sim's (COMMAND's end too). */
static const int serve_signals[] = { SIGINT, SIGTERM, SIGHUP, 0 };
static const int sim_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGCHLD, 0 };

/* Why serving stopped (fabric_server_poll's error). */
static void serve_failed(const char *what, int r)
{
	if (r == -ENOTRECOVERABLE)
		fprintf(stderr, "umad: %s: the fabric's shared memory was written over by a "
			"client (its lock or its header); the fabric stops\n", what);
	else
		fprintf(stderr, "umad: %s: %s\n", what, strerror(-r));
}

/* --- umad fabric serve ----------------------------------------------------------- */

static int serve(int argc, char **argv, char **unused)
{
	struct serve_options o;
	struct fabric_server *s;
	struct fabric_key *key = NULL;
	struct umad_err why = UMAD_ERR_INIT;
	char path[PATH_MAX], where[FABRIC_TCP_NAME_MAX];
	sigset_t old;
	int r = parse_serve("fabric serve", argc, argv, unused, &o), sfd;

	if (r)
		return r;
	if (o.socket)
		snprintf(path, sizeof(path), "%s", o.socket);
	else if (fabric_default_socket(path, sizeof(path)) < 0) {
		fprintf(stderr, "umad: fabric serve: the socket path is too long\n");
		return 1;
	}
	if (o.key_file && fabric_key_load(o.key_file, &key, &why) < 0) {
		fprintf(stderr, "umad: fabric serve: %s\n", umad_err_text(&why));
		return 1;
	}
	sfd = command_signal_fd(serve_signals, &old);
	s = start_server("fabric serve", &o, path);
	if (!s) {
		fabric_key_free(key);
		return 1;
	}
	fprintf(stderr, "umad: fabric serve: serving %s at %s (UMAD_SIM_FABRIC=%s)\n",
		o.topology ? o.topology : "the default fabric", path, path);
	if (o.listen) {
		r = fabric_server_listen_tcp(s, o.listen, key, where, sizeof(where), &why);
		if (r < 0) {
			fprintf(stderr, "umad: fabric serve: --listen %s: %s\n", o.listen,
				umad_err_text(&why));
			fabric_server_free(s);
			fabric_key_free(key);
			return 1;
		}
		fprintf(stderr, "umad: fabric serve: and over TCP at %s (UMAD_SIM_FABRIC=tcp:%s "
			"UMAD_SIM_FABRIC_KEY=%s)\n", where, where, o.key_file);
	}
	while ((r = fabric_server_poll(s, -1, sfd)) == 0)
		;
	fabric_server_free(s);
	fabric_key_free(key);
	close(sfd);
	if (r < 0) {
		serve_failed("fabric serve", r);
		return 1;
	}
	return 0;
}

/* --- umad sim -------------------------------------------------------------------- */

/*
 * The nodes COMMAND is to attach at (--host, else the UMAD_SIM_HOST it
 * inherits), each looked up in this fabric before COMMAND starts: a name
 * that is none is told as such, with the fabric it is not in, where
 * COMMAND's library would end in an errno's text.  0, or -ENODEV after
 * saying which.
 */
static int check_hosts(const struct serve_options *o, const struct fabric_server *s)
{
	const char *list = o->hosts ? o->hosts : getenv("UMAD_SIM_HOST");
	const char *fabric = o->topology ? o->topology : "the default fabric";
	char name[FP_NAME_MAX];
	const char *at, *end;
	size_t n;

	for (at = list; at && *at; at = *end ? end + 1 : end) {
		end = strchrnul(at, ',');
		n = (size_t)(end - at);
		if (n < sizeof(name)) {
			memcpy(name, at, n);
			name[n] = '\0';
			if (!n || fabric_server_find_node(s, name))
				continue;
		}
		fprintf(stderr, "umad: sim: %s%s: '%.*s' names no node of %s\n",
			o->hosts ? "--host " : "UMAD_SIM_HOST=", list, (int)n, at, fabric);
		return -ENODEV;
	}
	return 0;
}

/* command_end_descendants' serving: the fabric's. */
static int serve_fabric(void *arg, int sfd, int timeout_ms)
{
	return fabric_server_poll(arg, timeout_ms, sfd);
}

/*
 * sim --kernel: COMMAND runs under umad kernel at the host asked for, on
 * this fabric, with the environment it was given (no library path, no
 * backend: it reaches the host through the files).  Does not return.
 */
static void exec_kernel(const struct serve_options *o, const char *socket_path, char **command)
{
	const char *head[] = { "umad", "kernel", "--fabric", socket_path, "--host", o->hosts };
	size_t n_head = o->hosts ? 6 : 4, n = 0, i;
	char **argv;

	while (command[n])
		n++;
	argv = calloc(n_head + n + 2, sizeof(*argv));
	if (!argv)
		_exit(127);
	for (i = 0; i < n_head; i++)
		argv[i] = (char *)head[i];
	argv[n_head] = "--";
	for (i = 0; i < n; i++)
		argv[n_head + 1 + i] = command[i];
	execv("/proc/self/exe", argv);
	fprintf(stderr, "umad: sim: cannot start umad kernel: %s\n", strerror(errno));
	_exit(127);
}

static int run_sim(int argc, char **argv, char **cmd)
{
	struct serve_options o;
	struct fabric_server *s;
	struct run_state rs;
	struct own_library own;
	char path[PATH_MAX + 16], *library_path = NULL, why[PATH_MAX + 64], **command;
	sigset_t old;
	pid_t child;
	int r = parse_serve("sim", argc, argv, cmd, &o), sfd, status = 0, done = 0;

	if (r)
		return r;
	/*
	 * COMMAND on this umad's library, or not at all (--kernel: through the
	 * files, whatever library it loads): checked before the fabric loads.
	 */
	if (!o.kernel) {
		if (own_library_find(&own, why, sizeof(why)) < 0) {
			fprintf(stderr, "umad: sim: cannot tell which libibumad.so.3 this umad runs "
				"on: %s\n", why);
			return 1;
		}
		library_path = own_library_search_path(&own);
		if (!library_path) {
			fprintf(stderr, "umad: sim: cannot tell the directory of %s\n", own.path);
			return 1;
		}
		if (command_check("sim", o.command[0], library_path, &own, stderr) < 0) {
			free(library_path);
			return 1;
		}
	}
	/* The run's own directory: the socket (unless --socket), and the tools' state. */
	if (run_state_open(&rs, "sim", "umad-sim", o.keep_state) < 0) {
		free(library_path);
		return 1;
	}
	snprintf(path, sizeof(path), "%s%s", o.socket ? o.socket : rs.dir.path,
		 o.socket ? "" : "/socket");
	command = run_state_command(&rs, o.command);
	if (!command) {
		fprintf(stderr, "umad: sim: out of memory\n");
		run_state_close(&rs);
		free(library_path);
		return 1;
	}
	sfd = command_signal_fd(sim_signals, &old);
	s = start_server("sim", &o, path);
	if (s && check_hosts(&o, s) < 0) {
		fabric_server_free(s);
		s = NULL;
	}
	if (!s) {
		run_state_close(&rs);
		if (command != o.command)
			free(command);
		free(library_path);
		return 1;
	}
	/* The socket listens before COMMAND starts: it never finds the fabric missing. */
	/* What COMMAND leaves running (an SM in the background) is adopted here, to be ended. */
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
	child = fork();
	if (child == 0)
		run_state_enter(&rs);
	if (child == 0 && o.kernel) {
		close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
		exec_kernel(&o, path, command);
	}
	if (child == 0) {
		close(sfd);
		sigprocmask(SIG_SETMASK, &old, NULL);
		/*
		 * COMMAND's environment, in the child before exec, not umad's own:
		 * its loader finds umad's library there, and the library its backend.
		 */
		if (library_path)
			setenv("LD_LIBRARY_PATH", library_path, 1);
		setenv("UMAD_BACKEND", "sim", 1);
		setenv("UMAD_SIM_FABRIC", path, 1);
		if (o.hosts)
			setenv("UMAD_SIM_HOST", o.hosts, 1);
		execvp(command[0], command);
		fprintf(stderr, "umad: sim: %s: %s\n", o.command[0], strerror(errno));
		_exit(127);
	}
	if (child < 0) {
		fprintf(stderr, "umad: sim: cannot start %s: %s\n", o.command[0], strerror(errno));
		status = 1;
		done = 1;
	}
	while (!done) {
		r = fabric_server_poll(s, -1, sfd);
		if (r < 0) {
			/* The fabric cannot be served on: COMMAND is ended, and so is this. */
			serve_failed("sim", r);
			kill(child, SIGTERM);
			waitpid(child, NULL, 0);
			status = 1;
			break;
		}
		if (r == 0)
			continue;
		/* Signals for umad sim go to COMMAND, which decides. */
		command_forward_signals(sfd, child);
		done = command_reap(child, &status);
	}
	command_end_descendants("sim", serve_fabric, s, sfd);
	fabric_server_free(s);
	close(sfd);
	run_state_close(&rs);
	if (command != o.command)
		free(command);
	free(library_path);
	return status;
}

/* --- control --------------------------------------------------------------------- */

/* The CLI's connection: attached at no node.  0, or -1 after saying why. */
static int connect_control(const char *socket_path, struct fabric_client *fc, char *path,
			   size_t size)
{
	struct umad_err err = UMAD_ERR_INIT;
	struct fp_node none[1];
	unsigned n_nodes;

	if (socket_path)
		snprintf(path, size, "%s", socket_path);
	else if (fabric_default_socket(path, size) < 0) {
		fprintf(stderr, "umad: fabric: the socket path is too long\n");
		return -1;
	}
	if (fabric_client_connect(fc, path, NULL, 0, 0, none, &n_nodes, &err) < 0) {
		fprintf(stderr, "umad: fabric: %s\n", umad_err_text(&err));
		return -1;
	}
	return 0;
}

/* One fault, as its bytes; 0, or -1 after saying why. */
static int send_control(struct fabric_client *fc, const char *path, const char *cmd,
			const struct sim_fault_req *rq)
{
	uint8_t req[SIM_FAULT_WIRE_MAX];
	int len = sim_fault_encode(rq, req, sizeof(req));
	char msg[512];
	int32_t rc = -EPROTO;

	if (len < 0) {
		fprintf(stderr, "umad: fabric %s: the request does not fit a message to the fabric\n",
			cmd);
		return -1;
	}
	if (fabric_client_request(fc, FP_CONTROL, req, (size_t)len, NULL, 0, &rc) < 0) {
		fprintf(stderr, "umad: fabric %s: the fabric at %s went away\n", cmd, path);
		return -1;
	}
	if (fc->reply.type != FP_RC)
		rc = -EPROTO;
	fabric_client_reply_text(fc, msg, sizeof(msg));
	fabric_client_done(fc);
	if (rc < 0) {
		fprintf(stderr, "umad: fabric %s: %s\n", cmd, msg[0] ? msg : strerror(-rc));
		return -1;
	}
	return 0;
}

/* A fault: its command and arguments are a scenario line's without the time (the one parser). */
static int control(const char *socket_path, int argc, char **argv)
{
	struct sim_fault_req rq;
	struct fabric_client fc;
	struct umad_err err = UMAD_ERR_INIT;
	char path[PATH_MAX];
	int r;

	if (sim_fault_parse(argc, (const char *const *)argv, &rq, &err) < 0) {
		/* "umad: fabric CMD: what", as the fabric's refusals are told. */
		if (sim_fault_op_by_name(argv[0]) >= 0) {
			fprintf(stderr, "umad: fabric %s\n", umad_err_text(&err));
			return 2;
		}
		fprintf(stderr, "umad: fabric: %s\n", umad_err_text(&err));
		return usage_error();
	}
	if (connect_control(socket_path, &fc, path, sizeof(path)) < 0)
		return 1;
	r = send_control(&fc, path, argv[0], &rq);
	fabric_client_close(&fc);
	return r < 0 ? 1 : 0;
}

/* show --json: as the table's parser sets it. */
static gboolean show_json;

/* show [--json] [NODE], dump, dot: the fabric as the server has it now, on stdout. */
static int text(const char *socket_path, int argc, char **argv)
{
	struct fp_text q = { 0 };
	struct fabric_client fc;
	char path[PATH_MAX], msg[512];
	int32_t rc = 0;
	int i, r = 0;

	if (!strcmp(argv[0], "show"))
		q.kind = FP_TEXT_SHOW;
	else if (!strcmp(argv[0], "dump"))
		q.kind = FP_TEXT_DUMP;
	else
		q.kind = FP_TEXT_DOT;
	if (show_json)
		q.kind = FP_TEXT_SHOW_JSON;
	for (i = 1; i < argc; i++) {
		if (q.kind != FP_TEXT_DUMP && !q.filter[0] && argv[i][0] != '-' &&
			   strlen(argv[i]) < sizeof(q.filter)) {
			snprintf(q.filter, sizeof(q.filter), "%s", argv[i]);
		} else {
			fprintf(stderr, "umad: fabric %s: unexpected argument '%s'\n", argv[0],
				argv[i]);
			return usage_error();
		}
	}
	if (connect_control(socket_path, &fc, path, sizeof(path)) < 0)
		return 1;
	if (fabric_client_request(&fc, FP_TEXT, &q, sizeof(q), NULL, 0, &rc) < 0) {
		fprintf(stderr, "umad: fabric %s: the fabric at %s went away\n", argv[0], path);
		fabric_client_close(&fc);
		return 1;
	}
	if (fc.reply.type == FP_TEXT_REPLY) {
		fwrite(fc.reply.buf, 1, strnlen((const char *)fc.reply.buf, fc.reply.len), stdout);
		if (fflush(stdout) != 0 || ferror(stdout)) {
			fprintf(stderr, "umad: fabric %s: cannot write the output: %s\n", argv[0],
				strerror(errno));
			r = 1;
		}
	} else {
		fprintf(stderr, "umad: fabric %s: %s\n", argv[0],
			fabric_client_reply_text(&fc, msg, sizeof(msg))[0] ? msg
			: strerror(rc < 0 ? -rc : EPROTO));
		r = 1;
	}
	fabric_client_done(&fc);
	fabric_client_close(&fc);
	return r;
}

/* --- scenario FILE: timed faults, sent as their times come -------------------------- */

struct scenario_run {
	struct fabric_client fc;
	const char *path;
	struct timespec start;
};

static int scenario_wait(void *arg, uint64_t at_ms)
{
	struct scenario_run *run = arg;
	struct timespec t = run->start;

	t.tv_sec += (time_t)(at_ms / 1000);
	t.tv_nsec += (long)(at_ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
		;
	return 0;
}

static int scenario_step(void *arg, const struct sim_scenario_step *st)
{
	struct scenario_run *run = arg;
	char what[64];

	snprintf(what, sizeof(what), "scenario: line %u", st->line);
	return send_control(&run->fc, run->path, what, &st->req) < 0 ? -EIO : 0;
}

static int scenario(const char *socket_path, int argc, char **argv)
{
	static const struct sim_scenario_ops ops = {
		.wait_until = scenario_wait, .fault = scenario_step,
	};
	struct scenario_run run;
	struct sim_scenario *sc;
	struct umad_err errors = UMAD_ERR_INIT;
	char path[PATH_MAX];
	int r;

	if (argc != 2) {
		fprintf(stderr, "umad: fabric scenario: expected one FILE\n");
		return usage_error();
	}
	if (sim_scenario_load(argv[1], &sc, &errors) < 0) {
		fprintf(stderr, "%s", errors.count ? umad_err_text(&errors)
						   : "umad: fabric scenario: cannot read it\n");
		return 1;
	}
	if (connect_control(socket_path, &run.fc, path, sizeof(path)) < 0) {
		sim_scenario_free(sc);
		return 1;
	}
	run.path = path;
	clock_gettime(CLOCK_MONOTONIC, &run.start);
	r = sim_scenario_run(sc, &ops, &run, NULL);
	fabric_client_close(&run.fc);
	sim_scenario_free(sc);
	return r < 0 ? 1 : 0;
}

/* --- the rows of umad's command table ---------------------------------------------- */

static int fault_run(int argc, char **argv, char **unused)
{
	(void)unused;
	return control(fabric_socket, argc, argv);
}

static int text_run(int argc, char **argv, char **unused)
{
	(void)unused;
	return text(fabric_socket, argc, argv);
}

static int scenario_run(int argc, char **argv, char **unused)
{
	(void)unused;
	return scenario(fabric_socket, argc, argv);
}

static const GOptionEntry fabric_entries[] = {
	{ "socket", 0, 0, G_OPTION_ARG_FILENAME, &fabric_socket,
	  "The fabric served at PATH or tcp:HOST:PORT (default: as for serve)",
	  "PATH" },
	G_OPTION_ENTRY_NULL
};

static const GOptionEntry show_entries[] = {
	{ "json", 0, 0, G_OPTION_ARG_NONE, &show_json, "As JSON", NULL },
	G_OPTION_ENTRY_NULL
};

/* Every row under umad fabric shows fabric's usage when its command line does not parse. */
static const struct umad_command serve_command = {
	.name = "serve",
	.summary = "host one simulated fabric for many processes (UMAD_SIM_FABRIC=PATH)",
	.options = serve_entries,
	.run = serve,
	.usage = fabric_usage,
};

static const struct umad_command text_commands[] = {
	{ .name = "show", .summary = "the fabric's nodes and ports as they are now (NODE: one)",
	  .params = "[NODE]", .options = show_entries, .run = text_run, .usage = fabric_usage },
	{ .name = "dump", .summary = "the fabric as a topology file, as it is now",
	  .run = text_run, .usage = fabric_usage },
	{ .name = "dot", .summary = "the fabric as a Graphviz graph (NODE: it and its neighbours)",
	  .params = "[NODE]", .run = text_run, .usage = fabric_usage },
	{ .name = "scenario", .summary = "timed faults from FILE, each sent when its time comes",
	  .params = "FILE", .run = scenario_run, .usage = fabric_usage },
};
#define N_TEXT_COMMANDS (sizeof(text_commands) / sizeof(text_commands[0]))

/*
 * The faults are the fault module's table (simfabric/fault.c): a row each,
 * made from it once, so that a kind added there is a command here.  Their
 * words are the fault parser's (a scenario line's), options first.
 */
static const struct umad_command *const *fabric_subcommands(void)
{
	static struct umad_command faults[SIM_FAULT_N_OPS];
	static char params[SIM_FAULT_N_OPS][128];
	static const struct umad_command *rows[1 + N_TEXT_COMMANDS + SIM_FAULT_N_OPS + 1];
	size_t n = 0, i;
	int op;

	if (rows[0])
		return rows;
	rows[n++] = &serve_command;
	for (op = SIM_FAULT_LINK; op < SIM_FAULT_N_OPS; op++) {
		const char *form = params[op];

		sim_fault_usage((enum sim_fault_op)op, params[op], sizeof(params[op]));
		form = strchr(form, ' ') ? strchr(form, ' ') + 1 : "";
		faults[op] = (struct umad_command){
			.name = sim_fault_op_name((enum sim_fault_op)op),
			.summary = sim_fault_op_info((enum sim_fault_op)op)->help,
			.params = form, .flags = CMD_OPTIONS_FIRST, .run = fault_run,
			.usage = fabric_usage,
		};
		rows[n++] = &faults[op];
	}
	for (i = 0; i < N_TEXT_COMMANDS; i++)
		rows[n++] = &text_commands[i];
	rows[n] = NULL;
	return rows;
}

const struct umad_command fabric_command = {
	.name = "fabric",
	.summary = "a running shared fabric: serve it, fault it, show it",
	.params = "COMMAND [ARGS...]",
	.options = fabric_entries,
	.subcommands = fabric_subcommands,
	.usage = fabric_usage,
	.help = fabric_help,
};

const struct umad_command sim_command = {
	.name = "sim",
	.summary = "run COMMAND, and all it starts, on a shared fabric of its own",
	.description = "The exit status is COMMAND's.",
	.params = "-- COMMAND [ARGS...]",
	.options = sim_entries,
	.flags = CMD_RUNS_COMMAND,
	.run = run_sim,
	.usage = sim_usage,
};
