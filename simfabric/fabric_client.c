/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/* A connection to a shared fabric (fabric_client.h). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "simfabric/fabric_client.h"

int fabric_default_socket(char *path, size_t size)
{
	const char *named = getenv("UMAD_SIM_FABRIC");
	const char *run = getenv("XDG_RUNTIME_DIR");
	int n;

	if (named && *named)
		n = snprintf(path, size, "%s", named);
	else if (run && *run)
		n = snprintf(path, size, "%s/umad-fabric/socket", run);
	else
		n = snprintf(path, size, "/tmp/umad-fabric-%u/socket", (unsigned)getuid());
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int connect_to(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(a.sun_path))
		return -ENAMETOOLONG;
	memcpy(a.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

int fabric_client_connect(struct fabric_client *c, const char *path, const char *const *names,
			  unsigned n_names, int attach_default, struct fp_node *nodes,
			  unsigned *n_nodes, char *err, size_t err_size)
{
	struct fp_hello hello = { .version = FP_VERSION, .n_hosts = n_names };
	char list[FP_MAX_HOSTS * FP_NAME_MAX];
	const struct fp_hello_ok *ok;
	size_t len = 0;
	unsigned i;
	int32_t rc;
	int r;

	memset(c, 0, sizeof(*c));
	c->fd = c->event_fd = -1;
	pthread_mutex_init(&c->lock, NULL);
	fp_reader_init(&c->reply);
	if (n_names > FP_MAX_HOSTS) {
		snprintf(err, err_size, "at most %d nodes", FP_MAX_HOSTS);
		return -EINVAL;
	}
	for (i = 0; i < n_names; i++) {
		size_t n = strlen(names[i]) + 1;

		if (n > FP_NAME_MAX) {
			snprintf(err, err_size, "node name '%.40s...' too long", names[i]);
			return -ENAMETOOLONG;
		}
		memcpy(list + len, names[i], n);
		len += n;
	}
	if (!n_names && attach_default)
		hello.n_hosts = UINT32_MAX;	/* the server's first CA */
	c->fd = connect_to(path);
	if (c->fd < 0) {
		r = c->fd;
		snprintf(err, err_size, "cannot connect to the fabric at %s: %s", path, strerror(-r));
		c->fd = -1;
		return r;
	}
	r = fp_recv_message(c->fd, &c->reply, 0);	/* the welcome, or a refusal */
	if (r == 1 && c->reply.type == FP_RC) {
		memcpy(&rc, c->reply.buf, sizeof(rc));
		if (rc < 0) {
			char msg[512];

			snprintf(err, err_size, "the fabric at %s refused: %s", path,
				 fabric_client_reply_text(c, msg, sizeof(msg)));
			fabric_client_close(c);
			return rc;
		}
	} else {
		snprintf(err, err_size, "the fabric at %s does not answer: %s", path,
			 strerror(r < 0 ? -r : EPROTO));
		fabric_client_close(c);
		return r < 0 ? r : -EPROTO;
	}
	r = fabric_client_request(c, FP_HELLO, &hello, sizeof(hello), list, len, &rc);
	if (r < 0) {
		snprintf(err, err_size, "the fabric at %s does not answer: %s", path, strerror(-r));
		fabric_client_close(c);
		return r;
	}
	if (c->reply.type == FP_RC) {
		char msg[512];

		snprintf(err, err_size, "the fabric at %s refused: %s", path,
			 fabric_client_reply_text(c, msg, sizeof(msg)));
		fabric_client_done(c);
		fabric_client_close(c);
		return rc < 0 ? rc : -EPROTO;
	}
	ok = (const struct fp_hello_ok *)c->reply.buf;
	if (c->reply.type != FP_HELLO_OK || ok->version != FP_VERSION ||
	    ok->n_hosts > FP_MAX_HOSTS ||
	    c->reply.len != sizeof(*ok) + ok->n_hosts * sizeof(struct fp_node) ||
	    c->reply.passed_fd < 0) {
		snprintf(err, err_size, "the fabric at %s speaks another protocol", path);
		fabric_client_done(c);
		fabric_client_close(c);
		return -EPROTO;
	}
	memcpy(nodes, ok + 1, ok->n_hosts * sizeof(struct fp_node));
	for (i = 0; i < ok->n_hosts; i++) {
		nodes[i].desc[sizeof(nodes[i].desc) - 1] = '\0';
		nodes[i].name[sizeof(nodes[i].name) - 1] = '\0';
	}
	*n_nodes = ok->n_hosts;
	c->event_fd = c->reply.passed_fd;
	c->reply.passed_fd = -1;
	fabric_client_done(c);
	return 0;
}

void fabric_client_close(struct fabric_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->event_fd >= 0)
		close(c->event_fd);
	c->fd = c->event_fd = -1;
	fp_reader_free(&c->reply);
	pthread_mutex_destroy(&c->lock);
}

int fabric_client_request(struct fabric_client *c, uint32_t type, const void *head,
			  size_t head_len, const void *tail, size_t tail_len, int32_t *rc)
{
	int r;

	pthread_mutex_lock(&c->lock);
	if (c->broken || c->fd < 0) {
		pthread_mutex_unlock(&c->lock);
		return -EIO;
	}
	r = fp_send_message2(c->fd, type, head, head_len, tail, tail_len, -1, 0);
	if (r == 0) {
		r = fp_recv_message(c->fd, &c->reply, 0);
		if (r == 0)
			r = -EPROTO;	/* a blocking read ends with a message or an error */
	}

	if (r < 0) {
		/* The server went away or spoke nonsense: nothing more can be trusted. */
		c->broken = 1;
		pthread_mutex_unlock(&c->lock);
		return -EIO;
	}
	*rc = 0;
	if (c->reply.type == FP_RC)
		memcpy(rc, c->reply.buf, sizeof(*rc));
	return 0;
}

void fabric_client_done(struct fabric_client *c)
{
	pthread_mutex_unlock(&c->lock);
}

int fabric_client_call(struct fabric_client *c, uint32_t type, const void *body, size_t len)
{
	int32_t rc;
	int r = fabric_client_request(c, type, body, len, NULL, 0, &rc);

	if (r < 0)
		return r;
	if (c->reply.type != FP_RC)
		rc = -EPROTO;
	fabric_client_done(c);
	return rc;
}

const char *fabric_client_reply_text(const struct fabric_client *c, char *buf, size_t size)
{
	size_t n;

	buf[0] = '\0';
	if (c->reply.type != FP_RC || c->reply.len <= sizeof(struct fp_rc))
		return buf;
	n = c->reply.len - sizeof(struct fp_rc);
	if (n >= size)
		n = size - 1;
	memcpy(buf, c->reply.buf + sizeof(struct fp_rc), n);
	buf[n] = '\0';
	return buf;
}
