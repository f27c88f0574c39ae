/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * dev/infiniband/umadN and issmN of `umad kernel`'s file system, with the
 * semantics of ib_umad's character devices, over the backend's umad ports:
 *
 *  - umadN: each open is a port of its own (agents are per open file);
 *    the header layout is the old one (56 bytes) until ENABLE_PKEY or a
 *    REGISTER_AGENT2 switches it to the new one (64); the REGISTER_AGENT,
 *    REGISTER_AGENT2, UNREGISTER_AGENT and ENABLE_PKEY ioctls with the
 *    kernel's checks; write(2) sends one MAD; read(2) takes one, blocking
 *    or (O_NONBLOCK) failing with EAGAIN, interrupted by a signal with
 *    EINTR; a read too short for an RMPP message fails with ENOSPC after
 *    copying the header whose length says what is needed (below); poll(2)
 *    says POLLIN while something is queued, POLLOUT always.
 *  - issmN: an open holds the port's issm device (IsSM set) until its
 *    close; a second open waits for it, or fails with EAGAIN (O_NONBLOCK).
 *
 * ENOSPC: FUSE cannot give a read both data and an error, so the header
 * goes into the reader's buffer as a debugger would put it there
 * (process_vm_writev at the address /proc/TID/syscall shows).  Where that
 * is not allowed, the read still fails with ENOSPC, without the header.
 */
#ifndef CLI_KFS_DEV_H
#define CLI_KFS_DEV_H

#include "cli/kfs_state.h"

void kfs_dev_open(struct kfs *k, fuse_req_t req, const struct kfs_node *n,
		  struct fuse_file_info *fi);
void kfs_dev_release(struct kfs *k, fuse_req_t req, const struct kfs_node *n,
		     struct fuse_file_info *fi);
void kfs_dev_read(struct kfs *k, fuse_req_t req, size_t size, off_t off,
		  struct fuse_file_info *fi);
void kfs_dev_write(struct kfs *k, fuse_req_t req, const char *buf, size_t size, off_t off,
		   struct fuse_file_info *fi);
void kfs_dev_poll(struct kfs *k, fuse_req_t req, struct fuse_file_info *fi,
		  struct fuse_pollhandle *ph);
void kfs_dev_ioctl(struct kfs *k, fuse_req_t req, unsigned int cmd, struct fuse_file_info *fi,
		   unsigned flags, const void *in_buf, size_t in_size, size_t out_size);
/* What the devices hold when the file system goes (the issm devices, the opens waiting). */
void kfs_dev_free(struct kfs *k);
/* A port epoll reported readable: w is the open file's watch. */
void kfs_dev_port_ready(struct kfs *k, struct kfs_watch *w);

#endif /* CLI_KFS_DEV_H */
