/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The in-library capture tap (UMAD_CAPTURE): each process adds sections of
 * its own to one pcapng file (pcapng_append: whole blocks under the file's
 * write lock, so processes writing at once never mix their blocks).  A
 * forked child leaves its parent's MADs to the parent and, once it
 * captures a MAD of its own, starts its own writer and sections.
 *
 * The threads that send and receive only copy each MAD, its umad header and
 * what the packet needs (LIDs, QP, P_Key, GID, time, packet id) into a ring;
 * a writer thread builds the packets (headers, CRCs, comment) and writes them
 * in large batches.  So capturing costs the application a copy per MAD, and
 * the file is at most some 10 ms behind while MADs flow, and complete a
 * nap after they stop.  A full ring makes senders wait: nothing is dropped.
 *
 * Senders and the writer never wait for each other: a sender fills the
 * next record under the senders' lock and publishes it by moving the
 * ring's tail (an atomic store); the writer takes records from the head
 * and moves it on.  The writer looks at the ring on its own timer while
 * MADs flow, so a sender wakes it only when it sleeps.  Whoever must see
 * the file complete (umad_close_port, umad_done, exit), or finds the ring
 * full, writes what is ready itself: one thread at a time holds write_lock.
 */
#include "config.h"

#include <endian.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "capture_file.h"
#include "capture_meta.h"
#include "capture_tap.h"
#include "ib_packet.h"
#include "pcapng_writer.h"
#include "base/mad_layout.h"
#include "base/mad_rules.h"

#define TAP_MAX_PORTS	64	/* open ports followed at once */
#define TAP_MAX_AGENTS	UMAD_CA_MAX_AGENTS
#define TAP_MAX_IFACES	64

/* Requests waiting for an answer: their packet id goes on the answer (or the timeout) too. */
#define TAP_PENDING 256

/* MADs (and new interfaces) waiting for the writer thread. */
#define TAP_RING 1024
#define TAP_WRITE_RUN 64	/* records written between two looks at the ring */
/*
 * While MADs flow the writer looks at the ring on its own timer, not woken
 * by senders, and naps longer while it finds little: a look costs it a
 * timer wake-up, which at the pace of MADs on ibsim or a real fabric costs
 * more than writing the few records each wake-up would find.  Naps stay short enough that
 * the ring, at the fastest senders, fills to half (where a sender wakes it)
 * only in bursts.  After TAP_IDLE_NS with nothing, it sleeps until woken.
 */
#define TAP_NAP_MIN_NS	50000
#define TAP_NAP_MAX_NS	2000000
#define TAP_FEW		(TAP_RING / 8)	/* found fewer in a look: nap twice as long */
#define TAP_MANY	(TAP_RING / 4)	/* found more: half as long */
#define TAP_IDLE_NS	3000000
/*
 * While MADs flow the file is written in large aligned pieces (see
 * pcapng_writer.c): after each look, up to its last 64 KiB boundary (so a
 * sync, umad_close_port's say, finds little left to write); wholly every
 * TAP_FLUSH_NS, and at the first look that finds nothing new.
 */
#define TAP_FLUSH_NS	10000000
/*
 * A MAD going out is copied before the backend sends it (once sent, another
 * thread of the application may free or reuse the buffer as soon as the
 * answer comes) and stays SENDING, unwritten, until the send returns: then
 * it becomes a MAD, or UNSENT (left out of the file) if the send failed.
 */
enum tap_record_kind { TAP_REC_MAD, TAP_REC_IFACE, TAP_REC_SENDING, TAP_REC_UNSENT };

/* Cache-line aligned, the MAD first: the sender's copy is a few whole lines. */
struct tap_record {
	uint8_t mad[MAD_SIZE];		/* the MAD, or an interface's name */
	struct ib_user_mad hdr;
	struct ib_packet_ends ends;	/* ends.psn: the first segment's */
	uint64_t ts_ns, id;
	uint8_t *big;			/* a message longer than one MAD (RMPP) */
	uint32_t mad_len;
	int16_t iface;
	_Atomic uint8_t kind;		/* enum tap_record_kind; SENDING changes once */
	uint8_t timeout;
} __attribute__((aligned(64)));

struct tap_pending {
	uint32_t tid;			/* low half: the kernel rewrites the upper one */
	uint64_t packet_id;		/* 0: free */
};

struct tap_port {
	int iface;
	uint16_t lid;
	union umad_gid gid;
	uint16_t pkeys[64];
	unsigned n_pkeys;
	uint8_t agent_qp[TAP_MAX_AGENTS];
	uint32_t psn;
	struct tap_pending pending[TAP_PENDING];
};

struct tap_iface {
	char name[UMAD_CA_NAME_LEN + 8];
};

atomic_int umad_tap_enabled;

static pthread_once_t start_once = PTHREAD_ONCE_INIT;
/* The senders' lock: ports, interfaces, packet ids, and the ring's tail end. */
static pthread_mutex_t tap_lock = PTHREAD_MUTEX_INITIALIZER;
/* Held by the one thread writing records into the file; whoever holds it never takes tap_lock. */
static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;
/*
 * The file is created by the writer thread, off the application's path:
 * until then (file_state 0) no record is taken off the ring; if it cannot
 * be created (-1), records are dropped.  Both under write_lock.
 */
static struct pcapng_writer *writer;
static char *capture_path;
static char *capture_pattern;	/* the variable's value: %p is each process's own */
static int file_state;
static int redact;
static uint64_t next_packet_id = 1;
/*
 * Which slots are in use, for which port id, apart from the slots
 * themselves (4 KiB each): looking for a port reads one small array, and a
 * slot's pages are first touched when it is taken (each page touched, or
 * even read, first costs a page fault).
 */
static struct {
	int in_use;			/* 0 (as the zeroed array starts): a free slot */
	int portid;
} port_ids[TAP_MAX_PORTS];
static struct tap_port ports[TAP_MAX_PORTS];
static struct tap_iface ifaces[TAP_MAX_IFACES];
static int n_ifaces;

