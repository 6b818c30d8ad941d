/* SPDX-License-Identifier: MIT */
/*
 * qsbr.h with real threads: a reader never sees memory retired while it was online,
 * qsbr_synchronize waits for an online reader and not for an offline one, and retiring
 * NULL waits for nobody.  Under `make unit-asan` a use after free is also caught.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "daemon/qsbr.h"

enum { LIVE = 0x11fe, DEAD = 0xdead };

struct obj {
	unsigned magic;
	unsigned gen;
};

static struct qsbr q;
static struct obj *slot;
static bool stop, ready;
static unsigned long bad, reads;

static uint64_t ms_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

static struct obj *obj_new(unsigned gen)
{
	struct obj *o = malloc(sizeof(*o));

	assert_non_null(o);
	o->magic = LIVE;
	o->gen = gen;
	return o;
}

/* As a worker: online, read what is published a while, offline, and again. */
static void *reader(void *arg)
{
	struct qsbr_reader *r = arg;

	while (!load_acquire(stop)) {
		qsbr_online(&q, r);
		for (unsigned k = 0; k < 200; k++) {
			const struct obj *o = qsbr_read(slot);

			if (READ_ONCE(o->magic) != LIVE)
				__atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
			__atomic_add_fetch(&reads, 1, __ATOMIC_RELAXED);
		}
		qsbr_offline(r);
	}
	return NULL;
}

static void test_reader_never_sees_freed(void **state)
{
	enum { READERS = 3, ROUNDS = 2000 };
	struct qsbr_reader r[READERS];
	pthread_t th[READERS];

	(void)state;
	qsbr_init(&q);
	slot = obj_new(0);
	stop = false;
	bad = reads = 0;
	for (int i = 0; i < READERS; i++)
		qsbr_register(&q, &r[i]);
	for (int i = 0; i < READERS; i++)
		assert_int_equal(pthread_create(&th[i], NULL, reader, &r[i]), 0);
	/* The readers at work before the writer starts, so that they race it. */
	while (__atomic_load_n(&reads, __ATOMIC_RELAXED) < READERS * 200)
		sleep_ms(1);
	for (unsigned g = 1; g <= ROUNDS; g++) {
		struct obj *old = slot;

		qsbr_publish(slot, obj_new(g));
		qsbr_synchronize(&q);
		/* Poisoned before it goes: a reader that still held it would see DEAD. */
		WRITE_ONCE(old->magic, DEAD);
		free(old);
		/* And the one-call form, freed by qsbr_retire (ASan sees a late read). */
		qsbr_replace(&q, slot, obj_new(g));
	}
	store_release(stop, true);
	for (int i = 0; i < READERS; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(bad, 0);
	assert_true(reads > 0);
	assert_int_equal(slot->gen, ROUNDS);
	free(slot);
}

static bool held_done;

/* Online for 200 ms, then offline. */
static void *holder(void *arg)
{
	struct qsbr_reader *r = arg;

	qsbr_online(&q, r);
	store_release(held_done, false);
	store_release(ready, true);	/* online now */
	sleep_ms(200);
	store_release(held_done, true);
	qsbr_offline(r);
	return NULL;
}

static void test_synchronize_waits_for_online_reader(void **state)
{
	struct qsbr_reader r;
	pthread_t th;
	uint64_t t0;

	(void)state;
	qsbr_init(&q);
	qsbr_register(&q, &r);
	ready = false;
	held_done = false;
	assert_int_equal(pthread_create(&th, NULL, holder, &r), 0);
	while (!load_acquire(ready))
		sleep_ms(1);
	t0 = ms_now();
	qsbr_synchronize(&q);
	assert_true(load_acquire(held_done));
	assert_true(ms_now() - t0 >= 100);
	pthread_join(th, NULL);
}

static bool parked_go;

/* Offline (blocked, as a worker in epoll_wait) until told. */
static void *parked(void *arg)
{
	struct qsbr_reader *r = arg;

	qsbr_online(&q, r);
	qsbr_offline(r);
	store_release(ready, true);
	while (!load_acquire(parked_go))
		sleep_ms(1);
	return NULL;
}

static void test_offline_reader_does_not_hold(void **state)
{
	struct qsbr_reader r, never;
	pthread_t th;
	uint64_t t0;

	(void)state;
	qsbr_init(&q);
	qsbr_register(&q, &r);
	qsbr_register(&q, &never);	/* registered, its thread not started: offline */
	ready = false;
	parked_go = false;
	assert_int_equal(pthread_create(&th, NULL, parked, &r), 0);
	while (!load_acquire(ready))
		sleep_ms(1);
	t0 = ms_now();
	for (int i = 0; i < 10; i++)
		qsbr_synchronize(&q);
	assert_true(ms_now() - t0 < 1000);
	store_release(parked_go, true);
	pthread_join(th, NULL);
}

static void test_retire_null_and_unregistered(void **state)
{
	struct qsbr_reader r, gone;
	uint64_t t0;

	(void)state;
	qsbr_init(&q);
	qsbr_register(&q, &r);
	qsbr_register(&q, &gone);
	/* Online on this very thread, forever: a synchronize would never end. */
	qsbr_online(&q, &r);
	t0 = ms_now();
	qsbr_retire(&q, NULL);
	assert_true(ms_now() - t0 < 1000);
	qsbr_offline(&r);
	/* An unregistered reader, however online, holds nothing up. */
	qsbr_online(&q, &gone);
	qsbr_unregister(&q, &gone);
	qsbr_retire(&q, malloc(16));
	assert_ptr_equal(q.readers, &r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reader_never_sees_freed),
		cmocka_unit_test(test_synchronize_waits_for_online_reader),
		cmocka_unit_test(test_offline_reader_does_not_hold),
		cmocka_unit_test(test_retire_null_and_unregistered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
