/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Unit tests of every exported function of libibumad's public API, through
 * the kernel backend on fake sysfs/devfs trees (UMAD_SYSFS_ROOT, UMAD_DEV_DIR
 * in a mkdtemp directory, written by the writer of fake trees).  Kernel answers a tree of regular files cannot
 * give (ioctl results, ENOSPC from read, short writes, poll errors) are
 * faked with linker wraps of ioctl, read, write and poll: each fake is armed
 * for one descriptor and passes every other call through.
 *
 * Expected values are rdma-core's (doc: the libibumad behaviour reference),
 * except where doc/differences.md lists a deliberate difference: NULL
 * pointers give an error instead of a crash, *length is left alone by
 * umad_recv() unless ENOSPC, umad_close_port() of a non-port is -EBADF, ports
 * are opened O_CLOEXEC, register2 reports the supported flags.
 *
 * Cases that depend on process-wide state (backend selection, the cached ABI
 * version, the header size of the last open) run in forked children that
 * report the first failed check on stderr and through their exit status.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include <infiniband/umad.h>
#include <infiniband/umad_str.h>

#include "backends/sysfs_writer.h"

/* The kernel's ioctl numbers and request layouts (private to the library, as in rdma-core). */
#define REQ_REGISTER_AGENT	0xC01C1B01UL
#define REQ_UNREGISTER_AGENT	0x40041B02UL
#define REQ_ENABLE_PKEY		0x00001B03UL
#define REQ_REGISTER_AGENT2	0xC0281B04UL

struct reg_req {		/* ib_user_mad_reg_req, 28 bytes */
	uint32_t id;
	uint32_t method_mask[4];
	uint8_t qpn;
	uint8_t mgmt_class;
	uint8_t mgmt_class_version;
	uint8_t oui[3];
	uint8_t rmpp_version;
};

struct reg_req2 {		/* ib_user_mad_reg_req2, 40 bytes */
	uint32_t id;
	uint32_t qpn;
	uint8_t mgmt_class;
	uint8_t mgmt_class_version;
	uint16_t res;
	uint32_t flags;
	uint64_t method_mask[2];
	uint32_t oui;
	uint8_t rmpp_version;
	uint8_t reserved[3];
};

_Static_assert(sizeof(struct reg_req) == 28, "reg_req layout");
_Static_assert(sizeof(struct reg_req2) == 40, "reg_req2 layout");
_Static_assert(offsetof(struct reg_req2, oui) == 32, "reg_req2 layout");

#define HDR_OLD 56
#define HDR_NEW 64

/* ------------------------------------------------------------------------- */
/* Fake sysfs and devfs                                                        */
/* ------------------------------------------------------------------------- */

/* Small enough that every path built from them fits PATH_MAX. */
static char root[512];			/* mkdtemp directory */
static char sysroot[1024];		/* UMAD_SYSFS_ROOT */
static char devdir[1024];		/* UMAD_DEV_DIR */

/*
 * A failed call leaves its error in errno too, whatever the call returns
 * (callers print errno with %m).  errno is cleared first, so that a call
 * that forgets it fails the check.  assert_fails() is for the usual
 * convention, a -errno returned and errno = the errno.
 */
#define assert_error(call, ret, err) do { \
	long long ret_; \
	int errno_; \
	errno = 0; \
	ret_ = (long long)(call); \
	errno_ = errno; \
	assert_int_equal(ret_, (long long)(ret)); \
	assert_int_equal(errno_, (err)); \
} while (0)
#define assert_fails(call, neg_errno) assert_error(call, neg_errno, -(neg_errno))

/* Every step of the tree must work: a tree half written would test nothing. */
#define FS(call) assert_int_equal((call), 0)

/* An empty host: no device class, no ib_umad. */
static void fs_reset(void)
{
	FS(sysfs_remove(root, SYSFS_DIR));
	FS(sysfs_remove(root, SYSFS_DEV_DIR));
	FS(sysfs_mkdirs(root, SYSFS_DIR));
	FS(sysfs_mkdirs(root, SYSFS_DEV_DIR));
}

/* The device class directory, empty. */
static void fs_class(void)
{
	char dir[PATH_MAX];

	FS(sysfs_ca_path(dir, sizeof(dir), NULL, NULL, NULL));
	FS(sysfs_mkdirs(root, dir));
}

static void fs_abi(unsigned version)
{
	FS(sysfs_write_abi_version(root, version));
}

/* ib_umad not loaded. */
static void fs_no_abi(void)
{
	char path[PATH_MAX];

	FS(sysfs_mad_path(path, sizeof(path), NULL, IB_UMAD_ABI_FILE));
	FS(sysfs_remove(root, path));
}

/* Files a test breaks on purpose; what it removes must have been there. */
static void fs_put_port(const char *ca, int port, const char *file, const char *value)
{
	char path[PATH_MAX];

	FS(sysfs_port_path(path, sizeof(path), NULL, ca, port, file));
	FS(sysfs_put(root, path, value));
}

static void fs_remove_ca(const char *ca, const char *file)
{
	char path[PATH_MAX];

	FS(sysfs_ca_path(path, sizeof(path), root, ca, file));
	FS(access(path, F_OK));
	FS(sysfs_ca_path(path, sizeof(path), NULL, ca, file));
	FS(sysfs_remove(root, path));
}

static void fs_remove_port(const char *ca, int port, const char *file)
{
	char path[PATH_MAX];

	FS(sysfs_port_path(path, sizeof(path), root, ca, port, file));
	FS(access(path, F_OK));
	FS(sysfs_port_path(path, sizeof(path), NULL, ca, port, file));
	FS(sysfs_remove(root, path));
}

static void fs_ca(const char *name, unsigned node_type, uint64_t guid)
{
	umad_ca_t ca = {
		.node_type = node_type,
		.fw_ver = "20.31.1014",
		.hw_ver = "0x0",
		.ca_type = "MT4123",
		.node_guid = htobe64(guid),
		.system_guid = htobe64(guid),
	};

	FS(sysfs_write_ca_files(root, name, &ca, "MT_0000000223", NULL));
}

struct port_spec {
	unsigned state;
	unsigned phys_state;
	const char *link_layer;		/* NULL: no file */
	uint64_t guid;			/* the port GUID half of gids/0 */
	uint32_t cap_mask;
	unsigned lid;
	unsigned npkeys;		/* the first of 0xffff, 0x8001, 0, 0 */
};

static void fs_port(const char *ca, int n, const struct port_spec *s)
{
	uint16_t pkeys[] = { 0xffff, 0x8001, 0x0000, 0x0000 };
	umad_port_t p = {
		.portnum = n,
		.base_lid = s->lid,
		.sm_lid = 1,
		.state = s->state,
		.phys_state = s->phys_state,
		.capmask = htobe32(s->cap_mask),
		.gid_prefix = htobe64(0xfe80000000000000ULL),
		.port_guid = htobe64(s->guid),
		.pkeys_size = s->npkeys < 4 ? s->npkeys : 4,
		.pkeys = pkeys,
	};

	snprintf(p.link_layer, sizeof(p.link_layer), "%s", s->link_layer ? s->link_layer : "");
	FS(sysfs_write_port(root, ca, &p, "100 Gb/sec (4X EDR)"));
}

static void fs_umad(int id, const char *ca, int port)
{
	FS(sysfs_write_umad(root, id, ca, port));
}

static const struct port_spec DOWN_POLLING = { 1, 2, "InfiniBand", 0x0c42a10300651231ULL,
					       0x2651e84a, 0x1, 4 };
static const struct port_spec ACTIVE_P2 = { 4, 5, "InfiniBand", 0x0c42a10300651232ULL,
					    0x2651e84a, 0x11, 4 };
static const struct port_spec ACTIVE_CA1 = { 4, 5, "InfiniBand", 0x0c42a10300651241ULL,
					     0x2651e84a, 0x21, 2 };

/*
 * The standard host: mlx5_0 {1: DOWN/Polling, 2: ACTIVE}, mlx5_1 {1: ACTIVE},
 * rxe0 (RNIC, not listed); umad0 = mlx5_0:1, umad1 = mlx5_0:2, umad2 = mlx5_1:1.
 */
static void fs_standard(void)
{
	static const struct port_spec rxe = { 4, 5, "Ethernet", 0x021122fffe334455ULL,
					      0x00010000, 0, 1 };

	fs_reset();
	fs_abi(5);
	fs_ca("mlx5_0", 1, 0x0c42a10300651230ULL);
	fs_port("mlx5_0", 1, &DOWN_POLLING);
	fs_port("mlx5_0", 2, &ACTIVE_P2);
	fs_ca("mlx5_1", 1, 0x0c42a10300651240ULL);
	fs_port("mlx5_1", 1, &ACTIVE_CA1);
	fs_ca("rxe0", 4, 0x021122fffe334455ULL);
	fs_port("rxe0", 1, &rxe);
	fs_umad(0, "mlx5_0", 1);
	fs_umad(1, "mlx5_0", 2);
	fs_umad(2, "mlx5_1", 1);
}

/* A planarized port: two planes share a port GUID; mlx5_1 (the GSI plane) has IsSMDisabled. */
static void fs_planarized(void)
{
	static const struct port_spec smi = { 4, 5, "InfiniBand", 0x0c42a10300700001ULL,
					      0x2651e84a, 0x7, 1 };
	static const struct port_spec gsi = { 4, 5, "InfiniBand", 0x0c42a10300700001ULL,
					      0x2651ec4a, 0x7, 1 };

	fs_reset();
	fs_abi(5);
	fs_ca("mlx5_0", 1, 0x0c42a10300700000ULL);
	fs_port("mlx5_0", 1, &smi);
	fs_ca("mlx5_1", 1, 0x0c42a10300700010ULL);
	fs_port("mlx5_1", 1, &gsi);
	fs_umad(0, "mlx5_0", 1);
	fs_umad(1, "mlx5_1", 1);
}

static int setup_standard(void **state)
{
	(void)state;
	fs_standard();
	return 0;
}

static int setup_empty(void **state)
{
	(void)state;
	fs_reset();
	return 0;
}

static int setup_planarized(void **state)
{
	(void)state;
	fs_planarized();
	return 0;
}

/* ------------------------------------------------------------------------- */
/* Linker wraps: fake kernel answers on one descriptor                        */
/* ------------------------------------------------------------------------- */

int __real_ioctl(int fd, unsigned long request, ...);
int __wrap_ioctl(int fd, unsigned long request, ...);
ssize_t __real_read(int fd, void *buf, size_t count);
ssize_t __wrap_read(int fd, void *buf, size_t count);
ssize_t __real_write(int fd, const void *buf, size_t count);
ssize_t __wrap_write(int fd, const void *buf, size_t count);
int __real_poll(struct pollfd *fds, nfds_t nfds, int timeout);
int __wrap_poll(struct pollfd *fds, nfds_t nfds, int timeout);