/*
 * Record n (counted from 0 since the start) is ring[n % TAP_RING].  Records
 * ever published (tail: moved by senders under tap_lock) and taken off
 * (head: moved under write_lock); flushed: known to be in the file
 * (write_lock).  Senders never pass head + TAP_RING.  What senders write on
 * every MAD and what the writer writes on every run are on cache lines of
 * their own: sharing one, the two threads took it from each other on every
 * MAD; and senders read head only when the ring looks half full by the
 * head they last saw.
 */
static struct tap_record *ring;
struct __attribute__((aligned(64))) sender_end {
	_Atomic uint64_t tail;
	uint64_t head_seen;		/* tap_lock */
	atomic_int cpu;			/* where the last record was published */
};
struct __attribute__((aligned(64))) writer_end {
	_Atomic uint64_t head;
	uint64_t flushed;
};
static struct sender_end senders = { .cpu = -1 };
static struct writer_end taken;
static int writer_running;			/* tap_lock */
static atomic_int writer_stopping;		/* set under tap_lock: nothing is published after */
/*
 * The writer asleep until woken by any record (WRITER_ASLEEP), or napping
 * until its next look unless the ring fills to half (WRITER_NAPPING), or
 * signalled by a sender and not yet running (WRITER_WOKEN: the one sender
 * that moved it there signals, not every sender until the writer runs,
 * which on a VM can take a few hundred MADs): wake_lock and wake_up, whose
 * clock is CLOCK_MONOTONIC.
 */
enum { WRITER_AWAKE, WRITER_ASLEEP, WRITER_NAPPING, WRITER_WOKEN };
static atomic_int writer_sleeping;
static pthread_mutex_t wake_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake_up = PTHREAD_COND_INITIALIZER;
static atomic_int writer_kicked;		/* moved off a sender's CPU (kick_writer) */
static pthread_t writer_thread;

/*
 * The writing thread's own: one packet and one comment at a time, no
 * allocation per MAD; a segment's comment is the message's, with its
 * segment=N/M.
 */
static uint8_t mad_copy[MAD_SIZE];
static struct capture_meta meta;
static char comment[CAPTURE_META_MAX];
static char seg_comment[CAPTURE_META_MAX];
static int write_error;

/* The variable naming the file: UMAD_CAPTURE, or the preload shim's own. */
static const char *capture_variable = "UMAD_CAPTURE";

void umad_tap_use_variable(const char *name)
{
	capture_variable = name;
}

static void *writer_main(void *arg);
static void write_record(const struct tap_record *rec);
static void note_write_error(int r);

static void pause_briefly(long ns)
{
	struct timespec t = { 0, ns };

	nanosleep(&t, NULL);
}

/*
 * How many records, up to max, from the head on can be written: all but a
 * send still under way and what follows it.  At exit everything is written
 * (the thread sending may never come back to say how it went).
 * write_lock held.
 */
static size_t ready_count(uint64_t from, size_t max)
{
	uint64_t end = atomic_load_explicit(&senders.tail, memory_order_acquire);
	size_t n = end - from < max ? (size_t)(end - from) : max, i;

	if (atomic_load(&writer_stopping))
		return n;
	for (i = 0; i < n; i++)
		if (atomic_load_explicit(&ring[(from + i) % TAP_RING].kind, memory_order_acquire) ==
		    TAP_REC_SENDING)
			return i;
	return n;
}

/* Is a record ready at the head?  For a thread about to sleep. */
static int record_ready(void)
{
	uint64_t at = atomic_load(&taken.head);

	return atomic_load(&senders.tail) != at && atomic_load(&ring[at % TAP_RING].kind) != TAP_REC_SENDING;
}

/* Write up to max ready records from the head into the file; how many. write_lock held. */
static size_t write_run(size_t max)
{
	uint64_t first = atomic_load_explicit(&taken.head, memory_order_relaxed);
	size_t n = file_state ? ready_count(first, max) : 0, i;

	for (i = 0; i < n; i++) {
		struct tap_record *rec = &ring[(first + i) % TAP_RING];

		if (file_state > 0)
			write_record(rec);
		free(rec->big);
		rec->big = NULL;
	}
	/* The records are the senders' again. */
	atomic_store_explicit(&taken.head, first + n, memory_order_release);
	return n;
}

/* Flush what was written. write_lock held. */
static void flush_written(void)
{
	if (file_state > 0)
		note_write_error(pcapng_flush(writer));
	taken.flushed = atomic_load_explicit(&taken.head, memory_order_relaxed);
}

/*
 * A thread that cannot wait for the writer thread (ring full, or sync):
 * write a run of what is ready, after whoever is writing now; if nothing
 * is, the head is a send under way, which says how it went in a few
 * microseconds.
 */
static void write_ready_or_pause(void)
{
	size_t n;

	pthread_mutex_lock(&write_lock);
	n = write_run(TAP_WRITE_RUN);
	pthread_mutex_unlock(&write_lock);
	if (!n)
		pause_briefly(20000);
}

/* Until the file holds the first target records, whoever else is writing. */
static void sync_upto(uint64_t target)
{
	while (atomic_load(&taken.head) < target)
		write_ready_or_pause();
	pthread_mutex_lock(&write_lock);
	if (taken.flushed < target)
		flush_written();
	pthread_mutex_unlock(&write_lock);
}

/* At exit: later MADs are not captured, and the file gets everything before. */
static void stop_writer(void)
{
	pthread_mutex_lock(&tap_lock);
	if (!writer_running) {
		pthread_mutex_unlock(&tap_lock);
		return;
	}
	atomic_store(&umad_tap_enabled, 0);
	atomic_store(&writer_stopping, 1);	/* the thread leaves the rest to us, and exit() ends it */
	pthread_mutex_unlock(&tap_lock);
	sync_upto(atomic_load(&senders.tail));
}

void umad_tap_sync(void)
{
	if (atomic_load(&umad_tap_enabled))
		sync_upto(atomic_load(&senders.tail));
}

