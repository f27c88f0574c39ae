/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "cli/kfs_keep.h"

struct kfs_keepers {
	_Atomic uint64_t busy_until;	/* CLOCK_MONOTONIC ns */
	atomic_int stop;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int n;
	pthread_t threads[];
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A breath in a spin: the CPU's pause hint where it has one. */
static inline void spin_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

static void *keep(void *arg)
{
	struct kfs_keepers *kp = arg;
	struct sched_param none = { 0 };

	/* Never in anyone's way: a task of any other policy preempts it at once. */
	pthread_setschedparam(pthread_self(), SCHED_IDLE, &none);
	while (!atomic_load(&kp->stop)) {
		if (now_ns() < atomic_load_explicit(&kp->busy_until, memory_order_relaxed)) {
			spin_pause();
			continue;
		}
		pthread_mutex_lock(&kp->lock);
		while (!atomic_load(&kp->stop) && now_ns() >= atomic_load(&kp->busy_until))
			pthread_cond_wait(&kp->wake, &kp->lock);
		pthread_mutex_unlock(&kp->lock);
	}
	return NULL;
}

int kfs_keepers_start(struct kfs_keepers **out)
{
	cpu_set_t cpus;
	struct kfs_keepers *kp;
	int n = 1, i, r;

	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0)
		n = CPU_COUNT(&cpus);
	kp = calloc(1, sizeof(*kp) + (size_t)n * sizeof(kp->threads[0]));
	if (!kp)
		return -ENOMEM;
	pthread_mutex_init(&kp->lock, NULL);
	pthread_cond_init(&kp->wake, NULL);
	for (i = 0; i < n; i++) {
		r = pthread_create(&kp->threads[i], NULL, keep, kp);
		if (r) {
			kp->n = i;
			kfs_keepers_stop(kp);
			return -r;
		}
	}
	kp->n = n;
	*out = kp;
	return 0;
}

void kfs_keepers_busy(struct kfs_keepers *kp, uint64_t now)
{
	uint64_t was;

	if (!kp)
		return;
	was = atomic_exchange_explicit(&kp->busy_until, now + KFS_KEEP_NS, memory_order_relaxed);
	if (was <= now) {
		/* They were asleep, or about to be: under the lock, so none misses it. */
		pthread_mutex_lock(&kp->lock);
		pthread_cond_broadcast(&kp->wake);
		pthread_mutex_unlock(&kp->lock);
	}
}

void kfs_keepers_stop(struct kfs_keepers *kp)
{
	int i;

	if (!kp)
		return;
	pthread_mutex_lock(&kp->lock);
	atomic_store(&kp->stop, 1);
	pthread_cond_broadcast(&kp->wake);
	pthread_mutex_unlock(&kp->lock);
	for (i = 0; i < kp->n; i++)
		pthread_join(kp->threads[i], NULL);
	pthread_mutex_destroy(&kp->lock);
	pthread_cond_destroy(&kp->wake);
	free(kp);
}