/* ioctl: armed for all descriptors when fake_kernel.armed. */
static struct {
	int armed;
	int enable_pkey_errno;		/* 0: ENABLE_PKEY succeeds */
	int reg_errno, reg2_errno, unreg_errno;
	uint32_t reg2_flags_cap;	/* written into flags on a REGISTER_AGENT2 EINVAL */
	uint32_t next_id;
	int n_reg, n_reg2, n_unreg, n_enable_pkey;
	struct reg_req last_reg;
	struct reg_req2 last_reg2;
	uint32_t last_unreg;
} fake_kernel;

static void fake_kernel_arm(void)
{
	memset(&fake_kernel, 0, sizeof(fake_kernel));
	fake_kernel.armed = 1;
	fake_kernel.enable_pkey_errno = ENOTTY;
	fake_kernel.next_id = 3;
}

static int fail_with(int e)
{
	errno = e;
	return -1;
}

int __wrap_ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	if (!fake_kernel.armed || fd < 0)
		return __real_ioctl(fd, request, arg);

	switch (request) {
	case REQ_ENABLE_PKEY:
		fake_kernel.n_enable_pkey++;
		return fake_kernel.enable_pkey_errno ? fail_with(fake_kernel.enable_pkey_errno) : 0;
	case REQ_REGISTER_AGENT:
		fake_kernel.n_reg++;
		memcpy(&fake_kernel.last_reg, arg, sizeof(struct reg_req));
		if (fake_kernel.reg_errno)
			return fail_with(fake_kernel.reg_errno);
		((struct reg_req *)arg)->id = fake_kernel.next_id;
		return 0;
	case REQ_REGISTER_AGENT2:
		fake_kernel.n_reg2++;
		memcpy(&fake_kernel.last_reg2, arg, sizeof(struct reg_req2));
		if (fake_kernel.reg2_errno == EINVAL)
			((struct reg_req2 *)arg)->flags = fake_kernel.reg2_flags_cap;
		if (fake_kernel.reg2_errno)
			return fail_with(fake_kernel.reg2_errno);
		((struct reg_req2 *)arg)->id = fake_kernel.next_id;
		return 0;
	case REQ_UNREGISTER_AGENT:
		fake_kernel.n_unreg++;
		memcpy(&fake_kernel.last_unreg, arg, sizeof(uint32_t));
		return fake_kernel.unreg_errno ? fail_with(fake_kernel.unreg_errno) : 0;
	default:
		return __real_ioctl(fd, request, arg);
	}
}

/* read: on fake_read.fd, fail with fake_read.err after writing fake_read.hdr (if any). */
static struct {
	int fd;
	int err;
	const void *hdr;
	size_t hdr_len;
	size_t last_count;
} fake_read = { .fd = -1 };

ssize_t __wrap_read(int fd, void *buf, size_t count)
{
	if (fd < 0 || fd != fake_read.fd)
		return __real_read(fd, buf, count);
	fake_read.last_count = count;
	if (fake_read.hdr)
		memcpy(buf, fake_read.hdr, fake_read.hdr_len < count ? fake_read.hdr_len : count);
	errno = fake_read.err;
	return -1;
}

/* write: on fake_write.fd, fail with fake_write.err, or accept short_by bytes less. */
static struct {
	int fd;
	int err;
	size_t short_by;
	size_t last_count;
} fake_write = { .fd = -1 };

ssize_t __wrap_write(int fd, const void *buf, size_t count)
{
	if (fd < 0 || fd != fake_write.fd)
		return __real_write(fd, buf, count);
	fake_write.last_count = count;
	if (fake_write.err) {
		errno = fake_write.err;
		return -1;
	}
	return (ssize_t)(count - fake_write.short_by);
}

/* poll: fail with fake_poll_err when set. */
static int fake_poll_err;

int __wrap_poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	if (fake_poll_err) {
		errno = fake_poll_err;
		return -1;
	}
	return __real_poll(fds, nfds, timeout);
}

static void disarm_fakes(void)
{
	memset(&fake_kernel, 0, sizeof(fake_kernel));
	fake_read.fd = -1;
	fake_read.hdr = NULL;
	fake_write.fd = -1;
	fake_write.err = 0;
	fake_write.short_by = 0;
	fake_poll_err = 0;
}

static int teardown_fakes(void **state)
{
	(void)state;
	disarm_fakes();
	return 0;
}

/* ------------------------------------------------------------------------- */
/* Forked children                                                            */
/* ------------------------------------------------------------------------- */

#define CHECK(cond) do { if (!(cond)) { \
	fprintf(stderr, "CHECK FAILED %s:%d: %s\n", __FILE__, __LINE__, #cond); \
	_exit(1); } } while (0)