/*
 * Across fork(): no lock is held by a thread the child will not have, and
 * the child starts afresh.  Lock order: tap_lock, write_lock, wake_lock.
 */
static int restart_pending;	/* a forked child: a writer thread once it captures (tap_lock) */
static int restart_ifaces;	/* the interfaces its new writer describes first */
static void init_wake_up(void);
static void drop_ring(void);

/* Forget the records not yet written (a forked child's copies of its parent's). */
static void drop_ring(void)
{
	uint64_t at, end = atomic_load(&senders.tail);

	for (at = atomic_load(&taken.head); at < end; at++) {
		free(ring[at % TAP_RING].big);
		ring[at % TAP_RING].big = NULL;
	}
	atomic_store(&taken.head, end);
	taken.flushed = end;
	senders.head_seen = end;
}

static void before_fork(void)
{
	pthread_mutex_lock(&tap_lock);
	pthread_mutex_lock(&write_lock);
	pthread_mutex_lock(&wake_lock);
}

static void parent_after_fork(void)
{
	pthread_mutex_unlock(&wake_lock);
	pthread_mutex_unlock(&write_lock);
	pthread_mutex_unlock(&tap_lock);
}

/*
 * A forked child has no writer thread, and its copies of the ring and of
 * the writer's batch hold the parent's MADs, which the parent writes: they
 * are dropped, never written twice.  The child's own MADs go into sections
 * of its own (its own file, with %p), by a writer started when it first
 * captures one; the ports it inherited keep their interfaces.
 */
static void child_after_fork(void)
{
	if (writer_running) {
		drop_ring();
		if (writer)
			pcapng_discard(writer);
		writer = NULL;
		file_state = 0;
		write_error = 0;
		writer_running = 0;
		atomic_store(&writer_sleeping, WRITER_AWAKE);
		atomic_store(&writer_kicked, 0);
		restart_ifaces = n_ifaces;
		if (capture_file_name(capture_pattern, getpid(), capture_path, PATH_MAX) < 0)
			atomic_store(&umad_tap_enabled, 0);
		else
			restart_pending = atomic_load(&umad_tap_enabled);
	}
	/* Its waiters were the parent's threads. */
	init_wake_up();
	pthread_mutex_unlock(&wake_lock);
	pthread_mutex_unlock(&write_lock);
	pthread_mutex_unlock(&tap_lock);
}

/* The CPUs the process may use, when more than one: the writer is kept off the sender's. */
static cpu_set_t process_cpus;
static int spread;

/* The process's CPUs but one. */
static cpu_set_t cpus_except(int cpu)
{
	cpu_set_t others = process_cpus;

	CPU_CLR(cpu, &others);
	return others;
}

/* The calling (writer) thread may run on any of the process's CPUs again. */
static void run_anywhere(void)
{
	pthread_setaffinity_np(pthread_self(), sizeof(process_cpus), &process_cpus);
}

/*
 * Start the writer thread on another CPU than this one (it joins all of
 * them at once): started beside its creator, as the scheduler tends to, it
 * would hold the application up while it opens the file.
 */
static void start_elsewhere(pthread_attr_t *attr)
{
	cpu_set_t others;
	int here = sched_getcpu();

	if (sched_getaffinity(0, sizeof(process_cpus), &process_cpus) < 0 ||
	    CPU_COUNT(&process_cpus) < 2 || here < 0 || !CPU_ISSET(here, &process_cpus))
		return;
	others = cpus_except(here);
	spread = pthread_attr_setaffinity_np(attr, sizeof(others), &others) == 0;
}

/*
 * Move the writer off the CPU the senders use, if it is there (the
 * scheduler likes to put a woken thread beside its waker, where the two
 * would share one CPU), then let it run anywhere again.
 */
static void move_off_senders(void)
{
	cpu_set_t others;
	int cpu = atomic_load_explicit(&senders.cpu, memory_order_relaxed);

	if (!spread || cpu < 0 || sched_getcpu() != cpu)
		return;
	others = cpus_except(cpu);
	if (pthread_setaffinity_np(pthread_self(), sizeof(others), &others) == 0)
		run_anywhere();
}

/*
 * A sender found the ring half full: the writer thread is not getting a
 * CPU, most likely waiting behind this very thread.  Move it to another CPU
 * from here, and keep it off this one until it is idle again.  tap_lock held.
 */
static void kick_writer(void)
{
	cpu_set_t others;
	int cpu = sched_getcpu();

	if (!spread || atomic_load(&writer_kicked) || cpu < 0)
		return;
	others = cpus_except(cpu);
	atomic_store(&writer_kicked,
		     pthread_setaffinity_np(writer_thread, sizeof(others), &others) == 0);
}

/*
 * The ring's pages are faulted in by the writer, ahead of the senders (a
 * page's first touch is a page fault, which a sender would pay on the
 * application's time), a chunk at a time as the senders come near:
 * a tool that sends one MAD does not have all 96 pages faulted in.  Once
 * the whole ring has been, nothing is left to do.  Writer thread.
 */
#define TAP_POPULATE_CHUNK (TAP_RING / 8)
_Static_assert(TAP_POPULATE_CHUNK * sizeof(struct tap_record) % 4096 == 0,
	       "a chunk of the ring starts on a page, as madvise wants");
static size_t populated;		/* records whose pages are faulted in */

static void populate_ahead(void)
{
#ifdef MADV_POPULATE_WRITE
	uint64_t want = atomic_load_explicit(&senders.tail, memory_order_relaxed) + 2 * TAP_POPULATE_CHUNK;

	for (; populated < TAP_RING && populated < want; populated += TAP_POPULATE_CHUNK)
		madvise(ring + populated, TAP_POPULATE_CHUNK * sizeof(*ring), MADV_POPULATE_WRITE);
#endif
}

/*
 * What start() leaves to the writer thread, first thing: creating the file
 * and faulting the ring's first chunks in, off the application's path
 * (file and whole ring had taken it a quarter of a millisecond).
 */
