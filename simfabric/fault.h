/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Faults steered from outside: links and nodes going down and coming back,
 * packet drops per link (seeded, so a run repeats), delays per link, error
 * counters raised, traps sent.  One request (struct sim_fault_req,
 * fault_req.h) carries every fault, whoever asks, and this module is the
 * only place that knows its kinds: one table (name, arguments and their
 * limits, help, how it lands and is carried out) drives the one text
 * parser (umad fabric's arguments and scenario lines alike), the writer
 * that gives the text back, the bytes the shared fabric's FP_CONTROL
 * carries, and the checks and actions on a fabric.  Adding a kind is a row
 * of the table and its action here, its line in doc/scenario-format.md,
 * and its test.  A link or node going down or up changes its ports'
 * states through the port state machine (port_state.h), as an SM's Set
 * does, and the switches whose ports changed send Trap 128 to their SM,
 * each once, as hardware does.  Functions that touch a fabric
 * return 0 or -errno and run with the fabric lock held; the others are
 * pure.
 */
#ifndef SIMFABRIC_FAULT_H
#define SIMFABRIC_FAULT_H

#include <stddef.h>
#include <stdint.h>

#include "base/errbuf.h"
#include "base/fault_req.h"
#include "simfabric/fabric.h"
#include "simfabric/net.h"

struct sim_text;

/* --- the kinds of fault: one table ------------------------------------------------- */

/*
 * What a command takes after its name, in the order written; each kind of
 * argument fills one field of the request, with its own limits, words and
 * messages (fault.c).
 */
enum sim_fault_arg {
	SIM_FAULT_ARG_END,
	SIM_FAULT_ARG_UP_DOWN,		/* up|down: up */
	SIM_FAULT_ARG_NODE,		/* NODE: node, 1..SIM_FAULT_NODE_MAX bytes */
	SIM_FAULT_ARG_PORT,		/* PORT: port, 0..SIM_MAX_PORTS */
	SIM_FAULT_ARG_LINK_PORT,	/* PORT: port, 1..SIM_MAX_PORTS */
	SIM_FAULT_ARG_RATE,		/* RATE: rate, 0..1, at most 9 decimals */
	SIM_FAULT_ARG_SEED,		/* [seed=N] (or a bare N): seed; optional, last */
	SIM_FAULT_ARG_DELAY,		/* DELAY: delay_ns, microseconds or with ns/us/ms, a minute at most */
	SIM_FAULT_ARG_COUNTER,		/* COUNTER: counter, a PortCounters name */
	SIM_FAULT_ARG_COUNT,		/* COUNT: count, 1 or more */
	SIM_FAULT_ARG_TRAP,		/* NUMBER: trap, one the fabric sends */
	SIM_FAULT_N_ARGS
};

#define SIM_FAULT_MAX_ARGS	4	/* the most arguments a command takes */
/* The longest delay (base/fault_req.h), in the clock's unit. */
#define SIM_FAULT_MAX_DELAY_NS	((uint64_t)SIM_FAULT_MAX_DELAY_US * 1000u)

/* How a kind lands on the fabric (sim_fault_op_info.flags). */
#define SIM_FAULT_WHOLE_NODE	1u	/* the node, not a port: port ignored */
#define SIM_FAULT_PORT0		2u	/* port 0, a switch's own, allowed */
#define SIM_FAULT_CABLE		4u	/* the port needs a cable */
#define SIM_FAULT_CHANGES_PORTS	8u	/* may change what a device shows of its ports (sysfs) */

struct sim_fault_op_info {
	const char *name;		/* the command: "drop" */
	enum sim_fault_arg args[SIM_FAULT_MAX_ARGS + 1];	/* ends with SIM_FAULT_ARG_END */
	unsigned flags;
	const char *help;		/* what it does, a line of `umad --help` */
	const char *example;		/* a command the default fabric takes */
	/* What the port must allow beyond the flags and the arguments (NULL: nothing). */
	int (*check)(struct sim_port *p, const struct sim_fault_req *rq, struct umad_err *err);
	/* Carry it out, the request checked: 0 or -errno. */
	int (*apply)(struct sim_net *net, struct sim_node *n, struct sim_port *p,
		     const struct sim_fault_req *rq);
};

/* The table's row for op; NULL out of range. */
const struct sim_fault_op_info *sim_fault_op_info(enum sim_fault_op op);
/* "link", "node"...; NULL out of range. */
const char *sim_fault_op_name(enum sim_fault_op op);
/* The op of a command name, or -1. */
int sim_fault_op_by_name(const char *name);

/*
 * How op's command is written ("drop NODE PORT RATE [seed=N]"), from its
 * arguments: into buf (at most max bytes, NUL-terminated, cut short if
 * need be); "" for an op out of range.
 */
void sim_fault_usage(enum sim_fault_op op, char *buf, size_t max);

/* Whether a fault of this kind can change what a device shows of its ports (sysfs). */
int sim_fault_changes_ports(enum sim_fault_op op);

/* --- text: one grammar for umad fabric and scenario lines (doc/scenario-format.md) --- */

#define SIM_FAULT_MAX_WORDS	(1 + SIM_FAULT_MAX_ARGS)	/* a command and its arguments */
#define SIM_FAULT_WORD_MAX	1024	/* bytes of a word of a line, its NUL included */

/*
 * A fault command as words: argv[0] the command, then its arguments (a
 * scenario line after its time, split by sim_fault_split; umad fabric's
 * arguments).  0 with *rq set (every field the command does not take
 * zero), or -EINVAL with *rq zeroed and what is wrong in err ("CMD: ..."
 * for a known command).  argc may count words beyond those argv holds (a
 * line too long to keep, argv holding its first SIM_FAULT_MAX_WORDS at
 * least): they are refused as too many, unread.
 */
int sim_fault_parse(int argc, const char *const *argv, struct sim_fault_req *rq,
		    struct umad_err *err);

/*
 * A line (len bytes, no newline) split into words as a fault command is
 * written: at blanks (space, tab, CR, VT, FF); a word may be quoted
 * ("a b", with \" and \\ inside); a word starting with # starts a
 * comment to the end of the line.  At most max_words words are kept
 * (each NUL-terminated in words[i], at most SIM_FAULT_WORD_MAX - 1 bytes);
 * *total counts them all.  0, or -EINVAL with why in err.
 */
int sim_fault_split(const char *line, size_t len, char (*words)[SIM_FAULT_WORD_MAX],
		    unsigned max_words, unsigned *total, struct umad_err *err);

/*
 * A request written as a command (no newline) that sim_fault_split and
 * sim_fault_parse read back as the same request, appended to t: 0,
 * -EINVAL for a request that cannot be written so (an op out of range, a
 * node empty, too long or holding a newline, an argument out of its
 * range), or -ENOMEM.
 */
int sim_fault_format(const struct sim_fault_req *rq, struct sim_text *t);

/* Whether two requests ask for the same (every field of the request compared). */
int sim_fault_same(const struct sim_fault_req *a, const struct sim_fault_req *b);

/*
 * A word from outside as messages show it: control characters as '?', no
 * more than SIM_FAULT_SHOWN bytes of it, then "...".
 */
#define SIM_FAULT_SHOWN	41
struct sim_fault_shown {
	char s[SIM_FAULT_SHOWN + sizeof("...")];
};
const char *sim_fault_show(const char *word, struct sim_fault_shown *out);

/* A decimal number (or, with hex, also 0x and hex digits) up to max: 0, or -1. */
int sim_fault_parse_u64(const char *s, int hex, uint64_t max, uint64_t *value);

/* --- bytes: what FP_CONTROL carries --------------------------------------------------- */

/* The bytes of a request: base/fault_req.h has their layout. */
/* The request's bytes into buf (max bytes): their length, or -EINVAL (names unterminated, no room). */
int sim_fault_encode(const struct sim_fault_req *rq, uint8_t *buf, size_t max);
/*
 * A request from its bytes: 0, or -EINVAL with *rq zeroed and why in err
 * (another version, a length or name that does not fit the layout).  The
 * values are not checked: sim_fault_target does that.
 */
int sim_fault_decode(const uint8_t *buf, size_t len, struct sim_fault_req *rq,
		     struct umad_err *err);

/* --- on a fabric ------------------------------------------------------------------------ */

/*
 * Where a request lands, and whether it can: the node (-EINVAL without a
 * name, -ENOENT when the fabric has none of that name), the op, the port
 * (-EINVAL beyond the node's ports, or 0 where the op or the node does not
 * allow it), a cable for link (-ENOTCONN), and the op's arguments as far
 * as the fabric's state does not matter (-EINVAL: rate, a delay over
 * SIM_FAULT_MAX_DELAY_US, counter name, a trap the node may not send).
 * Changes nothing.  0 with *n and, but for node, *p set (either may be
 * NULL); or -errno with what is wrong in err (no op prefix; nothing for
 * NULL arguments).
 */
int sim_fault_target(const struct sim_fabric *f, const struct sim_fault_req *rq,
		     struct sim_node **n, struct sim_port **p, struct umad_err *err);

/*
 * Carry out a request on net's fabric, the fabric lock held: sim_fault_target,
 * then its op's apply (the sim_fault_*() below).  0, -EINVAL for a NULL net,
 * fabric or request, what sim_fault_target said (err as there), or what
 * the fault call returned (nothing in err: strerror tells as much).
 */
int sim_fault_apply(struct sim_net *net, const struct sim_fault_req *rq, struct umad_err *err);

/*
 * A delay as the fault calls count it: whole microseconds, rounded up, at
 * most UINT32_MAX (so that one beyond the limit stays one).
 */
unsigned sim_fault_delay_us(uint64_t delay_ns);

/*
 * The link at port p (1..num_ports): down (both ends lose it until up) or
 * up (a link that is down trains to Init); a link already so is left as
 * it is, and sends no trap.
 */
int sim_fault_link(struct sim_net *net, struct sim_port *p, int up);
/* Every link of a node. */
int sim_fault_node(struct sim_net *net, struct sim_node *n, int up);
/*
 * Drop packets leaving port p with probability rate (0 to 1; 0 ends the
 * drops), drawn from a generator seeded with seed.
 */
int sim_fault_drop(struct sim_port *p, double rate, uint64_t seed);
/*
 * Delay every packet leaving port p by delay_us microseconds (0 ends the
 * delay; -EINVAL over SIM_FAULT_MAX_DELAY_US).  A MAD is as late as the sum of the delays of the ports it
 * leaves on its way, there and back; the net measures it (sim_net_msg's
 * delay_ns) and the owner delivers it that much later.
 */
int sim_fault_delay(struct sim_port *p, unsigned delay_us);
/*
 * Raise error counter `counter` (its PortCounters name, as the PMA names
 * it) of port p by n; LocalLinkIntegrityErrors and
 * ExcessiveBufferOverrunErrors also send Trap 129 and 130.
 */
int sim_fault_counter(struct sim_net *net, struct sim_port *p, const char *counter, uint64_t n);
/* Send trap `number` (128-131, 144, 145) from port p with the details it carries. */
int sim_fault_trap(struct sim_net *net, struct sim_port *p, unsigned number);

#endif /* SIMFABRIC_FAULT_H */