#define CHECK_EQ(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); \
	if (a_ != b_) { fprintf(stderr, "CHECK FAILED %s:%d: %s == %lld, expected %s == %lld\n", \
		__FILE__, __LINE__, #a, a_, #b, b_); _exit(1); } } while (0)
/* assert_error() and assert_fails() of a child. */
#define CHECK_ERROR(call, ret, err) do { long long r_; int e_; \
	errno = 0; r_ = (long long)(call); e_ = errno; \
	CHECK_EQ(r_, ret); \
	if (e_ != (err)) { fprintf(stderr, "CHECK FAILED %s:%d: errno after %s is %d (%s), " \
		"expected %d\n", __FILE__, __LINE__, #call, e_, strerror(e_), (int)(err)); \
		_exit(1); } } while (0)
#define CHECK_FAILS(call, neg_errno) CHECK_ERROR(call, neg_errno, -(neg_errno))

/*
 * Run the child case NAME (see child_cases[] by main()) in a fresh process
 * (this program re-executed with "--child NAME", so that nothing selected or
 * cached in this process is inherited), with UMAD_BACKEND set to backend
 * (NULL: unset); returns its stderr in out.  The test fails unless the child
 * exits 0.
 */
static void run_child(const char *name, const char *backend, char *out, size_t outlen)
{
	int pipefd[2], status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;
	char dummy[256], self[4096];

	assert_int_equal(pipe(pipefd), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(pipefd[0]);
		dup2(pipefd[1], 2);
		if (backend)
			setenv("UMAD_BACKEND", backend, 1);
		else
			unsetenv("UMAD_BACKEND");
		/* Our own program by its name (under valgrind /proc/self/exe is valgrind's). */
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n > 0) {
			self[n] = '\0';
			execl(self, "test_api", "--child", name, (char *)NULL);
		}
		fprintf(stderr, "exec /proc/self/exe: %s\n", strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	if (!out) {
		out = dummy;
		outlen = sizeof(dummy);
	}
	while ((n = read(pipefd[0], out + got, outlen - 1 - got)) > 0) {
		got += (size_t)n;
		if (got == outlen - 1)
			break;
	}
	out[got] = '\0';
	while (read(pipefd[0], dummy, sizeof(dummy)) > 0)
		;
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		print_error("child %s stderr:\n%s\n", name, out);
		if (WIFSIGNALED(status))
			fail_msg("child %s killed by signal %d", name, WTERMSIG(status));
		fail_msg("child %s exited with %d", name, WEXITSTATUS(status));
	}
}

/* What a descriptor refers to. */
static const char *fd_target(int fd)
{
	static char buf[PATH_MAX];
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, sizeof(buf) - 1);
	buf[n < 0 ? 0 : n] = '\0';
	return buf;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

/* ------------------------------------------------------------------------- */
/* umad_size, init, backend selection                                          */
/* ------------------------------------------------------------------------- */

/* Must run before any port is opened in this process. */
static void test_size_before_open(void **state)
{
	uint8_t buf[128];

	(void)state;
	assert_int_equal(umad_size(), HDR_OLD);
	assert_ptr_equal(umad_get_mad(buf), buf + HDR_OLD);
	assert_ptr_equal(umad_get_mad_addr(buf), (ib_mad_addr_t *)(buf + 20));
	/* Old-ABI mode: set_pkey is a no-op and get_pkey answers 0. */
	memset(buf, 0xaa, sizeof(buf));
	assert_int_equal(umad_set_pkey(buf, 0x1ff), 0);
	assert_int_equal(buf[56], 0xaa);
	assert_int_equal(umad_get_pkey(buf), 0);
}

static void test_init_done(void **state)
{
	(void)state;
	assert_int_equal(umad_init(), 0);
	assert_int_equal(umad_init(), 0);
	assert_int_equal(umad_done(), 0);
	assert_int_equal(umad_init(), 0);
}

/*
 * A backend that cannot be used (unknown, its module missing or broken, or
 * failing to start): every call that needs it fails with the error
 * umad_init() returned, in errno too (tools print it with %m: it must not
 * read "Success").  EXPECT_ERRNO, when set, is that error's number.
 */
static void child_unusable_backend(void)
{
	struct umad_reg_attr attr = { .mgmt_class = 4, .mgmt_class_version = 1 };
	const char *expected = getenv("EXPECT_ERRNO");
	char cas[4][UMAD_CA_NAME_LEN], path[64];
	uint8_t oui[3] = { 0x00, 0x14, 0x05 };
	struct umad_ca_pair pairs[2], pair;
	uint8_t buf[512];
	__be64 guids[4];
	umad_port_t port;
	umad_ca_t ca;
	int len = 256, e;
	uint32_t id;

	errno = 0;
	e = -umad_init();
	CHECK(e > 0);
	CHECK_EQ(errno, e);
	if (expected)
		CHECK_EQ(e, atoi(expected));
	CHECK_FAILS(umad_init(), -e);
	CHECK_FAILS(umad_get_cas_names(cas, 4), -e);
	errno = 0;
	CHECK(umad_get_ca_device_list() == NULL);
	CHECK_EQ(errno, e);
	CHECK_FAILS(umad_get_ca("mlx5_0", &ca), -e);
	CHECK_FAILS(umad_get_ca(NULL, &ca), -e);
	CHECK_FAILS(umad_get_port("mlx5_0", 1, &port), -e);
	CHECK_FAILS(umad_get_port(NULL, 0, &port), -e);
	CHECK_FAILS(umad_get_ca_portguids("mlx5_0", guids, 4), -e);
	CHECK_FAILS(umad_get_issm_path("mlx5_0", 1, path, sizeof(path)), -e);
	CHECK_FAILS(umad_open_port(NULL, 0), -e);
	CHECK_FAILS(umad_open_port("mlx5_0", 1), -e);
	CHECK_FAILS(umad_open_smi_port("mlx5_0", 1), -e);
	CHECK_FAILS(umad_close_port(3), -e);
	memset(buf, 0, sizeof(buf));
	/* The calls with conventions of their own keep them, errno says why. */
	CHECK_ERROR(umad_send(0, 0, buf, 256, 0, 0), -EIO, e);
	CHECK_FAILS(umad_recv(0, buf, &len, 0), -e);
	CHECK_EQ(len, 256);
	CHECK_ERROR(umad_poll(0, 0), -EIO, e);
	CHECK_ERROR(umad_register(0, 4, 1, 0, NULL), -EPERM, e);
	CHECK_ERROR(umad_register_oui(0, 0x30, 0, oui, NULL), -EPERM, e);
	CHECK_ERROR(umad_register2(0, &attr, &id), e, e);
	CHECK_ERROR(umad_unregister(0, 0), -1, e);
	CHECK_FAILS(umad_get_smi_gsi_pairs(pairs, 2), -e);
	CHECK_FAILS(umad_get_smi_gsi_pair_by_ca_name(NULL, 0, &pair, 0), -e);
	/* What needs no backend still works. */
	CHECK_EQ(umad_done(), 0);
	CHECK_EQ(umad_size(), HDR_OLD);
	CHECK_EQ(umad_get_fd(7), 7);
	CHECK(!strcmp(umad_class_str(3), "SubnAdm"));
}

/*
 * child_unusable_backend() with UMAD_BACKEND=backend and the variables
 * given as NAME, VALUE pairs (NULL-terminated), set for the child only;
 * expected_errno 0: any error will do.  Returns the child's stderr in err.
 */
static void run_unusable(const char *backend, int expected_errno, char *err, size_t errlen, ...)
{
	const char *names[8];
	char number[16];
	size_t n = 0, i;
	va_list ap;

	va_start(ap, errlen);
	while (n < sizeof(names) / sizeof(names[0]) && (names[n] = va_arg(ap, const char *))) {
		setenv(names[n], va_arg(ap, const char *), 1);
		n++;
	}
	va_end(ap);
	snprintf(number, sizeof(number), "%d", expected_errno);
	if (expected_errno)
		setenv("EXPECT_ERRNO", number, 1);
	run_child("unusable_backend", backend, err, errlen);
	unsetenv("EXPECT_ERRNO");
	for (i = 0; i < n; i++)
		unsetenv(names[i]);
}

static void test_backend_nosuch(void **state)
{
	char err[4096];

	(void)state;
	run_unusable("nosuch", ENOENT, err, sizeof(err), NULL);
	/* The message names the bad backend and the available ones. */
	assert_non_null(strstr(err, "nosuch"));
	assert_non_null(strstr(err, "kernel"));
}

/* A module backend whose file is missing, or is no module at all. */
static void test_backend_module_unusable(void **state)
{
	char err[4096], dir[PATH_MAX];

	(void)state;
	snprintf(dir, sizeof(dir), "%s/modules", root);
	FS(sysfs_mkdirs(root, "modules"));
	run_unusable("sim", ENOENT, err, sizeof(err), "UMAD_MODULE_DIR", dir, NULL);
	assert_non_null(strstr(err, "backend 'sim' is not available"));

	FS(sysfs_put(root, "modules/backend-sim.so", "not an ELF object\n"));
	run_unusable("sim", ELIBBAD, err, sizeof(err), "UMAD_MODULE_DIR", dir, NULL);
	assert_non_null(strstr(err, "cannot load backend 'sim'"));
	FS(sysfs_remove(root, "modules"));
}

/* The sim backend loads but refuses to start: its reason is in errno. */
static void test_backend_init_fails(void **state)
{
#ifdef SIM_MODULE_DIR
	char err[4096], topology[PATH_MAX], missing[PATH_MAX];

	(void)state;
	run_unusable("sim", 0, err, sizeof(err), "UMAD_MODULE_DIR", SIM_MODULE_DIR,
		     "UMAD_SIM_HOST", "nosuch", NULL);
	assert_non_null(strstr(err, "UMAD_SIM_HOST=nosuch"));

	snprintf(topology, sizeof(topology), "%s/bad.topo", root);
	FS(sysfs_put(root, "bad.topo", "Switch 4 \"S\"\n[1] \"nowhere\"[1]\n"));
	run_unusable("sim", 0, err, sizeof(err), "UMAD_MODULE_DIR", SIM_MODULE_DIR,
		     "UMAD_SIM_TOPOLOGY", topology, NULL);
	assert_non_null(strstr(err, "bad.topo"));
	FS(sysfs_remove(root, "bad.topo"));

	snprintf(missing, sizeof(missing), "%s/missing.topo", root);
	run_unusable("sim", 0, err, sizeof(err), "UMAD_MODULE_DIR", SIM_MODULE_DIR,
		     "UMAD_SIM_TOPOLOGY", missing, NULL);
	assert_non_null(strstr(err, "missing.topo"));

	/* A shared fabric whose socket is not there. */
	snprintf(missing, sizeof(missing), "%s/no-server/socket", root);
	run_unusable("sim", 0, err, sizeof(err), "UMAD_MODULE_DIR", SIM_MODULE_DIR,
		     "UMAD_SIM_FABRIC", missing, NULL);
#else
	(void)state;
	skip();
#endif
}

/* ------------------------------------------------------------------------- */
/* Bad arguments: an error, never a crash (rdma-core crashes on most)          */
/* ------------------------------------------------------------------------- */

static void child_null_dumps(void)
{
	umad_addr_dump(NULL);
	umad_dump(NULL);
}

static void test_null_arguments(void **state)
{
	char cas[2][UMAD_CA_NAME_LEN], path[64];
	struct umad_reg_attr attr;
	ib_mad_addr_t addr;
	uint8_t buf[512];
	uint32_t id;
	int len, r;

	(void)state;
	memset(&addr, 0, sizeof(addr));
	memset(&attr, 0, sizeof(attr));
	attr.mgmt_class = 4;

	assert_fails(umad_get_cas_names(NULL, 4), -EINVAL);
	assert_fails(umad_get_cas_names(cas, -1), -EINVAL);
	assert_error(umad_sort_ca_device_list(NULL, 0), EINVAL, EINVAL);
	assert_fails(umad_get_ca("mlx5_0", NULL), -EINVAL);
	assert_fails(umad_get_ca(NULL, NULL), -EINVAL);
	assert_fails(umad_get_port("mlx5_0", 1, NULL), -EINVAL);
	assert_fails(umad_get_port(NULL, 0, NULL), -EINVAL);
	assert_fails(umad_release_ca(NULL), -ENODEV);
	assert_fails(umad_release_port(NULL), -ENODEV);
	/* rdma-core dereferenced NULL in its trace message when debugging was on. */
	umad_debug(1);
	assert_fails(umad_release_ca(NULL), -ENODEV);
	assert_fails(umad_release_port(NULL), -ENODEV);
	umad_debug(0);
	assert_fails(umad_get_issm_path("mlx5_0", 1, NULL, 64), -EINVAL);
	assert_fails(umad_get_issm_path("mlx5_0", 1, path, 0), -EINVAL);
	assert_fails(umad_get_issm_path("mlx5_0", 1, path, -5), -EINVAL);

	assert_fails(umad_set_addr(NULL, 1, 1, 0, 0), -EINVAL);
	assert_fails(umad_set_addr_net(NULL, 1, 1, 0, 0), -EINVAL);
	assert_fails(umad_set_grh(NULL, &addr), -EINVAL);
	assert_fails(umad_set_grh(NULL, NULL), -EINVAL);
	assert_fails(umad_set_pkey(NULL, 1), -EINVAL);
	assert_fails(umad_get_pkey(NULL), -EINVAL);
	assert_fails(umad_status(NULL), -EINVAL);
	errno = 0;
	assert_null(umad_get_mad_addr(NULL));
	assert_int_equal(errno, EINVAL);

	errno = 0;
	r = umad_send(1, 1, NULL, 256, 0, 0);
	assert_true(r == -EINVAL || r == -EIO);
	assert_int_equal(errno, EINVAL);
	len = 256;
	errno = 0;
	assert_int_equal(umad_recv(0, NULL, &len, 0), -EINVAL);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(len, 256);
	errno = 0;
	assert_int_equal(umad_recv(0, buf, NULL, 0), -EINVAL);
	assert_int_equal(errno, EINVAL);
	len = -1;
	assert_fails(umad_recv(0, buf, &len, 0), -EINVAL);
	assert_fails(umad_send(1, 1, buf, -1, 0, 0), -EINVAL);

	assert_fails(umad_register_oui(-1, 0x30, 0, NULL, NULL), -EINVAL);
	assert_error(umad_register2(-1, NULL, &id), EINVAL, EINVAL);
	assert_error(umad_register2(-1, &attr, NULL), EINVAL, EINVAL);

	assert_fails(umad_get_smi_gsi_pairs(NULL, 4), -EINVAL);
	assert_true(umad_get_smi_gsi_pairs(NULL, 0) >= 0);
	assert_error(umad_get_smi_gsi_pair_by_ca_name(NULL, 0, NULL, 0), -1, EINVAL);
	assert_error(umad_get_smi_gsi_pair_by_ca_name("mlx5_0", 1, NULL, 1), -1, EINVAL);

	umad_free_ca_device_list(NULL);
	run_child("null_dumps", NULL, NULL, 0);
}

/* ------------------------------------------------------------------------- */
/* Device enumeration                                                         */
/* ------------------------------------------------------------------------- */

static void test_cas_names(void **state)
{
	char cas[8][UMAD_CA_NAME_LEN];

	(void)state;
	memset(cas, 0, sizeof(cas));
	assert_int_equal(umad_get_cas_names(cas, 8), 2);	/* rxe0 (RNIC) is not listed */
	assert_string_equal(cas[0], "mlx5_0");
	assert_string_equal(cas[1], "mlx5_1");

	memset(cas, 0, sizeof(cas));
	assert_int_equal(umad_get_cas_names(cas, 1), 1);
	assert_string_equal(cas[0], "mlx5_0");
	assert_int_equal(cas[1][0], 0);
	assert_int_equal(umad_get_cas_names(cas, 0), 0);

	/* A name of 20 characters does not fit umad_ca_t and is skipped. */
	fs_ca("abcdefghijklmnopqrst", 1, 0x0002c90300004000ULL);
	fs_port("abcdefghijklmnopqrst", 1, &ACTIVE_CA1);
	fs_ca("abcdefghijklmnopqrs", 3, 0x0002c90300003000ULL);
	fs_port("abcdefghijklmnopqrs", 1, &ACTIVE_CA1);
	memset(cas, 0, sizeof(cas));
	assert_int_equal(umad_get_cas_names(cas, 8), 3);
	assert_string_equal(cas[0], "abcdefghijklmnopqrs");
	assert_string_equal(cas[1], "mlx5_0");
	assert_string_equal(cas[2], "mlx5_1");
}

static void test_cas_names_no_class(void **state)
{
	char cas[4][UMAD_CA_NAME_LEN];

	(void)state;
	/* No /sys/class/infiniband at all: rdma-core's "mthca0". */
	memset(cas, 0, sizeof(cas));
	assert_int_equal(umad_get_cas_names(cas, 4), 1);
	assert_string_equal(cas[0], "mthca0");

	/* An empty class: nothing. */
	fs_class();
	memset(cas, 0, sizeof(cas));
	assert_int_equal(umad_get_cas_names(cas, 4), 0);
	assert_int_equal(cas[0][0], 0);
}

/* A device class that cannot be read (a file where the directory should be): its errno. */
static void test_class_unreadable(void **state)
{
	char cas[4][UMAD_CA_NAME_LEN], dir[PATH_MAX];
	struct umad_ca_pair pairs[2], pair;
	umad_ca_t ca;

	(void)state;
	FS(sysfs_ca_path(dir, sizeof(dir), NULL, NULL, NULL));
	FS(sysfs_put(root, dir, "not a directory\n"));
	assert_fails(umad_get_cas_names(cas, 4), -ENOTDIR);
	errno = 0;
	assert_null(umad_get_ca_device_list());
	assert_int_equal(errno, ENOTDIR);
	assert_fails(umad_get_smi_gsi_pairs(pairs, 2), -ENOTDIR);
	assert_fails(umad_get_smi_gsi_pair_by_ca_name(NULL, 0, &pair, 0), -ENOTDIR);
	/* No CA to resolve. */
	assert_fails(umad_get_ca(NULL, &ca), -ENODEV);
}

static int list_has(struct umad_device_node *head, const char *name)
{
	for (; head; head = head->next)
		if (!strcmp(head->ca_name, name))
			return 1;
	return 0;
}

static size_t list_len(struct umad_device_node *head)
{
	size_t n = 0;

	for (; head; head = head->next)
		n++;
	return n;
}

static void test_device_list(void **state)
{
	struct umad_device_node *head, *saved;

	(void)state;
	errno = EBUSY;
	head = umad_get_ca_device_list();
	assert_non_null(head);
	assert_int_equal(errno, 0);
	assert_int_equal(list_len(head), 2);
	assert_true(list_has(head, "mlx5_0"));
	assert_true(list_has(head, "mlx5_1"));
	assert_false(list_has(head, "rxe0"));

	/* Size mismatches: a positive EINVAL (in errno too), the list untouched. */
	saved = head;
	assert_error(umad_sort_ca_device_list(&head, 3), EINVAL, EINVAL);
	assert_ptr_equal(head, saved);
	/* size < 2: nothing to do. */
	assert_int_equal(umad_sort_ca_device_list(&head, 1), 0);
	assert_ptr_equal(head, saved);

	assert_int_equal(umad_sort_ca_device_list(&head, 0), 0);
	assert_string_equal(head->ca_name, "mlx5_0");
	assert_string_equal(head->next->ca_name, "mlx5_1");
	assert_null(head->next->next);
	assert_int_equal(umad_sort_ca_device_list(&head, 2), 0);
	assert_string_equal(head->ca_name, "mlx5_0");
	umad_free_ca_device_list(head);
	umad_free_ca_device_list(NULL);
}

static void test_device_list_empty(void **state)
{
	struct umad_device_node *head = NULL;

	(void)state;
	/* Missing class: NULL with errno 0 (ENOENT is cleared). */
	errno = EBUSY;
	assert_null(umad_get_ca_device_list());
	assert_int_equal(errno, 0);

	fs_class();
	errno = EBUSY;
	assert_null(umad_get_ca_device_list());
	assert_int_equal(errno, 0);

	/* Sorting an empty list. */
	assert_int_equal(umad_sort_ca_device_list(&head, 0), 0);
	assert_null(head);
}

/* ------------------------------------------------------------------------- */
/* CAs and ports                                                               */
/* ------------------------------------------------------------------------- */

static void check_port_1(const umad_port_t *p)
{
	assert_string_equal(p->ca_name, "mlx5_0");
	assert_int_equal(p->portnum, 1);
	assert_int_equal(p->base_lid, 1);
	assert_int_equal(p->lmc, 0);
	assert_int_equal(p->sm_lid, 1);
	assert_int_equal(p->sm_sl, 0);
	assert_int_equal(p->state, 1);
	assert_int_equal(p->phys_state, 2);
	assert_int_equal(p->rate, 100);
	/* capmask, gid_prefix and port_guid are big-endian, the rest host order. */
	assert_int_equal(p->capmask, htobe32(0x2651e84a));
	assert_true(p->gid_prefix == htobe64(0xfe80000000000000ULL));
	assert_true(p->port_guid == htobe64(0x0c42a10300651231ULL));
	assert_int_equal(p->pkeys_size, 4);
	assert_non_null(p->pkeys);
	assert_int_equal(p->pkeys[0], 0xffff);
	assert_int_equal(p->pkeys[1], 0x8001);
	assert_int_equal(p->pkeys[2], 0);
	assert_string_equal(p->link_layer, "InfiniBand");
}

static void test_get_ca(void **state)
{
	umad_ca_t ca;
	int i;

	(void)state;
	memset(&ca, 0x5a, sizeof(ca));
	assert_int_equal(umad_get_ca("mlx5_0", &ca), 0);
	assert_string_equal(ca.ca_name, "mlx5_0");
	assert_int_equal(ca.node_type, 1);
	assert_int_equal(ca.numports, 2);
	assert_string_equal(ca.fw_ver, "20.31.1014");
	assert_string_equal(ca.ca_type, "MT4123");
	assert_string_equal(ca.hw_ver, "0x0");
	assert_true(ca.node_guid == htobe64(0x0c42a10300651230ULL));
	assert_true(ca.system_guid == htobe64(0x0c42a10300651230ULL));
	assert_null(ca.ports[0]);
	assert_non_null(ca.ports[1]);
	assert_non_null(ca.ports[2]);
	for (i = 3; i < UMAD_CA_MAX_PORTS; i++)
		assert_null(ca.ports[i]);
	check_port_1(ca.ports[1]);
	assert_int_equal(ca.ports[2]->state, 4);
	assert_int_equal(ca.ports[2]->base_lid, 0x11);
	assert_int_equal(umad_release_ca(&ca), 0);

	/* No name: the best CA (the first with an active port). */
	assert_int_equal(umad_get_ca(NULL, &ca), 0);
	assert_true(!strcmp(ca.ca_name, "mlx5_0") || !strcmp(ca.ca_name, "mlx5_1"));
	assert_int_equal(umad_release_ca(&ca), 0);

	/* Not an InfiniBand device, but readable: get_ca does not filter. */
	assert_int_equal(umad_get_ca("rxe0", &ca), 0);
	assert_int_equal(ca.node_type, 4);
	assert_string_equal(ca.ports[1]->link_layer, "Ethernet");
	assert_int_equal(umad_release_ca(&ca), 0);

	/* Unknown names: the -errno of the first sysfs read. */
	assert_fails(umad_get_ca("nosuch", &ca), -ENOENT);
}

static void test_get_ca_broken(void **state)
{
	umad_ca_t ca;

	(void)state;
	/* Optional files missing: "" strings, link layer "IB". */
	fs_remove_ca("mlx5_0", SYS_CA_FW_VERS);
	fs_remove_ca("mlx5_0", SYS_CA_HW_VERS);
	fs_remove_ca("mlx5_0", SYS_CA_TYPE);
	fs_remove_port("mlx5_0", 1, SYS_PORT_LINK_LAYER);
	memset(&ca, 0x5a, sizeof(ca));
	assert_int_equal(umad_get_ca("mlx5_0", &ca), 0);
	assert_string_equal(ca.fw_ver, "");
	assert_string_equal(ca.hw_ver, "");
	assert_string_equal(ca.ca_type, "");
	assert_string_equal(ca.ports[1]->link_layer, "IB");
	assert_int_equal(umad_release_ca(&ca), 0);

	/* A mandatory port file missing: the whole CA fails with -EIO. */
	fs_remove_port("mlx5_0", 2, SYS_PORT_RATE);
	assert_fails(umad_get_ca("mlx5_0", &ca), -EIO);
	fs_put_port("mlx5_0", 2, SYS_PORT_RATE, "100 Gb/sec (4X EDR)\n");

	/* No P_Keys (the directory stays, empty): -EIO. */
	fs_remove_port("mlx5_0", 2, SYSFS_PKEYS_DIR "/0");
	fs_remove_port("mlx5_0", 2, SYSFS_PKEYS_DIR "/1");
	fs_remove_port("mlx5_0", 2, SYSFS_PKEYS_DIR "/2");
	fs_remove_port("mlx5_0", 2, SYSFS_PKEYS_DIR "/3");
	assert_fails(umad_get_ca("mlx5_0", &ca), -EIO);

	/* A port numbered 10 makes the CA unusable. */
	fs_port("mlx5_1", 10, &ACTIVE_CA1);
	assert_fails(umad_get_ca("mlx5_1", &ca), -EIO);
	fs_remove_port("mlx5_1", 10, NULL);
	assert_int_equal(umad_get_ca("mlx5_1", &ca), 0);
	assert_int_equal(umad_release_ca(&ca), 0);

	/* No ports directory: -ENOENT. */
	fs_remove_ca("mlx5_1", SYS_CA_PORTS_DIR);
	assert_fails(umad_get_ca("mlx5_1", &ca), -ENOENT);

	/* A mandatory CA file missing: its -errno. */
	fs_remove_ca("rxe0", SYS_CA_NODE_GUID);
	assert_fails(umad_get_ca("rxe0", &ca), -ENOENT);
}

static void test_release(void **state)
{
	umad_ca_t ca;
	umad_port_t port;

	(void)state;
	assert_int_equal(umad_get_ca("mlx5_1", &ca), 0);
	assert_int_equal(umad_release_ca(&ca), 0);
	assert_null(ca.ports[1]);
	assert_int_equal(umad_get_port("mlx5_1", 1, &port), 0);
	assert_int_equal(umad_release_port(&port), 0);
}

static void test_get_port(void **state)
{
	umad_port_t port;

	(void)state;
	memset(&port, 0x5a, sizeof(port));
	assert_int_equal(umad_get_port("mlx5_0", 1, &port), 0);
	check_port_1(&port);
	assert_int_equal(umad_release_port(&port), 0);

	/* Port 0 of a CA: its best port (the active one). */
	assert_int_equal(umad_get_port("mlx5_0", 0, &port), 0);
	assert_int_equal(port.portnum, 2);
	assert_int_equal(port.state, 4);
	assert_int_equal(umad_release_port(&port), 0);

	/* No CA, no port: the first active port of the host. */
	assert_int_equal(umad_get_port(NULL, 0, &port), 0);
	assert_int_equal(port.state, 4);
	assert_int_equal(umad_release_port(&port), 0);

	/* Missing ports and CAs. */
	assert_fails(umad_get_port("mlx5_0", 5, &port), -EIO);
	assert_fails(umad_get_port("mlx5_0", -1, &port), -EIO);
	assert_fails(umad_get_port("nosuch", 1, &port), -EIO);
	assert_fails(umad_get_port("nosuch", 0, &port), -ENODEV);
}

static void test_get_port_no_devices(void **state)
{
	char path[PATH_MAX];
	umad_port_t port;
	__be64 guids[4];
	umad_ca_t ca;

	(void)state;
	assert_fails(umad_get_port(NULL, 0, &port), -ENODEV);
	assert_fails(umad_get_ca_portguids(NULL, guids, 4), -ENODEV);
	assert_fails(umad_get_ca(NULL, &ca), -ENODEV);
	assert_fails(umad_get_issm_path(NULL, 0, path, sizeof(path)), -ENODEV);
}

static void test_portguids(void **state)
{
	__be64 g[UMAD_CA_MAX_PORTS + 1];

	(void)state;
	/* A NULL buffer answers 0, not the count. */
	assert_int_equal(umad_get_ca_portguids("mlx5_0", NULL, 0), 0);
	assert_int_equal(umad_get_ca_portguids("mlx5_0", NULL, 8), 0);
	/* Room for numports + 1 entries is needed. */
	assert_fails(umad_get_ca_portguids("mlx5_0", g, 2), -ENOMEM);
	assert_fails(umad_get_ca_portguids("mlx5_0", g, 0), -ENOMEM);

	memset(g, 0xee, sizeof(g));
	assert_int_equal(umad_get_ca_portguids("mlx5_0", g, UMAD_CA_MAX_PORTS + 1), 3);
	assert_true(g[0] == 0);
	assert_true(g[1] == htobe64(0x0c42a10300651231ULL));
	assert_true(g[2] == htobe64(0x0c42a10300651232ULL));
	assert_true(g[3] == (__be64)0xeeeeeeeeeeeeeeeeULL);

	assert_int_equal(umad_get_ca_portguids(NULL, g, 4) > 0, 1);
	/* An unreadable named CA: -1 (rdma-core's value), errno from reading it. */
	assert_error(umad_get_ca_portguids("nosuch", g, 4), -1, ENOENT);
}

static void test_issm_path(void **state)
{
	char path[PATH_MAX], expected[PATH_MAX];

	(void)state;
	assert_int_equal(umad_get_issm_path("mlx5_0", 2, path, sizeof(path)), 0);
	snprintf(expected, sizeof(expected), "%s/issm1", devdir);
	assert_string_equal(path, expected);
	assert_int_equal(umad_get_issm_path("mlx5_1", 0, path, sizeof(path)), 0);
	snprintf(expected, sizeof(expected), "%s/issm2", devdir);
	assert_string_equal(path, expected);
	assert_int_equal(umad_get_issm_path(NULL, 0, path, sizeof(path)), 0);
	assert_true(ends_with(path, "/issm1") || ends_with(path, "/issm2"));

	/* Truncated to the buffer, always terminated. */
	memset(path, 'x', sizeof(path));
	assert_int_equal(umad_get_issm_path("mlx5_0", 1, path, 5), 0);
	assert_int_equal(strlen(path), 4);

	/* No umad port: -EINVAL; CA not resolvable: -ENODEV. */
	assert_fails(umad_get_issm_path("mlx5_0", 5, path, sizeof(path)), -EINVAL);
	assert_fails(umad_get_issm_path("rxe0", 1, path, sizeof(path)), -EINVAL);
	assert_fails(umad_get_issm_path("nosuch", 0, path, sizeof(path)), -ENODEV);
}

/* ------------------------------------------------------------------------- */
/* Opening ports                                                              */
/* ------------------------------------------------------------------------- */

static void test_open_close(void **state)
{
	char expected[PATH_MAX];
	int fd, fl;

	(void)state;
	fd = umad_open_port("mlx5_0", 2);
	assert_true(fd >= 0);
	snprintf(expected, sizeof(expected), "%s/umad1", devdir);
	assert_string_equal(fd_target(fd), expected);
	fl = fcntl(fd, F_GETFL);
	assert_int_equal(fl & O_ACCMODE, O_RDWR);
	assert_true(fl & O_NONBLOCK);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	/* ABI 5 and a device that refuses ENABLE_PKEY: the old 56-byte header. */
	assert_int_equal(umad_size(), HDR_OLD);
	assert_int_equal(umad_get_fd(fd), fd);
	assert_int_equal(umad_close_port(fd), 0);
	/* A descriptor that is not open: -EBADF (rdma-core: 0). */
	assert_fails(umad_close_port(fd), -EBADF);
	assert_fails(umad_close_port(-1), -EBADF);

	/* Port 0: the best port of the CA; no CA: the best of the host. */
	fd = umad_open_port("mlx5_0", 0);
	assert_true(fd >= 0);
	assert_true(ends_with(fd_target(fd), "/umad1"));
	assert_int_equal(umad_close_port(fd), 0);
	fd = umad_open_port(NULL, 0);
	assert_true(fd >= 0);
	assert_true(ends_with(fd_target(fd), "/umad1") || ends_with(fd_target(fd), "/umad2"));
	assert_int_equal(umad_close_port(fd), 0);
	/* A named port is not checked: the DOWN port opens. */
	fd = umad_open_port("mlx5_0", 1);
	assert_true(fd >= 0);
	assert_true(ends_with(fd_target(fd), "/umad0"));
	assert_int_equal(umad_close_port(fd), 0);

	assert_fails(umad_open_port("mlx5_0", 5), -EINVAL);
	assert_fails(umad_open_port("mlx5_0", -1), -EINVAL);
	assert_fails(umad_open_port("rxe0", 1), -EINVAL);
	assert_fails(umad_open_port("nosuch", 0), -ENODEV);
	assert_fails(umad_open_port("nosuch", 1), -EINVAL);

	/* The device node cannot be opened: -EIO with open's errno. */
	snprintf(expected, sizeof(expected), "%s/umad2", devdir);
	remove(expected);
	errno = 0;
	assert_int_equal(umad_open_port("mlx5_1", 1), -EIO);
	assert_int_equal(errno, ENOENT);
}

static void test_open_smi(void **state)
{
	int fd;

	(void)state;
	/* Planarized: mlx5_1 is the GSI plane (IsSMDisabled). */
	assert_fails(umad_open_smi_port("mlx5_1", 0), -ENODEV);
	fd = umad_open_smi_port("mlx5_1", 1);	/* explicit: not checked */
	assert_true(fd >= 0);
	assert_true(ends_with(fd_target(fd), "/umad1"));
	assert_int_equal(umad_close_port(fd), 0);
	fd = umad_open_smi_port(NULL, 0);
	assert_true(fd >= 0);
	assert_true(ends_with(fd_target(fd), "/umad0"));
	assert_int_equal(umad_close_port(fd), 0);
	fd = umad_open_port("mlx5_1", 0);	/* no SMI requirement */
	assert_true(fd >= 0);
	assert_true(ends_with(fd_target(fd), "/umad1"));
	assert_int_equal(umad_close_port(fd), 0);
}

/* ABI 6: the new header without asking the device. */
static void child_abi6(void)
{
	uint8_t buf[128];
	int fd;

	fs_abi(6);
	fd = umad_open_port("mlx5_0", 2);
	CHECK(fd >= 0);
	CHECK_EQ(umad_size(), HDR_NEW);
	CHECK(umad_get_mad(buf) == buf + HDR_NEW);
	memset(buf, 0xaa, sizeof(buf));
	CHECK_EQ(umad_set_pkey(buf, 0x1ff), 0);
	CHECK_EQ(((struct ib_user_mad *)buf)->addr.pkey_index, 0x1ff);
	CHECK_EQ(umad_get_pkey(buf), 0x1ff);
	CHECK_EQ(buf[58], 0xaa);	/* reserved bytes untouched */
	CHECK_EQ(umad_close_port(fd), 0);
	/* Still 64 after close: the last open decides. */
	CHECK_EQ(umad_size(), HDR_NEW);
}

/* ABI 5: the header size follows ENABLE_PKEY, and the last open wins. */
static void child_abi5_enable_pkey(void)
{
	uint8_t buf[128];
	int fd1, fd2;

	fs_abi(5);
	fake_kernel_arm();
	fake_kernel.enable_pkey_errno = 0;
	fd1 = umad_open_port("mlx5_0", 2);
	CHECK(fd1 >= 0);
	CHECK(fake_kernel.n_enable_pkey >= 1);
	CHECK_EQ(umad_size(), HDR_NEW);
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(umad_set_pkey(buf, 7), 0);
	CHECK_EQ(umad_get_pkey(buf), 7);

	fake_kernel.enable_pkey_errno = ENOTTY;
	fd2 = umad_open_port("mlx5_1", 1);
	CHECK(fd2 >= 0);
	CHECK_EQ(umad_size(), HDR_OLD);
	CHECK(umad_get_mad(buf) == buf + HDR_OLD);
	CHECK_EQ(umad_get_pkey(buf), 0);
	memset(buf, 0xaa, sizeof(buf));
	CHECK_EQ(umad_set_pkey(buf, 7), 0);
	CHECK_EQ(buf[56], 0xaa);
	CHECK_EQ(buf[57], 0xaa);
	CHECK_EQ(umad_close_port(fd1), 0);
	CHECK_EQ(umad_close_port(fd2), 0);
	disarm_fakes();
}

/* No abi_version: -EOPNOTSUPP and rdma-core's warning, printed once. */
static void child_abi_missing(void)
{
	char cas[4][UMAD_CA_NAME_LEN];
	umad_ca_t ca;

	fs_no_abi();
	CHECK_FAILS(umad_open_port("mlx5_0", 2), -EOPNOTSUPP);
	CHECK_FAILS(umad_open_port(NULL, 0), -EOPNOTSUPP);
	CHECK_FAILS(umad_open_smi_port("mlx5_0", 2), -EOPNOTSUPP);
	CHECK_FAILS(umad_open_port("nosuch", 0), -EOPNOTSUPP);
	/* Discovery does not need ib_umad. */
	CHECK_EQ(umad_get_cas_names(cas, 4), 2);
	CHECK_EQ(umad_get_ca("mlx5_0", &ca), 0);
	CHECK_EQ(umad_release_ca(&ca), 0);
	CHECK_EQ(umad_size(), HDR_OLD);
}

static void child_abi_old(void)
{
	fs_abi(4);
	CHECK_FAILS(umad_open_port("mlx5_0", 2), -EOPNOTSUPP);
}

static void test_open_abi(void **state)
{
	char err[4096];
	const char *first;

	(void)state;
	run_child("abi6", NULL, NULL, 0);
	fs_standard();
	run_child("abi5_enable_pkey", NULL, NULL, 0);
	fs_standard();
	run_child("abi_missing", NULL, err, sizeof(err));
	first = strstr(err, "can't read ABI version");
	assert_non_null(first);
	assert_non_null(strstr(err, "ibwarn: ["));
	assert_null(strstr(first + 1, "can't read ABI version"));
	fs_standard();
	run_child("abi_old", NULL, NULL, 0);
}

/* ------------------------------------------------------------------------- */
/* The umad buffer                                                            */
/* ------------------------------------------------------------------------- */

static void test_buffer(void **state)
{
	uint8_t buf[256], before[256];
	struct ib_user_mad *m = (struct ib_user_mad *)buf;
	ib_mad_addr_t addr;
	int i;

	(void)state;
	/* set_addr: network order for lid, qpn, qkey; nothing else touched. */
	memset(buf, 0xaa, sizeof(buf));
	memcpy(before, buf, sizeof(buf));
	assert_int_equal(umad_set_addr(buf, 0x1234, 0x10, 5, (int)0x80010000), 0);
	assert_int_equal(m->addr.lid, htobe16(0x1234));
	assert_int_equal(m->addr.qpn, htobe32(0x10));
	assert_int_equal(m->addr.qkey, htobe32(0x80010000));
	assert_int_equal(m->addr.sl, 5);
	assert_memory_equal(buf, before, 20);
	assert_int_equal(m->addr.path_bits, 0xaa);
	assert_memory_equal(buf + 31, before + 31, sizeof(buf) - 31);

	memset(buf, 0xaa, sizeof(buf));
	assert_int_equal(umad_set_addr_net(buf, htobe16(0x1234), htobe32(0x10), 300,
					   htobe32(0x80010000)), 0);
	assert_int_equal(m->addr.lid, htobe16(0x1234));
	assert_int_equal(m->addr.qpn, htobe32(0x10));
	assert_int_equal(m->addr.qkey, htobe32(0x80010000));
	assert_int_equal(m->addr.sl, 300 & 0xff);

	/* set_grh: gid, host-order flow label to network order, hop limit, tclass; not gid_index. */
	memset(&addr, 0x55, sizeof(addr));
	for (i = 0; i < 16; i++)
		addr.gid[i] = (uint8_t)(0xf0 + i);
	addr.flow_label = 0x12345;
	addr.hop_limit = 63;
	addr.traffic_class = 7;
	addr.gid_index = 9;
	memset(buf, 0xaa, sizeof(buf));
	assert_int_equal(umad_set_grh(buf, &addr), 0);
	assert_int_equal(m->addr.grh_present, 1);
	assert_memory_equal(m->addr.gid, addr.gid, 16);
	assert_int_equal(m->addr.flow_label, htobe32(0x12345));
	assert_int_equal(m->addr.hop_limit, 63);
	assert_int_equal(m->addr.traffic_class, 7);
	assert_int_equal(m->addr.gid_index, 0xaa);
	assert_int_equal(umad_set_grh(buf, NULL), 0);
	assert_int_equal(m->addr.grh_present, 0);
	assert_int_equal(m->addr.hop_limit, 63);

	/* The inline big-endian variant. */
	addr.flow_label = htobe32(0x54321);
	assert_int_equal(umad_set_grh_net(buf, &addr), 0);
	assert_int_equal(m->addr.grh_present, 1);
	assert_int_equal(m->addr.flow_label, htobe32(0x54321));

	m->status = 110;
	assert_int_equal(umad_status(buf), 110);
	assert_ptr_equal(umad_get_mad_addr(buf), &m->addr);
	assert_int_equal(umad_get_fd(42), 42);
	assert_int_equal(umad_get_fd(-1), -1);

	/* The inline allocators. */
	{
		void *p = umad_alloc(2, umad_size() + 256);

		assert_non_null(p);
		assert_int_equal(((uint8_t *)p)[0], 0);
		umad_free(p);
	}
}

/* ------------------------------------------------------------------------- */
/* I/O                                                                        */
/* ------------------------------------------------------------------------- */

static void test_send(void **state)
{
	uint8_t buf[1024], raw[1024];
	struct ib_user_mad *m = (struct ib_user_mad *)buf, *w = (struct ib_user_mad *)raw;
	size_t hdr = umad_size();
	int p[2];

	(void)state;
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);

	memset(raw, 0, sizeof(raw));
	memset(buf, 0x11, sizeof(buf));
	errno = 0;
	assert_int_equal(umad_send(-1, 1, buf, 256, 0, 0), -EIO);
	assert_int_equal(errno, EBADF);
	errno = 0;
	assert_int_equal(umad_send(p[0], 1, buf, 256, 0, 0), -EIO);	/* the read end */
	assert_int_equal(errno, EBADF);

	/* Success: header fields set, hdr + length bytes written, errno cleared. */
	memset(buf, 0x11, sizeof(buf));
	m->length = 0x77;
	errno = EBUSY;
	assert_int_equal(umad_send(p[1], 5, buf, 256, 100, 3), 0);
	assert_int_equal(errno, 0);
	assert_int_equal(m->agent_id, 5);
	assert_int_equal(m->timeout_ms, 100);
	assert_int_equal(m->retries, 3);
	assert_int_equal(m->length, 0x77);
	assert_int_equal(read(p[0], raw, sizeof(raw)), (ssize_t)(hdr + 256));
	assert_int_equal(w->agent_id, 5);
	assert_int_equal(w->timeout_ms, 100);
	assert_int_equal(w->retries, 3);
	assert_memory_equal(raw + hdr, buf + hdr, 256);

	/* Kernel errors (unregistered agent: EIO; bad length: EINVAL): -EIO with errno. */
	fake_write.fd = p[1];
	fake_write.err = EIO;
	errno = 0;
	assert_int_equal(umad_send(p[1], 31, buf, 256, 0, 0), -EIO);
	assert_int_equal(errno, EIO);
	fake_write.err = EINVAL;
	assert_int_equal(umad_send(p[1], 40, buf, 10, 0, 0), -EIO);
	assert_int_equal(errno, EINVAL);
	/* A short write: -EIO, errno EIO. */
	fake_write.err = 0;
	fake_write.short_by = 1;
	errno = 0;
	assert_int_equal(umad_send(p[1], 1, buf, 256, 0, 0), -EIO);
	assert_int_equal(errno, EIO);
	assert_int_equal(fake_write.last_count, hdr + 256);
	disarm_fakes();

	/* A full pipe: EAGAIN passed through in errno. */
	while (write(p[1], raw, sizeof(raw)) > 0)
		;
	errno = 0;
	assert_int_equal(umad_send(p[1], 1, buf, 256, 0, 0), -EIO);
	assert_int_equal(errno, EAGAIN);
	close(p[0]);
	close(p[1]);
}

static void test_send_debug_dump(void **state)
{
	uint8_t buf[512];
	int p[2];

	(void)state;
	/* Level > 1 dumps each sent umad; this must not disturb the send. */
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	memset(buf, 0, sizeof(buf));
	umad_debug(2);
	assert_int_equal(umad_send(p[1], 2, buf, 256, 10, 1), 0);
	umad_debug(0);
	close(p[0]);
	close(p[1]);
}

static void test_recv(void **state)
{
	uint8_t buf[1024], raw[1024];
	struct ib_user_mad *m = (struct ib_user_mad *)buf, *w = (struct ib_user_mad *)raw;
	size_t hdr = umad_size();
	int p[2], len, r;

	(void)state;
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);

	/* Nothing queued: -EAGAIN, *length unchanged (rdma-core overwrote it from m->length). */
	memset(buf, 0, sizeof(buf));
	m->length = 999;
	len = 256;
	errno = 0;
	assert_int_equal(umad_recv(p[0], buf, &len, 0), -EAGAIN);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(len, 256);
	/* Timeout: -ETIMEDOUT with errno ETIMEDOUT, *length unchanged. */
	errno = 0;
	assert_int_equal(umad_recv(p[0], buf, &len, 10), -ETIMEDOUT);
	assert_int_equal(errno, ETIMEDOUT);
	assert_int_equal(len, 256);
	/* A bad descriptor: read's errno, *length unchanged. */
	errno = 0;
	assert_int_equal(umad_recv(-1, buf, &len, 0), -EBADF);
	assert_int_equal(errno, EBADF);
	assert_int_equal(len, 256);
	/* poll() ignores negative descriptors: a timeout. */
	assert_fails(umad_recv(-1, buf, &len, 10), -ETIMEDOUT);
	assert_int_equal(len, 256);

	/* A whole message: the agent id, *length = bytes after the header. */
	memset(raw, 0x3c, sizeof(raw));
	w->agent_id = 7;
	w->status = 0;
	w->length = (uint32_t)(hdr + 256);
	assert_int_equal(write(p[1], raw, hdr + 256), (ssize_t)(hdr + 256));
	memset(buf, 0, sizeof(buf));
	len = 256;
	errno = 0;
	assert_int_equal(umad_recv(p[0], buf, &len, 100), 7);
	assert_int_equal(len, 256);
	assert_memory_equal(buf, raw, hdr + 256);
	/* A short one. */
	w->agent_id = 3;
	assert_int_equal(write(p[1], raw, hdr + 100), (ssize_t)(hdr + 100));
	len = 256;
	assert_int_equal(umad_recv(p[0], buf, &len, -1), 3);
	assert_int_equal(len, 100);
	/* Only a header. */
	w->agent_id = 4;
	assert_int_equal(write(p[1], raw, hdr), (ssize_t)hdr);
	len = 0;
	assert_int_equal(umad_recv(p[0], buf, &len, 0), 4);
	assert_int_equal(len, 0);

	/* ENOSPC (RMPP message too big): *length = the length the message needs. */
	memset(raw, 0, sizeof(raw));
	w->agent_id = 9;
	w->length = (uint32_t)(hdr + 1000);
	fake_read.fd = p[0];
	fake_read.err = ENOSPC;
	fake_read.hdr = raw;
	fake_read.hdr_len = hdr;
	memset(buf, 0, sizeof(buf));
	len = 256;
	errno = 0;
	assert_int_equal(umad_recv(p[0], buf, &len, 0), -ENOSPC);
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(len, 1000);
	assert_int_equal(fake_read.last_count, hdr + 256);
	/* EINVAL (buffer smaller than one segment): nothing copied, *length unchanged. */
	fake_read.err = EINVAL;
	fake_read.hdr = NULL;
	len = 100;
	errno = 0;
	assert_int_equal(umad_recv(p[0], buf, &len, 0), -EINVAL);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(len, 100);
	/* EIO (device gone). */
	fake_read.err = EIO;
	len = 256;
	assert_fails(umad_recv(p[0], buf, &len, 0), -EIO);
	assert_int_equal(len, 256);
	disarm_fakes();

	/* A poll error: -EIO with poll's errno. */
	fake_poll_err = EINTR;
	errno = 0;
	r = umad_recv(p[0], buf, &len, 10);
	disarm_fakes();
	assert_int_equal(r, -EIO);
	assert_int_equal(errno, EINTR);
	assert_int_equal(len, 256);
	close(p[0]);
	close(p[1]);
}