static void open_file(void)
{
	struct umad_err why = UMAD_ERR_INIT;
	struct pcapng_writer *w = pcapng_append(capture_path, "libumad capture tap", &why);
	int i;

	pthread_mutex_lock(&write_lock);
	if (w) {
		writer = w;
		pcapng_set_batching(writer, 1);
		file_state = 1;
		/* A forked child's inherited ports: described before its own records. */
		for (i = 0; i < restart_ifaces; i++)
			note_write_error(pcapng_add_interface(writer, ifaces[i].name, "umad port") < 0 ?
					 -ENOSPC : 0);
	} else {
		fprintf(stderr, "libumad: %s=%s: %s; not capturing\n", capture_variable, capture_path,
			umad_err_text(&why));
		atomic_store(&umad_tap_enabled, 0);
		file_state = -1;
	}
	pthread_mutex_unlock(&write_lock);
	populate_ahead();
}

/* wake_up's timed waits (naps) count on CLOCK_MONOTONIC: setting the clock does not stretch them. */
static void init_wake_up(void)
{
	pthread_condattr_t attr;

	if (pthread_condattr_init(&attr) == 0) {
		if (pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0)
			pthread_cond_init(&wake_up, &attr);
		pthread_condattr_destroy(&attr);
	}
}

/* The writer thread, off on its own; 0 or an errno.  tap_lock held, or at start. */
static int start_writer_thread(void)
{
	pthread_attr_t attr;
	int err = pthread_attr_init(&attr);

	if (err)
		return err;
	pthread_attr_setstacksize(&attr, 256 * 1024);
	/* Nobody joins it: at exit the application's thread writes the rest and exit() ends it. */
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	start_elsewhere(&attr);
	err = pthread_create(&writer_thread, &attr, writer_main, NULL);
	pthread_attr_destroy(&attr);
	if (!err)
		writer_running = 1;
	return err;
}

/*
 * The application's share of starting: the ring's address space and the
 * writer thread.  Whatever else can wait is the writer thread's (open_file).
 */
static void start(void)
{
	const char *path = getenv(capture_variable);
	const char *r = getenv("UMAD_CAPTURE_REDACT");
	int err;

	if (!path || !*path)
		return;
	/* %p: one file per process, should a file per process be wanted. */
	capture_path = malloc(PATH_MAX);
	capture_pattern = strdup(path);
	if (capture_path && capture_file_name(path, getpid(), capture_path, PATH_MAX) < 0) {
		fprintf(stderr, "libumad: %s=%s: the name is too long; not capturing\n",
			capture_variable, path);
		free(capture_path);
		capture_path = NULL;
		return;
	}
	redact = r && *r && strcmp(r, "0");	/* read by the writer thread */
	ring = mmap(NULL, TAP_RING * sizeof(*ring), PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ring == MAP_FAILED)
		ring = NULL;
	err = ring && capture_path && capture_pattern ? 0 : ENOMEM;
	if (!err) {
		init_wake_up();
		err = start_writer_thread();
	}
	if (err) {
		fprintf(stderr, "libumad: %s=%s: cannot start the capture writer: %s; not capturing\n",
			capture_variable, path, strerror(err));
		if (ring)
			munmap(ring, TAP_RING * sizeof(*ring));
		ring = NULL;
		free(capture_path);
		capture_path = NULL;
		return;
	}
	atexit(stop_writer);
	pthread_atfork(before_fork, parent_after_fork, child_after_fork);
	/* Unless the writer thread has already failed to create the file. */
	pthread_mutex_lock(&write_lock);
	if (file_state >= 0)
		atomic_store(&umad_tap_enabled, 1);
	pthread_mutex_unlock(&write_lock);
}

/* A forked child's first record: its own writer thread, or no capture if none can start. */
static void restart_in_child(void)
{
	int err;

	restart_pending = 0;
	err = start_writer_thread();
	if (err) {
		fprintf(stderr, "libumad: %s=%s: cannot start the capture writer: %s; not capturing\n",
			capture_variable, capture_path, strerror(err));
		atomic_store(&umad_tap_enabled, 0);
	}
}

/*
 * The next free record of the ring; NULL once stopped.  A full ring means
 * the writer thread is behind, or not running at all (the scheduler may
 * keep it waiting behind this very thread): the sender writes what is
 * ready itself.  tap_lock held.
 */
static struct tap_record *reserve(void)
{
	uint64_t at = atomic_load_explicit(&senders.tail, memory_order_relaxed);

	if (!writer_running && restart_pending)
		restart_in_child();
	while (at - senders.head_seen == TAP_RING && !atomic_load(&writer_stopping)) {
		senders.head_seen = atomic_load_explicit(&taken.head, memory_order_acquire);
		if (at - senders.head_seen == TAP_RING)
			write_ready_or_pause();
	}
	if (atomic_load(&writer_stopping) || !writer_running)
		return NULL;
	return &ring[at % TAP_RING];
}

/* Wake the writer thread if it sleeps until woken (or naps, when how says so). */
static void wake_writer(int how)
{
	int state = atomic_load(&writer_sleeping);

	if ((state == WRITER_ASLEEP || (state == WRITER_NAPPING && how == WRITER_NAPPING)) &&
	    atomic_compare_exchange_strong(&writer_sleeping, &state, WRITER_WOKEN)) {
		pthread_mutex_lock(&wake_lock);
		pthread_cond_signal(&wake_up);
		pthread_mutex_unlock(&wake_lock);
	}
}

/*
 * Publish the reserved record to the writer, waking it only when it sleeps
 * (and the record can be written: a send under way wakes it once done).
 * tap_lock held.
 */
