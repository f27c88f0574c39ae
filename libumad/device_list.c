/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Lists of the host's InfiniBand devices: the sorted name array of
 * umad_get_cas_names() and the linked list of umad_get_ca_device_list().
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/backend.h"
#include "internal.h"

struct name_array {
	char (*names)[UMAD_CA_NAME_LEN];
	int count, max;
};

static int collect_name(const char *ca_name, void *arg)
{
	struct name_array *a = arg;

	/* Names that do not fit umad_ca_t's ca_name are skipped, as in rdma-core. */
	if (strlen(ca_name) >= UMAD_CA_NAME_LEN)
		return 0;
	if (a->count == a->max) {
		int max = a->max ? 2 * a->max : 16;
		void *grown = realloc(a->names, (size_t)max * sizeof(*a->names));

		if (!grown)
			return -ENOMEM;
		a->names = grown;
		a->max = max;
	}
	strcpy(a->names[a->count++], ca_name);
	return 0;
}

static int compare_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

int umad_get_cas_names(char cas[][UMAD_CA_NAME_LEN], int max)
{
	struct name_array found = { 0 };
	const struct umad_backend *be;
	int r, n;

	UMAD_DEBUG("max %d", max);
	if (!cas || max < 0)
		return umad_fail(-EINVAL);
	be = umad_selected_backend();
	if (!be)
		return umad_fail(umad_backend_error());

	r = be->for_each_ca(collect_name, &found);
	if (r == -ENOENT) {
		/* No device class at all: rdma-core still answers with its default name. */
		free(found.names);
		if (max > 0)
			strcpy(cas[0], UMAD_DEFAULT_CA_NAME);
		return 1;
	}
	if (r < 0) {
		free(found.names);
		return umad_fail(r);
	}
	if (found.count)
		qsort(found.names, (size_t)found.count, sizeof(*found.names), compare_names);
	n = found.count < max ? found.count : max;
	if (n > 0)
		memcpy(cas, found.names, (size_t)n * sizeof(*cas));
	free(found.names);
	UMAD_DEBUG("return %d cas", n);
	return n;
}

struct list_builder {
	struct umad_device_node *head, *tail;
};

static int append_node(const char *ca_name, void *arg)
{
	struct list_builder *b = arg;
	size_t len = strlen(ca_name) + 1;
	struct umad_device_node *node;

	/* The name lives right after the node, so one free() releases both. */
	node = calloc(1, sizeof(*node) + len);
	if (!node)
		return -ENOMEM;
	memcpy(node + 1, ca_name, len);
	node->ca_name = (const char *)(node + 1);
	if (b->tail)
		b->tail->next = node;
	else
		b->head = node;
	b->tail = node;
	return 0;
}

struct umad_device_node *umad_get_ca_device_list(void)
{
	struct list_builder b = { NULL, NULL };
	const struct umad_backend *be = umad_selected_backend();
	int r;

	if (!be) {
		errno = -umad_backend_error();
		return NULL;
	}
	r = be->for_each_ca(append_node, &b);
	if (r < 0 && r != -ENOENT) {
		umad_free_ca_device_list(b.head);
		errno = -r;
		return NULL;
	}
	/* An empty or missing device class is not an error: NULL with errno 0. */
	errno = 0;
	return b.head;
}

void umad_free_ca_device_list(struct umad_device_node *head)
{
	while (head) {
		struct umad_device_node *next = head->next;

		free(head);
		head = next;
	}
}

static int compare_nodes(const void *a, const void *b)
{
	const struct umad_device_node *const *na = a, *const *nb = b;

	return strcmp((*na)->ca_name, (*nb)->ca_name);
}

/* Returns 0 or a positive errno, as rdma-core does (errno holds it too). */
int umad_sort_ca_device_list(struct umad_device_node **head, size_t size)
{
	struct umad_device_node **nodes, *node;
	size_t count = 0, i;

	if (!head)
		return umad_fail_positive(EINVAL);
	for (node = *head; node; node = node->next)
		count++;
	if (size == 0)
		size = count;
	if (size < 2)
		return 0;
	if (size != count)
		return umad_fail_positive(EINVAL);
	nodes = calloc(size, sizeof(*nodes));
	if (!nodes)
		return umad_fail_positive(ENOMEM);
	for (i = 0, node = *head; node; node = node->next)
		nodes[i++] = node;
	qsort(nodes, size, sizeof(*nodes), compare_nodes);
	for (i = 0; i + 1 < size; i++)
		nodes[i]->next = nodes[i + 1];
	nodes[size - 1]->next = NULL;
	*head = nodes[0];
	free(nodes);
	return 0;
}