static void test_poll(void **state)
{
	uint8_t raw[512];
	int p[2], r;

	(void)state;
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	/* rdma-core left errno alone here; it holds the error like everywhere else. */
	assert_fails(umad_poll(p[0], 0), -ETIMEDOUT);
	assert_fails(umad_poll(p[0], 10), -ETIMEDOUT);
	memset(raw, 0, sizeof(raw));
	assert_int_equal(write(p[1], raw, umad_size() + 256), (ssize_t)(umad_size() + 256));
	assert_int_equal(umad_poll(p[0], 0), 0);
	assert_int_equal(umad_poll(p[0], -1), 0);

	/* A negative descriptor is ignored by poll(2): a timeout, as in rdma-core. */
	assert_fails(umad_poll(-1, 0), -ETIMEDOUT);

	fake_poll_err = EINTR;
	errno = 0;
	r = umad_poll(p[0], 10);
	disarm_fakes();
	assert_int_equal(r, -EIO);
	assert_int_equal(errno, EINTR);
	close(p[0]);
	close(p[1]);
}

/* ------------------------------------------------------------------------- */
/* Agents                                                                     */
/* ------------------------------------------------------------------------- */

static void test_register(void **state)
{
	long mask[16 / sizeof(long)];
	int fd;

	(void)state;
	memset(mask, 0, sizeof(mask));
	((uint8_t *)mask)[0] = 0x06;
	((uint8_t *)mask)[15] = 0x80;

	errno = 0;
	assert_int_equal(umad_register(-1, 4, 1, 0, mask), -EPERM);
	assert_int_equal(errno, EBADF);

	fd = umad_open_port("mlx5_0", 2);
	assert_true(fd >= 0);
	/* A device that is not a umad device: -EPERM with ioctl's errno. */
	errno = 0;
	assert_int_equal(umad_register(fd, 4, 1, 0, mask), -EPERM);
	assert_int_equal(errno, ENOTTY);

	fake_kernel_arm();
	fake_kernel.next_id = 5;
	assert_int_equal(umad_register(fd, 0x81, 1, 0, mask), 5);
	assert_int_equal(fake_kernel.n_reg, 1);
	assert_int_equal(fake_kernel.last_reg.qpn, 0);	/* SMI classes go to QP0 */
	assert_int_equal(fake_kernel.last_reg.mgmt_class, 0x81);
	assert_int_equal(fake_kernel.last_reg.mgmt_class_version, 1);
	assert_memory_equal(fake_kernel.last_reg.oui, "\x00\x14\x05", 3);
	assert_memory_equal(fake_kernel.last_reg.method_mask, mask, 16);

	fake_kernel.next_id = 6;
	assert_int_equal(umad_register(fd, 0x03, 2, 1, NULL), 6);
	assert_int_equal(fake_kernel.last_reg.qpn, 1);
	assert_int_equal(fake_kernel.last_reg.mgmt_class, 3);
	assert_int_equal(fake_kernel.last_reg.mgmt_class_version, 2);
	assert_int_equal(fake_kernel.last_reg.rmpp_version, 1);
	assert_memory_equal(fake_kernel.last_reg.method_mask, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 16);
	assert_int_equal(umad_register(fd, 0x01, 1, 0, NULL), 6);
	assert_int_equal(fake_kernel.last_reg.qpn, 0);

	/* The kernel's 32-agent limit: ENOMEM. */
	fake_kernel.reg_errno = ENOMEM;
	errno = 0;
	assert_int_equal(umad_register(fd, 4, 1, 0, mask), -EPERM);
	assert_int_equal(errno, ENOMEM);
	disarm_fakes();
	assert_int_equal(umad_close_port(fd), 0);
}