static void commit(int ready)
{
	uint64_t at = atomic_load_explicit(&senders.tail, memory_order_relaxed) + 1;
	int behind = 0;

	/* Sequentially consistent, against writer_sleeping: see sleep_until_woken. */
	atomic_store(&senders.tail, at);
	atomic_store_explicit(&senders.cpu, sched_getcpu(), memory_order_relaxed);
	/* Half the ring since the head last seen: is the writer half a ring behind? */
	if (at - senders.head_seen == TAP_RING / 2) {
		/* Acquire: reserve() reuses the records before it without looking again. */
		senders.head_seen = atomic_load_explicit(&taken.head, memory_order_acquire);
		behind = at - senders.head_seen >= TAP_RING / 2;
	}
	if (behind) {
		kick_writer();
		wake_writer(WRITER_NAPPING);
	} else if (ready) {
		wake_writer(WRITER_ASLEEP);
	}
}

int umad_tap_start(void)
{
	pthread_once(&start_once, start);
	return atomic_load(&umad_tap_enabled);
}

static struct tap_port *find_port(int portid)
{
	static int last;	/* MADs come in runs on one port */
	int i;

	if (port_ids[last].in_use && port_ids[last].portid == portid)
		return &ports[last];
	for (i = 0; i < TAP_MAX_PORTS; i++)
		if (port_ids[i].in_use && port_ids[i].portid == portid) {
			last = i;
			return &ports[i];
		}
	return NULL;
}

/* Mark the slot of port p free. */
static void free_slot(struct tap_port *p)
{
	port_ids[p - ports].in_use = 0;
}

/* A free slot, now port portid's and zeroed, or NULL. */
static struct tap_port *take_slot(int portid)
{
	int i;

	for (i = 0; i < TAP_MAX_PORTS; i++)
		if (!port_ids[i].in_use) {
			port_ids[i].in_use = 1;
			port_ids[i].portid = portid;
			memset(&ports[i], 0, sizeof(ports[i]));
			return &ports[i];
		}
	return NULL;
}

/* The pcapng interface for "ca:port", added on first use. */
static int iface_for(const char *ca_name, int portnum)
{
	char name[sizeof(ifaces[0].name)];
	struct tap_record *rec;
	int i, id;

	snprintf(name, sizeof(name), "%s:%d", ca_name, portnum);
	for (i = 0; i < n_ifaces; i++)
		if (!strcmp(ifaces[i].name, name))
			return i;
	if (n_ifaces == TAP_MAX_IFACES)
		return -ENOSPC;
	/* The writer adds interfaces in this same order, so the ids agree. */
	rec = reserve();
	if (!rec)
		return -EPIPE;
	atomic_store_explicit(&rec->kind, TAP_REC_IFACE, memory_order_relaxed);
	rec->big = NULL;
	snprintf((char *)rec->mad, sizeof(rec->mad), "%s", name);
	commit(1);
	id = n_ifaces;
	snprintf(ifaces[n_ifaces++].name, sizeof(name), "%s", name);
	return id;
}

void umad_tap_port_opened(int portid, const char *ca_name, int portnum, const umad_port_t *info)
{
	struct tap_port *p;
	unsigned i;

	if (!umad_tap_on())
		return;
	pthread_mutex_lock(&tap_lock);
	p = find_port(portid);
	if (p)
		memset(p, 0, sizeof(*p));
	else
		p = take_slot(portid);
	if (p) {
		p->iface = iface_for(ca_name, portnum);
		p->lid = LID_PERMISSIVE;
		for (i = 0; i < TAP_MAX_AGENTS; i++)
			p->agent_qp[i] = QP1_GSI;
		if (info) {
			p->lid = info->base_lid ? (uint16_t)info->base_lid : LID_PERMISSIVE;
			p->gid.global.subnet_prefix = info->gid_prefix;
			p->gid.global.interface_id = info->port_guid;
			p->n_pkeys = info->pkeys_size < 64 ? info->pkeys_size : 64;
			for (i = 0; i < p->n_pkeys && info->pkeys; i++)
				p->pkeys[i] = info->pkeys[i];
		}
		if (p->iface < 0)
			free_slot(p);
	}
	pthread_mutex_unlock(&tap_lock);
}

void umad_tap_port_closed(int portid)
{
	struct tap_port *p;

	if (!atomic_load(&umad_tap_enabled))
		return;
	pthread_mutex_lock(&tap_lock);
	p = find_port(portid);
	if (p)
		free_slot(p);
	pthread_mutex_unlock(&tap_lock);
	/* What went through the port is in the file once it is closed. */
	umad_tap_sync();
}

void umad_tap_agent(int portid, uint32_t agent_id, unsigned qpn)
{
	struct tap_port *p;

	if (!atomic_load(&umad_tap_enabled))
		return;
	pthread_mutex_lock(&tap_lock);
	p = find_port(portid);
	if (p && agent_id < TAP_MAX_AGENTS)
		p->agent_qp[agent_id] = (uint8_t)qpn;
	pthread_mutex_unlock(&tap_lock);
}

/* Zero the 64-bit key at offset at, if the MAD holds it. */
static void zero_key(uint8_t *mad, size_t len, size_t at)
{
	if (len >= at + MAD_KEY_SIZE)
		memset(mad + at, 0, MAD_KEY_SIZE);
}

void umad_tap_redact(uint8_t *mad, size_t len)
{
	uint16_t attr;

	if (len < MAD_HDR_SIZE)
		return;
	attr = mad_attr_id(mad);
	if (mad_class_is_smp(mad_class(mad))) {
		zero_key(mad, len, SMP_OFF_MKEY);
		if (attr == UMAD_SM_ATTR_PORT_INFO)
			zero_key(mad, len, SMP_OFF_DATA + MAD_FIELD_BYTE(PI_M_KEY));
		if (attr == UMAD_SM_ATTR_SM_INFO)
			zero_key(mad, len, SMP_OFF_DATA + MAD_FIELD_BYTE(SMI_SM_KEY));
	} else if (mad_class(mad) == UMAD_CLASS_SUBN_ADM) {
		zero_key(mad, len, SA_OFF_SM_KEY);
	}
}

/*
 * The packet id of a MAD: a new one for a request going out (remembered by
 * TID), the request's for its answer or timeout coming back, else a new one.
 */
