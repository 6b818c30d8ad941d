/* SPDX-License-Identifier: MIT */
/*
 * What the control thread and the workers share, and how: publish and retire by
 * quiescent states (QSBR), and named accessors for the words they both touch.
 *
 * Each reader (a worker) marks itself offline before it blocks (qsbr_offline) and online
 * after (qsbr_online), and touches published memory only while online, never keeping a
 * pointer across the mark.  The writer (the control thread, the only one) publishes a new
 * pointer with qsbr_publish, then qsbr_synchronize starts a new grace period and waits
 * until every reader is offline or has marked it: from then on no reader can hold what
 * was unpublished before the call, and qsbr_retire frees it.  Readers take no lock and
 * make no atomic read-modify-write: qsbr_read is a load-acquire.
 *
 * Readers register before their threads start and unregister after they end.
 */
#ifndef SITD_QSBR_H
#define SITD_QSBR_H

#include <stdint.h>

struct qsbr_reader {
	uint64_t qs;			/* 0 = offline, else the grace period it has seen */
	struct qsbr_reader *next;
};

struct qsbr {
	uint64_t gp;			/* the current grace period, from 1 */
	struct qsbr_reader *readers;
};

void qsbr_init(struct qsbr *q);
/* A reader starts offline. */
void qsbr_register(struct qsbr *q, struct qsbr_reader *r);
void qsbr_unregister(struct qsbr *q, struct qsbr_reader *r);
void qsbr_online(struct qsbr *q, struct qsbr_reader *r);
void qsbr_offline(struct qsbr_reader *r);

/* Wait until no reader can hold anything unpublished before the call. */
void qsbr_synchronize(struct qsbr *q);
/* Free p after a grace period (NULL: nothing, no wait). */
void qsbr_retire(struct qsbr *q, void *p);

/* The writer's store of a pointer readers then load with qsbr_read (an lvalue each). */
#define qsbr_publish(x, v)	store_release(x, v)
#define qsbr_read(x)		load_acquire(x)
/* Publish v in x and free what x held after a grace period. */
#define qsbr_replace(q, x, v)	qsbr_retire((q), __atomic_exchange_n(&(x), (v), __ATOMIC_RELEASE))

/*
 * A word one thread writes and another reads, with no order to anything else (a flag, a
 * counter, an MTU), as the kernel's READ_ONCE and WRITE_ONCE; and the ordered pair.
 */
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define load_acquire(x)		__atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define store_release(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELEASE)
/* Store v, return what x held, in one step (a flag two threads set and take). */
#define xchg(x, v)		__atomic_exchange_n(&(x), (v), __ATOMIC_SEQ_CST)

#endif