static void test_register_oui(void **state)
{
	long mask[16 / sizeof(long)];
	uint8_t oui[3] = { 0x00, 0x02, 0xc9 };
	int fd;

	(void)state;
	memset(mask, 0, sizeof(mask));
	/* Vendor range 2 only: -EINVAL before anything else (rdma-core left errno alone). */
	assert_fails(umad_register_oui(-1, 0x2f, 0, oui, mask), -EINVAL);
	assert_fails(umad_register_oui(-1, 0x50, 0, oui, mask), -EINVAL);
	assert_fails(umad_register_oui(-1, 0x09, 0, oui, mask), -EINVAL);
	errno = 0;
	assert_int_equal(umad_register_oui(-1, 0x30, 0, oui, mask), -EPERM);
	assert_int_equal(errno, EBADF);

	fd = umad_open_port("mlx5_0", 2);
	assert_true(fd >= 0);
	fake_kernel_arm();
	fake_kernel.next_id = 8;
	assert_int_equal(umad_register_oui(fd, 0x4f, 1, oui, NULL), 8);
	assert_int_equal(fake_kernel.last_reg.qpn, 1);
	assert_int_equal(fake_kernel.last_reg.mgmt_class, 0x4f);
	assert_int_equal(fake_kernel.last_reg.mgmt_class_version, 1);
	assert_int_equal(fake_kernel.last_reg.rmpp_version, 1);
	assert_memory_equal(fake_kernel.last_reg.oui, oui, 3);
	disarm_fakes();
	assert_int_equal(umad_close_port(fd), 0);
}