static uint64_t packet_id_for(struct tap_port *p, int outbound, int timeout, const uint8_t *mad,
			      size_t len)
{
	struct tap_pending *slot;
	uint32_t tid;
	int response;

	if (len < MAD_OFF_TID_LOW + sizeof(tid))
		return next_packet_id++;
	tid = get_be32(mad + MAD_OFF_TID_LOW);
	response = mad_method_is_response(mad_method(mad));
	/* Slots by TID: tools number their transactions, so neighbours rarely collide. */
	slot = &p->pending[(tid ^ (tid >> 8)) % TAP_PENDING];
	if (outbound && !response) {
		slot->tid = tid;
		slot->packet_id = next_packet_id++;
		return slot->packet_id;
	}
	if (!outbound && (response || timeout) && slot->packet_id && slot->tid == tid) {
		uint64_t id = slot->packet_id;

		slot->packet_id = 0;
		return id;
	}
	return next_packet_id++;
}

/*
 * The comments formatted last: a tool's requests mostly say the same, and
 * so do its answers, but a few fields can take turns (umad2sim leaves a
 * received MAD's pkey_index as the buffer had it).
 */
#define COMMENTS_KEPT 8

/* The umad metadata into meta and comment, which Wireshark shows as the packet comment. */
static void format_comment(const struct ib_user_mad *h, size_t mad_len, int timeout)
{
	static struct capture_meta kept_meta[COMMENTS_KEPT];
	static char kept_text[COMMENTS_KEPT][sizeof(comment)];
	static int kept, next;
	int i;

	/* Field by field after the memset: memcmp must not see stray bytes. */
	memset(&meta, 0, sizeof(meta));
	meta.have = CAPTURE_META_ALWAYS | (timeout ? CAPTURE_META_BIT(CAPTURE_META_TIMEOUT) : 0);
	meta.agent = h->agent_id;
	meta.status = h->status;
	meta.timeout_ms = h->timeout_ms;
	meta.retries = h->retries;
	meta.qpn = be32toh(h->addr.qpn);
	meta.qkey = be32toh(h->addr.qkey);
	meta.lid = be16toh(h->addr.lid);
	meta.sl = h->addr.sl;
	meta.path_bits = h->addr.path_bits;
	meta.pkey_index = h->addr.pkey_index;
	meta.grh = h->addr.grh_present;
	meta.length = (uint32_t)mad_len;
	meta.timeout = timeout ? 1 : 0;
	for (i = 0; i < kept; i++)
		if (!memcmp(&meta, &kept_meta[i], sizeof(meta))) {
			strcpy(comment, kept_text[i]);
			return;
		}
	capture_meta_format(&meta, comment, sizeof(comment));
	/* Kept in turn, the oldest replaced first. */
	kept_meta[next] = meta;
	strcpy(kept_text[next], comment);
	next = (next + 1) % COMMENTS_KEPT;
	if (kept < COMMENTS_KEPT)
		kept++;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void note_write_error(int r)
{
	const char *why = r == -EBADMSG && writer ? pcapng_error(writer) : NULL;

	if (r < 0 && !write_error) {
		write_error = -r;
		fprintf(stderr, "libumad: capture: %s: cannot write: %s; the capture is incomplete\n",
			capture_path, why ? why : strerror(-r));
	}
	/*
	 * Another program left the file's end torn: nothing more of ours could
	 * be read, so nothing more is written (write_lock held).
	 */
	if (r == -EBADMSG) {
		file_state = -1;
		atomic_store(&umad_tap_enabled, 0);
	}
}

/* One MAD from mad_copy onto the wire, built in place in the file's next block. */
static void write_segment(const struct tap_record *rec, struct ib_packet_ends *ends)
{
	size_t len = ib_packet_len(rec->hdr.addr.grh_present, MAD_SIZE);
	uint8_t *at;
	int r;

	if (redact)
		umad_tap_redact(mad_copy, MAD_SIZE);
	r = pcapng_add_ib(writer, rec->iface, rec->ts_ns,
			  ends->outbound ? PCAPNG_DIR_OUTBOUND : PCAPNG_DIR_INBOUND, len,
			  seg_comment[0] ? seg_comment : comment, rec->id, &at);
	if (r == 0)
		r = ib_packet_build(at, len, &rec->hdr, mad_copy, MAD_SIZE, ends);
	note_write_error(r < 0 ? r : 0);
	ends->psn++;
}

/* How many MADs carry a message of mad_len bytes (RMPP segments). */
static size_t segment_count(const uint8_t *mad, size_t mad_len)
{
	size_t head = mad_rmpp_header_len(mad_class(mad)), seg_size = MAD_SIZE - head;

	if (mad_len <= MAD_SIZE)
		return 1;
	return (mad_len - head + seg_size - 1) / seg_size;
}

/*
 * A message longer than one MAD (reassembled by the kernel's RMPP) goes into
 * the file as the segments the wire carried: each repeats the headers and
 * carries the next part of the data, with RMPP type DATA, segment numbers
 * from 1, First/Last flags and the payload lengths the kernel puts there.
 */
static void write_rmpp_segments(const struct tap_record *rec, struct ib_packet_ends *ends)
{
	const uint8_t *mad = rec->big;
	size_t mad_len = rec->mad_len;
	size_t head = mad_rmpp_header_len(mad_class(mad)), seg_size = MAD_SIZE - head;
	size_t data_len = mad_len - head, count = segment_count(mad, mad_len);
	size_t pad = count * seg_size - data_len, i, part;
	uint32_t paylen;

	meta.have |= CAPTURE_META_BIT(CAPTURE_META_SEGMENT);
	meta.segments = (uint32_t)count;
	for (i = 0; i < count; i++) {
		part = i + 1 < count ? seg_size : data_len - i * seg_size;
		memset(mad_copy, 0, MAD_SIZE);
		memcpy(mad_copy, mad, head);
		memcpy(mad_copy + head, mad + head + i * seg_size, part);
		if (!mad_copy[RMPP_OFF_VERSION])
			mad_copy[RMPP_OFF_VERSION] = UMAD_RMPP_VERSION;
		mad_copy[RMPP_OFF_TYPE] = RMPP_TYPE_DATA;
		mad_copy[RMPP_OFF_FLAGS] = (uint8_t)((mad_copy[RMPP_OFF_FLAGS] & ~RMPP_FLAGS_MASK) |
						     UMAD_RMPP_FLAG_ACTIVE |
						     (i == 0 ? RMPP_FLAG_FIRST : 0) |
						     (i + 1 == count ? RMPP_FLAG_LAST : 0));
		mad_copy[RMPP_OFF_STATUS] = 0;
		put_be32(mad_copy + RMPP_OFF_SEG_NUM, (uint32_t)(i + 1));
		paylen = i + 1 == count ? (uint32_t)(MAD_SIZE - RMPP_HDR_END - pad) :
			 i == 0 ? (uint32_t)(count * (MAD_SIZE - RMPP_HDR_END) - pad) : 0;
		put_be32(mad_copy + RMPP_OFF_PAYLEN, paylen);
		meta.segment = (uint32_t)(i + 1);
		capture_meta_format(&meta, seg_comment, sizeof(seg_comment));
		write_segment(rec, ends);
	}
	seg_comment[0] = '\0';
}

/* One record of the ring into the file. Writer thread, without the lock. */
static void write_record(const struct tap_record *rec)
{
	struct ib_packet_ends ends = rec->ends;
	uint8_t kind = atomic_load_explicit(&rec->kind, memory_order_relaxed);

	if (kind == TAP_REC_UNSENT)
		return;
	if (kind == TAP_REC_IFACE) {
		int r = pcapng_add_interface(writer, (const char *)rec->mad, "umad port");

		note_write_error(r < 0 ? r : 0);
		return;
	}
	format_comment(&rec->hdr, rec->mad_len, rec->timeout);
	if (!rec->big) {
		/*
		 * On the wire a MAD is never shorter than MAD_SIZE (the kernel
		 * pads it), and a timed-out send comes back with only its header.
		 */
		memcpy(mad_copy, rec->mad, MAD_SIZE);
		write_segment(rec, &ends);
	} else {
		write_rmpp_segments(rec, &ends);
	}
}

/*
 * Sleep until a sender or a finished send wakes it.  writer_sleeping and
 * the look at the ring are sequentially consistent, as are the senders'
 * publishing and their look at writer_sleeping: one side sees the other.
 */
static void sleep_until_woken(void)
{
	pthread_mutex_lock(&wake_lock);
	atomic_store(&writer_sleeping, WRITER_ASLEEP);
	while (!record_ready() && !atomic_load(&writer_stopping) &&
	       atomic_load(&writer_sleeping) == WRITER_ASLEEP)
		pthread_cond_wait(&wake_up, &wake_lock);
	atomic_store(&writer_sleeping, WRITER_AWAKE);
	pthread_mutex_unlock(&wake_lock);
}

/* Until the next look, ns from now, or until a sender finds the ring half full. */
static void nap(long ns)
{
	struct timespec until;

	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_nsec += ns;
	until.tv_sec += until.tv_nsec / 1000000000;
	until.tv_nsec %= 1000000000;
	pthread_mutex_lock(&wake_lock);
	atomic_store(&writer_sleeping, WRITER_NAPPING);
	while (!atomic_load(&writer_stopping) &&
	       atomic_load(&senders.tail) - atomic_load(&taken.head) < TAP_RING / 2 &&
	       atomic_load(&writer_sleeping) == WRITER_NAPPING &&
	       pthread_cond_timedwait(&wake_up, &wake_lock, &until) == 0)
		;
	atomic_store(&writer_sleeping, WRITER_AWAKE);
	pthread_mutex_unlock(&wake_lock);
}

/*
 * The writer thread: at each look, writes what is ready in runs (letting
 * a thread that must sync in between); the file catches up to a 64 KiB
 * boundary, or wholly when the look found nothing new or every
 * TAP_FLUSH_NS.  Then it naps, longer or shorter by how much it found
 * (TAP_FEW, TAP_MANY), or sleeps until woken once idle for TAP_IDLE_NS.
 * Once stopping, it leaves everything to stop_writer().
 */
static void *writer_main(void *arg)
{
	long nap_ns = TAP_NAP_MIN_NS * 2, idle_ns = TAP_IDLE_NS;	/* asleep until the first record */
	long unflushed_ns = 0;		/* since the file last caught up, about */
	size_t n, found;

	(void)arg;
	pthread_setname_np(pthread_self(), "umad-capture");
	open_file();	/* still kept off the CPU that started it */
	if (spread)
		run_anywhere();
	while (!atomic_load(&writer_stopping)) {
		if (idle_ns >= TAP_IDLE_NS) {
			if (atomic_load(&writer_kicked)) {
				run_anywhere();
				atomic_store(&writer_kicked, 0);
			}
			sleep_until_woken();
			idle_ns = 0;
		}
		if (record_ready())
			move_off_senders();
		found = 0;
		do {
			populate_ahead();
			pthread_mutex_lock(&write_lock);
			n = atomic_load(&writer_stopping) ? 0 : write_run(TAP_WRITE_RUN);
			found += n;
			pthread_mutex_unlock(&write_lock);
		} while (n == TAP_WRITE_RUN);
		pthread_mutex_lock(&write_lock);
		if (taken.flushed < atomic_load(&taken.head) && !atomic_load(&writer_stopping)) {
			if (!found || unflushed_ns >= TAP_FLUSH_NS) {
				flush_written();
				unflushed_ns = 0;
			} else if (file_state > 0) {
				note_write_error(pcapng_flush_aligned(writer));
			}
		}
		pthread_mutex_unlock(&write_lock);
		if (found < TAP_FEW && nap_ns < TAP_NAP_MAX_NS)
			nap_ns = nap_ns * 2 < TAP_NAP_MAX_NS ? nap_ns * 2 : TAP_NAP_MAX_NS;
		else if (found > TAP_MANY && nap_ns > TAP_NAP_MIN_NS)
			nap_ns = nap_ns / 2 > TAP_NAP_MIN_NS ? nap_ns / 2 : TAP_NAP_MIN_NS;
		idle_ns = found ? 0 : idle_ns + nap_ns;
		if (idle_ns < TAP_IDLE_NS && !atomic_load(&writer_stopping)) {
			nap(nap_ns);
			unflushed_ns += nap_ns;
		}
	}
	return NULL;
}

/*
 * Copy one MAD into the next record and commit it: going out, as SENDING
 * until the send returns.  agent_id, timeout_ms and retries are the
 * header's.  Returns the record's number from 1, 0 if not captured.
 * tap_lock held.
 */
static uint64_t capture(int portid, int outbound, const struct ib_user_mad *umad, size_t hdr_size,
			size_t mad_len, uint32_t agent_id, uint32_t hi_tid, uint32_t timeout_ms,
			uint32_t retries)
{
	enum tap_record_kind kind = outbound ? TAP_REC_SENDING : TAP_REC_MAD;
	const uint8_t *mad = (const uint8_t *)umad + hdr_size;
	struct tap_record *rec;
	struct tap_port *p = find_port(portid);
	uint64_t id;
	uint32_t status = umad->status;
	/* An ABI 5 header is shorter: it has no pkey_index. */
	uint16_t pkey_index = hdr_size >= sizeof(*umad) ? umad->addr.pkey_index : 0;
	/* The kernel's status for a send that got no answer. */
	int timeout = !outbound && status == ETIMEDOUT;

	if (!p)
		return 0;
	if (mad_len > MAD_SIZE && !ib_is_rmpp_message(mad, mad_len))
		mad_len = MAD_SIZE;	/* never RMPP segments made up over its own fields */
	id = packet_id_for(p, outbound, timeout, mad, mad_len);
	rec = reserve();
	if (!rec)
		return 0;
	if (hdr_size >= sizeof(rec->hdr)) {
		memcpy(&rec->hdr, umad, sizeof(rec->hdr));
	} else {
		memset(&rec->hdr, 0, sizeof(rec->hdr));
		memcpy(&rec->hdr, umad, hdr_size);
	}
	rec->hdr.agent_id = agent_id;
	rec->hdr.timeout_ms = timeout_ms;
	rec->hdr.retries = retries;
	rec->ends.outbound = outbound;
	rec->ends.local_lid = p->lid;
	rec->ends.local_qp = agent_id < TAP_MAX_AGENTS ? p->agent_qp[agent_id] : QP1_GSI;
	rec->ends.pkey = pkey_index < p->n_pkeys ? p->pkeys[pkey_index] : PKEY_DEFAULT;
	rec->ends.local_gid = p->gid;
	rec->ends.psn = p->psn;
	rec->iface = (int16_t)p->iface;
	rec->timeout = (uint8_t)timeout;
	rec->ts_ns = now_ns();
	rec->id = id;
	rec->mad_len = (uint32_t)mad_len;
	rec->big = NULL;
	if (mad_len == MAD_SIZE) {
		memcpy(rec->mad, mad, MAD_SIZE);
	} else if (mad_len < MAD_SIZE) {
		memcpy(rec->mad, mad, mad_len);
		memset(rec->mad + mad_len, 0, MAD_SIZE - mad_len);
	} else {
		/* RMPP messages are rare and long: their own copy. */
		rec->big = malloc(mad_len);
		if (!rec->big)
			return 0;
		memcpy(rec->big, mad, mad_len);
	}
	/* A request goes on the wire with the upper TID half its backend gave it. */
	if (hi_tid && outbound &&
	    !mad_rules_method_is_response(mad_class(mad), mad_method(mad), mad_attr_mod(mad)))
		put_be32((rec->big ? rec->big : rec->mad) + MAD_OFF_TID, hi_tid);
	atomic_store_explicit(&rec->kind, (uint8_t)kind, memory_order_relaxed);
	p->psn += (uint32_t)segment_count(mad, mad_len);
	commit(kind != TAP_REC_SENDING);
	return atomic_load_explicit(&senders.tail, memory_order_relaxed);
}

void umad_tap_received(int portid, const struct ib_user_mad *umad, size_t hdr_size,
		       size_t mad_len)
{
	if (!atomic_load_explicit(&umad_tap_enabled, memory_order_relaxed))
		return;
	pthread_mutex_lock(&tap_lock);
	capture(portid, 0, umad, hdr_size, mad_len, umad->agent_id, 0, umad->timeout_ms,
		umad->retries);
	pthread_mutex_unlock(&tap_lock);
}

uint64_t umad_tap_send_begin(int portid, const struct ib_user_mad *umad, size_t hdr_size,
			     size_t mad_len, uint32_t agent_id, uint32_t hi_tid,
			     uint32_t timeout_ms, uint32_t retries)
{
	uint64_t ticket;

	if (!atomic_load_explicit(&umad_tap_enabled, memory_order_relaxed))
		return 0;
	pthread_mutex_lock(&tap_lock);
	ticket = capture(portid, 1, umad, hdr_size, mad_len, agent_id, hi_tid, timeout_ms,
			 retries);
	pthread_mutex_unlock(&tap_lock);
	return ticket;
}

void umad_tap_send_done(uint64_t ticket, int sent)
{
	if (!ticket)
		return;
	/*
	 * No lock: a SENDING record stays where it is until this (at exit it
	 * is written as sent, and the ring is not used again).  Sequentially
	 * consistent against writer_sleeping, as in commit().
	 */
	atomic_store(&ring[(ticket - 1) % TAP_RING].kind, sent ? TAP_REC_MAD : TAP_REC_UNSENT);
	wake_writer(WRITER_ASLEEP);
}
