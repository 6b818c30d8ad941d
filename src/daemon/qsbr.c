/* SPDX-License-Identifier: MIT */
/* Quiescent-state-based reclamation, in its simplest form (qsbr.h). */
#include <stdlib.h>
#include <time.h>

#include "daemon/qsbr.h"

void qsbr_init(struct qsbr *q)
{
	q->gp = 1;
	q->readers = NULL;
}

void qsbr_register(struct qsbr *q, struct qsbr_reader *r)
{
	r->qs = 0;
	r->next = q->readers;
	q->readers = r;
}

void qsbr_unregister(struct qsbr *q, struct qsbr_reader *r)
{
	struct qsbr_reader **pp;

	for (pp = &q->readers; *pp && *pp != r; pp = &(*pp)->next)
		;
	if (*pp)
		*pp = r->next;
}

void qsbr_online(struct qsbr *q, struct qsbr_reader *r)
{
	__atomic_store_n(&r->qs, __atomic_load_n(&q->gp, __ATOMIC_SEQ_CST), __ATOMIC_SEQ_CST);
	/* The mark before any read of published memory. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

void qsbr_offline(struct qsbr_reader *r)
{
	/* A release: every read of published memory before it. */
	__atomic_store_n(&r->qs, 0, __ATOMIC_SEQ_CST);
}

void qsbr_synchronize(struct qsbr *q)
{
	uint64_t gp = __atomic_add_fetch(&q->gp, 1, __ATOMIC_SEQ_CST);

	for (struct qsbr_reader *r = q->readers; r; r = r->next) {
		for (;;) {
			uint64_t qs = __atomic_load_n(&r->qs, __ATOMIC_SEQ_CST);
			struct timespec ts = { .tv_nsec = 100 * 1000 };

			if (qs == 0 || qs >= gp)
				break;
			nanosleep(&ts, NULL);
		}
	}
}

void qsbr_retire(struct qsbr *q, void *p)
{
	if (!p)
		return;
	qsbr_synchronize(q);
	free(p);
}