static void test_register2(void **state)
{
	struct umad_reg_attr attr;
	uint32_t id;
	int fd;

	(void)state;
	memset(&attr, 0, sizeof(attr));
	attr.mgmt_class = 0x30;
	attr.mgmt_class_version = 1;
	/* Bad arguments: a positive EINVAL, in errno too. */
	attr.oui = 0;
	assert_error(umad_register2(-1, &attr, &id), EINVAL, EINVAL);
	attr.oui = 0x01001405;
	assert_error(umad_register2(-1, &attr, &id), EINVAL, EINVAL);
	attr.oui = 0x001405;
	attr.flags = UMAD_USER_RMPP;
	/* A bad descriptor: EBADF, flags handed back unchanged. */
	id = 0xdeadbeef;
	assert_error(umad_register2(-1, &attr, &id), EBADF, EBADF);
	assert_int_equal(attr.flags, UMAD_USER_RMPP);
	assert_int_equal(id, 0xdeadbeef);

	fd = umad_open_port("mlx5_0", 2);
	assert_true(fd >= 0);
	fake_kernel_arm();

	/* REGISTER_AGENT2 accepted. */
	memset(&attr, 0, sizeof(attr));
	attr.mgmt_class = 0x81;
	attr.mgmt_class_version = 1;
	attr.flags = UMAD_USER_RMPP;
	attr.method_mask[0] = 0x1234;
	attr.method_mask[1] = 0x8000000000000001ULL;
	attr.rmpp_version = 1;
	fake_kernel.next_id = 11;
	id = 0;
	assert_int_equal(umad_register2(fd, &attr, &id), 0);
	assert_int_equal(id, 11);
	assert_int_equal(fake_kernel.n_reg2, 1);
	assert_int_equal(fake_kernel.n_reg, 0);
	assert_int_equal(fake_kernel.last_reg2.qpn, 0);
	assert_int_equal(fake_kernel.last_reg2.mgmt_class, 0x81);
	assert_int_equal(fake_kernel.last_reg2.mgmt_class_version, 1);
	assert_int_equal(fake_kernel.last_reg2.flags, UMAD_USER_RMPP);
	assert_true(fake_kernel.last_reg2.method_mask[0] == 0x1234);
	assert_true(fake_kernel.last_reg2.method_mask[1] == 0x8000000000000001ULL);
	assert_int_equal(fake_kernel.last_reg2.rmpp_version, 1);

	memset(&attr, 0, sizeof(attr));
	attr.mgmt_class = 0x30;
	attr.mgmt_class_version = 1;
	attr.oui = 0x0002c9;
	fake_kernel.next_id = 12;
	assert_int_equal(umad_register2(fd, &attr, &id), 0);
	assert_int_equal(id, 12);
	assert_int_equal(fake_kernel.last_reg2.qpn, 1);
	assert_int_equal(fake_kernel.last_reg2.oui, 0x0002c9);

	/* An old kernel (ENOTTY or EINVAL) and no flags: the v1 request, oui big-endian. */
	fake_kernel.reg2_errno = ENOTTY;
	fake_kernel.n_reg = fake_kernel.n_reg2 = 0;
	fake_kernel.next_id = 13;
	assert_int_equal(umad_register2(fd, &attr, &id), 0);
	assert_int_equal(id, 13);
	assert_int_equal(fake_kernel.n_reg2, 1);
	assert_int_equal(fake_kernel.n_reg, 1);
	assert_int_equal(fake_kernel.last_reg.mgmt_class, 0x30);
	assert_int_equal(fake_kernel.last_reg.qpn, 1);
	assert_memory_equal(fake_kernel.last_reg.oui, "\x00\x02\xc9", 3);
	fake_kernel.reg2_errno = EINVAL;
	fake_kernel.next_id = 14;
	assert_int_equal(umad_register2(fd, &attr, &id), 0);
	assert_int_equal(id, 14);

	/* Flags the kernel does not support: EINVAL, no v1 retry, attr->flags = supported flags. */
	fake_kernel.reg2_errno = EINVAL;
	fake_kernel.reg2_flags_cap = UMAD_USER_RMPP;
	fake_kernel.n_reg = 0;
	attr.flags = 0x80;
	assert_error(umad_register2(fd, &attr, &id), EINVAL, EINVAL);
	assert_int_equal(fake_kernel.n_reg, 0);
	assert_int_equal(attr.flags, UMAD_USER_RMPP);

	/* Both requests refused: the v1 errno, positive. */
	fake_kernel.reg2_errno = ENOTTY;
	fake_kernel.reg_errno = ENOMEM;
	attr.flags = 0;
	assert_error(umad_register2(fd, &attr, &id), ENOMEM, ENOMEM);
	disarm_fakes();
	assert_int_equal(umad_close_port(fd), 0);
}

static void test_unregister(void **state)
{
	int fd;

	(void)state;
	errno = 0;
	assert_int_equal(umad_unregister(-1, 0), -1);
	assert_int_equal(errno, EBADF);

	fd = umad_open_port("mlx5_0", 2);
	assert_true(fd >= 0);
	errno = 0;
	assert_int_equal(umad_unregister(fd, 0), -1);
	assert_int_equal(errno, ENOTTY);

	fake_kernel_arm();
	assert_int_equal(umad_unregister(fd, 7), 0);
	assert_int_equal(fake_kernel.n_unreg, 1);
	assert_int_equal(fake_kernel.last_unreg, 7);
	/* An agent that is not registered: the kernel's EINVAL, as -1 and errno. */
	fake_kernel.unreg_errno = EINVAL;
	errno = 0;
	assert_int_equal(umad_unregister(fd, 31), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(umad_unregister(fd, -1), -1);
	assert_int_equal(errno, EINVAL);
	disarm_fakes();
	assert_int_equal(umad_close_port(fd), 0);
}

/* ------------------------------------------------------------------------- */
/* Debugging and dumps                                                        */
/* ------------------------------------------------------------------------- */

static void test_debug(void **state)
{
	(void)state;
	assert_int_equal(umad_debug(-1), 0);
	assert_int_equal(umad_debug(3), 3);
	assert_int_equal(umad_debug(-1), 3);
	assert_int_equal(umad_debug(-7), 3);
	assert_int_equal(umad_debug(0), 0);
	assert_int_equal(umad_debug(-1), 0);
}

static void child_dumps(void)
{
	uint8_t buf[256];
	struct ib_user_mad *m = (struct ib_user_mad *)buf;
	int i;

	memset(buf, 0, sizeof(buf));
	m->agent_id = 3;
	m->status = 110;
	m->timeout_ms = 100;
	m->addr.qpn = htobe32(1);
	m->addr.qkey = htobe32(0x80010000);
	m->addr.lid = htobe16(0x1234);
	m->addr.sl = 2;
	m->addr.grh_present = 1;
	m->addr.gid_index = 4;
	m->addr.hop_limit = 63;
	m->addr.traffic_class = 5;
	for (i = 0; i < 16; i++)
		m->addr.gid[i] = (uint8_t)(0xa0 + i);
	m->addr.flow_label = htobe32(0x12345);
	m->addr.pkey_index = 6;
	umad_addr_dump(&m->addr);
	umad_dump(buf);
}

static void test_dumps(void **state)
{
	char err[4096], expected[512];

	(void)state;
	run_child("dumps", NULL, err, sizeof(err));
	/* qpn, qkey and lid are shown in host order, the flow label raw (rdma-core's format). */
	snprintf(expected, sizeof(expected),
		 "qpn %d qkey 0x%x lid %u sl %d\n"
		 "grh_present %d gid_index %d hop_limit %d traffic_class %d flow_label 0x%x "
		 "pkey_index 0x%x\nGid 0xa0a1a2a3a4a5a6a7a8a9aaabacadaeaf",
		 1, 0x80010000, 0x1234, 2, 1, 4, 63, 5, htobe32(0x12345), 6);
	assert_non_null(strstr(err, expected));
	assert_non_null(strstr(err, "agent id 3 status 6e timeout 100"));
	assert_non_null(strstr(err, "ibwarn: ["));
}

/* ------------------------------------------------------------------------- */
/* Strings                                                                    */
/* ------------------------------------------------------------------------- */

static void test_strings(void **state)
{
	(void)state;
	assert_string_equal(umad_class_str(0x01), "Subn");
	assert_string_equal(umad_class_str(0x81), "Subn");
	assert_string_equal(umad_class_str(0x03), "SubnAdm");
	assert_string_equal(umad_class_str(0x21), "CongestionManagment");
	assert_string_equal(umad_class_str(0x09), "Vendor");
	assert_string_equal(umad_class_str(0x30), "Vendor");
	assert_string_equal(umad_class_str(0x20), "Application");
	assert_string_equal(umad_class_str(0x00), "<unknown>");
	assert_string_equal(umad_class_str(0xff), "<unknown>");
	assert_string_equal(umad_method_str(0x01, 0x81), "GetResp");
	assert_string_equal(umad_method_str(0x03, 0x12), "GetTable");
	assert_string_equal(umad_method_str(0x04, 0x12), "<unknown");
	assert_string_equal(umad_method_str(0x03, 0x99), "<unknown");
	assert_string_equal(umad_common_mad_status_str(htobe16(0x0001)), "Busy");
	assert_string_equal(umad_common_mad_status_str(htobe16(0x0002)), "Redirection required");
	assert_string_equal(umad_common_mad_status_str(htobe16(0x001c)),
			    "Invalid attribute/modifier field");
	assert_string_equal(umad_common_mad_status_str(htobe16(0x0000)), "Success");
	assert_string_equal(umad_sa_mad_status_str(htobe16(0x0300)), "No Records");
	assert_string_equal(umad_sa_mad_status_str(htobe16(0x0900)), "Undefined Error");
	assert_string_equal(umad_attribute_str(0x01, htobe16(0x0015)), "PortInfo");
	assert_string_equal(umad_attribute_str(0x03, htobe16(0x0035)), "PathRecord");
	assert_string_equal(umad_attribute_str(0x07, htobe16(0x0010)), "ConnectRequest");
	assert_string_equal(umad_attribute_str(0x04, htobe16(0x0001)), "Class Port Info");
	assert_string_equal(umad_attribute_str(0x01, htobe16(0xff90)), "<unknown>");
}

/* ------------------------------------------------------------------------- */
/* SMI/GSI pairs                                                              */
/* ------------------------------------------------------------------------- */

static void test_pairs(void **state)
{
	struct umad_ca_pair pairs[4], pair;

	(void)state;

	memset(pairs, 0xee, sizeof(pairs));
	assert_int_equal(umad_get_smi_gsi_pairs(pairs, 4), 1);
	assert_string_equal(pairs[0].smi_name, "mlx5_0");
	assert_string_equal(pairs[0].gsi_name, "mlx5_1");
	assert_int_equal(pairs[0].smi_preferred_port, 0);	/* never filled here */
	assert_int_equal(pairs[0].gsi_preferred_port, 0);
	assert_int_equal(pairs[1].smi_name[0], 0);		/* the whole array is cleared */

	memset(&pair, 0xee, sizeof(pair));
	assert_int_equal(umad_get_smi_gsi_pair_by_ca_name(NULL, 0, &pair, 1), 0);
	assert_string_equal(pair.smi_name, "mlx5_0");
	assert_string_equal(pair.gsi_name, "mlx5_1");
	assert_int_equal(pair.smi_preferred_port, 1);
	assert_int_equal(pair.gsi_preferred_port, 1);

	memset(&pair, 0xee, sizeof(pair));
	assert_int_equal(umad_get_smi_gsi_pair_by_ca_name("mlx5_1", 1, &pair, 0), 0);
	assert_string_equal(pair.smi_name, "mlx5_0");
	assert_string_equal(pair.gsi_name, "mlx5_1");

	errno = 0;
	assert_int_equal(umad_get_smi_gsi_pair_by_ca_name("nosuch", 0, &pair, 0), -ENODEV);
	assert_int_equal(errno, ENODEV);
	/* Port numbers past the ten slots of umad_ca_t: absent, not an out-of-bounds read. */
	errno = 0;
	assert_int_equal(umad_get_smi_gsi_pair_by_ca_name("mlx5_0", 200, &pair, 0), -ENODEV);
	assert_int_equal(errno, ENODEV);
	assert_fails(umad_get_smi_gsi_pair_by_ca_name(NULL, 10, &pair, 0), -ENODEV);
}

static void test_pairs_no_devices(void **state)
{
	struct umad_ca_pair pairs[2], pair;

	(void)state;
	memset(pairs, 0xee, sizeof(pairs));
	assert_int_equal(umad_get_smi_gsi_pairs(pairs, 2), 0);
	assert_int_equal(pairs[0].smi_name[0], 0);
	/* No pair at all: 0 and an empty pair (rdma-core's answer). */
	memset(&pair, 0xee, sizeof(pair));
	assert_int_equal(umad_get_smi_gsi_pair_by_ca_name(NULL, 0, &pair, 0), 0);
	assert_int_equal(pair.smi_name[0], 0);
	assert_int_equal(pair.gsi_name[0], 0);
	assert_int_equal(pair.smi_preferred_port, 0);
}

/* ------------------------------------------------------------------------- */

#define T(fn, setup) cmocka_unit_test_setup_teardown(fn, setup, teardown_fakes)

static const struct {
	const char *name;
	void (*fn)(void);
} child_cases[] = {
	{ "unusable_backend", child_unusable_backend },
	{ "null_dumps", child_null_dumps },
	{ "abi6", child_abi6 },
	{ "abi5_enable_pkey", child_abi5_enable_pkey },
	{ "abi_missing", child_abi_missing },
	{ "abi_old", child_abi_old },
	{ "dumps", child_dumps },
};

/* "--child NAME": one case of run_child(), on the tree the parent made. */
static int child_main(const char *name)
{
	const char *s = getenv("UMAD_SYSFS_ROOT"), *d = getenv("UMAD_DEV_DIR");
	size_t i;

	size_t n;

	if (!s || !d)
		return 99;
	/* UMAD_SYSFS_ROOT is ROOT/sys, ROOT the tree the writer works on. */
	n = strlen(s);
	if (n < strlen("/" SYSFS_DIR) || strcmp(s + n - strlen("/" SYSFS_DIR), "/" SYSFS_DIR))
		return 99;
	snprintf(root, sizeof(root), "%.*s", (int)(n - strlen("/" SYSFS_DIR)), s);
	snprintf(sysroot, sizeof(sysroot), "%s", s);
	snprintf(devdir, sizeof(devdir), "%s", d);
	for (i = 0; i < sizeof(child_cases) / sizeof(child_cases[0]); i++) {
		if (!strcmp(child_cases[i].name, name)) {
			child_cases[i].fn();
			fflush(NULL);
			return 0;
		}
	}
	fprintf(stderr, "no child case %s\n", name);
	return 99;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		/* First: no port has been opened in this process yet. */
		T(test_size_before_open, setup_standard),
		T(test_init_done, setup_standard),
		T(test_backend_nosuch, setup_standard),
		T(test_backend_module_unusable, setup_standard),
		T(test_backend_init_fails, setup_standard),
		T(test_null_arguments, setup_standard),
		T(test_cas_names, setup_standard),
		T(test_cas_names_no_class, setup_empty),
		T(test_device_list, setup_standard),
		T(test_device_list_empty, setup_empty),
		T(test_class_unreadable, setup_empty),
		T(test_get_ca, setup_standard),
		T(test_get_ca_broken, setup_standard),
		T(test_release, setup_standard),
		T(test_get_port, setup_standard),
		T(test_get_port_no_devices, setup_empty),
		T(test_portguids, setup_standard),
		T(test_issm_path, setup_standard),
		T(test_open_abi, setup_standard),
		T(test_open_close, setup_standard),
		T(test_open_smi, setup_planarized),
		T(test_buffer, setup_standard),
		T(test_send, setup_standard),
		T(test_send_debug_dump, setup_standard),
		T(test_recv, setup_standard),
		T(test_poll, setup_standard),
		T(test_register, setup_standard),
		T(test_register_oui, setup_standard),
		T(test_register2, setup_standard),
		T(test_unregister, setup_standard),
		T(test_debug, setup_standard),
		T(test_dumps, setup_standard),
		T(test_strings, setup_standard),
		T(test_pairs, setup_planarized),
		T(test_pairs_no_devices, setup_empty),
	};
	int r;

	if (argc == 3 && !strcmp(argv[1], "--child"))
		return child_main(argv[2]);

	snprintf(root, sizeof(root), "%s/umad-api.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root)) {
		perror("mkdtemp");
		return 99;
	}
	snprintf(sysroot, sizeof(sysroot), "%s/" SYSFS_DIR, root);
	snprintf(devdir, sizeof(devdir), "%s/" SYSFS_DEV_DIR, root);
	setenv("UMAD_SYSFS_ROOT", sysroot, 1);
	setenv("UMAD_DEV_DIR", devdir, 1);
	unsetenv("UMAD_BACKEND");

	r = cmocka_run_group_tests(tests, NULL, NULL);
	sysfs_remove(root, NULL);
	return r;
}
