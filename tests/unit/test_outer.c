/* SPDX-License-Identifier: MIT */
/*
 * outer.c behind stubs of its sockets and the workers' epoll sets (stub_outer.c): one
 * receive path per outer protocol and per FOU/GUE port, shared by reference and released
 * by the last tunnel; a port is fou or gue, never both (as `ip fou add`); tunnels that
 * send from the port agree on its send options; and outer_rebuild publishes a table per
 * path from the running tunnels, handing back the one it replaces, or refuses two
 * tunnels with the same remote, local and device (the kernel's EEXIST).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/internal.h"
#include "stub_outer.h"

static struct sitd_daemon d;

static int setup(void **state)
{
	(void)state;
	memset(&d, 0, sizeof(d));
	memset(&stub, 0, sizeof(stub));
	d.nw = 3;
	d.next_udp_worker = 1;
	return 0;
}

static bool fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

static unsigned npaths(void)
{
	unsigned n = 0;

	for (const struct outer *o = d.outers; o; o = o->next)
		n++;
	return n;
}

static struct sitd_conf sit(uint32_t remote)
{
	return (struct sitd_conf){ .name = "t", .mode = SITD_MODE_SIT, .remote = remote,
				   .pmtudisc = true };
}

static struct sitd_conf udp(enum sitd_encap e, uint16_t dport, uint16_t sport, bool csum)
{
	return (struct sitd_conf){ .name = "u", .mode = SITD_MODE_SIT, .remote = 0x0a000002,
				   .encap = e, .encap_dport = dport, .encap_sport = sport,
				   .encap_csum = csum, .pmtudisc = true };
}

static void test_raw_shared_and_released(void **state)
{
	struct sitd_conf c = sit(0x0a000002);
	struct outer *closing = NULL, *a, *b, *four;
	int fd;

	(void)state;
	a = outer_get(&d, &c, OUTER_RAW41, &closing);
	b = outer_get(&d, &c, OUTER_RAW41, &closing);
	assert_non_null(a);
	assert_ptr_equal(a, b);
	assert_int_equal(a->refs, 2);
	assert_int_equal(a->worker, 0);		/* the raw sockets' worker */
	assert_int_equal(stub.opened, 1);
	assert_int_equal(stub.watched, 1);
	four = outer_get(&d, &c, OUTER_RAW4, &closing);
	assert_ptr_not_equal(four, a);
	assert_int_equal(npaths(), 2);
	fd = a->fd;

	outer_put(&d, a, &closing);
	assert_int_equal(a->refs, 1);
	assert_null(closing);
	assert_int_equal(stub.unwatched, 0);
	outer_put(&d, b, &closing);
	/* The last reference: out of the list and of epoll, closed after the grace period. */
	assert_ptr_equal(closing, a);
	assert_int_equal(npaths(), 1);
	assert_ptr_equal(d.outers, four);
	assert_int_equal(stub.unwatched, 1);
	assert_true(fd_open(fd));
	outer_close(closing);
	assert_false(fd_open(fd));

	closing = NULL;
	outer_put(&d, four, &closing);
	outer_put(&d, NULL, &closing);	/* a tunnel without a second path */
	outer_close(closing);
	assert_null(d.outers);
}

/* fou6: a port's IPv6 socket is its own path, apart from IPv4's, with the same clash. */
static void test_udp6_ports(void **state)
{
	struct sitd_conf fou = udp(SITD_ENCAP_FOU, 5555, 0, true);
	struct sitd_conf gue6 = udp(SITD_ENCAP_GUE, 5555, 5555, true);
	struct sitd_conf fou6 = udp(SITD_ENCAP_FOU, 5555, 5555, true);
	struct outer *closing = NULL, *a, *b, *c;

	(void)state;
	gue6.outer = fou6.outer = SITD_OUTER_IPV6;
	a = outer_get(&d, &fou, OUTER_UDP, &closing);
	/* gue over IPv6 on the port IPv4 fou has: another socket (ip fou add -6), allowed. */
	b = outer_get(&d, &gue6, OUTER_UDP6, &closing);
	assert_non_null(a);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	assert_int_equal(b->kind, OUTER_UDP6);
	assert_int_equal(b->port, 5555);
	assert_false(b->tx_set);	/* fou6 sends through the raw socket, never the port's */
	assert_int_equal(stub.opened, 2);
	/* fou over IPv6 on the IPv6 gue port: refused, as for IPv4. */
	assert_null(outer_get(&d, &fou6, OUTER_UDP6, &closing));
	assert_int_equal(stub.warnings, 1);
	c = outer_get(&d, &gue6, OUTER_UDP6, &closing);
	assert_ptr_equal(c, b);
	outer_put(&d, a, &closing);
	outer_put(&d, b, &closing);
	outer_put(&d, c, &closing);
	assert_null(d.outers);
	outer_close(closing);
}

static void test_udp_ports_and_the_fou_gue_clash(void **state)
{
	struct sitd_conf fou = udp(SITD_ENCAP_FOU, 5555, 0, true);
	struct sitd_conf gue = udp(SITD_ENCAP_GUE, 5555, 0, true);
	struct sitd_conf other = udp(SITD_ENCAP_GUE, 6666, 0, true);
	struct outer *closing = NULL, *a, *b, *c;

	(void)state;
	a = outer_get(&d, &fou, OUTER_UDP, &closing);
	assert_non_null(a);
	assert_int_equal(a->port, 5555);
	assert_int_equal(a->worker, 1);
	/* As `ip fou add port 5555` makes the port fou: gue there is refused, nothing taken. */
	assert_null(outer_get(&d, &gue, OUTER_UDP, &closing));
	assert_int_equal(a->refs, 1);
	assert_int_equal(stub.warnings, 1);
	assert_int_equal(stub.opened, 1);
	/* Another port: its own path, on the next worker. */
	b = outer_get(&d, &other, OUTER_UDP, &closing);
	assert_non_null(b);
	assert_ptr_not_equal(a, b);
	assert_int_equal(b->encap, SITD_ENCAP_GUE);
	assert_int_equal(b->worker, 2);
	c = outer_get(&d, &fou, OUTER_UDP, &closing);
	assert_ptr_equal(c, a);
	assert_int_equal(a->refs, 2);
	outer_put(&d, a, &closing);
	outer_put(&d, b, &closing);
	outer_put(&d, c, &closing);
	assert_null(d.outers);
	outer_close(closing);
	assert_int_equal(stub.unwatched, 2);
}

static void test_port_send_options_agree(void **state)
{
	struct sitd_conf one = udp(SITD_ENCAP_FOU, 5555, 5555, true);
	struct sitd_conf nocsum = udp(SITD_ENCAP_FOU, 5555, 5555, false);
	struct sitd_conf own = udp(SITD_ENCAP_FOU, 5555, 0, false);
	struct outer *closing = NULL, *a, *b;

	(void)state;
	a = outer_get(&d, &one, OUTER_UDP, &closing);
	assert_non_null(a);
	assert_true(a->tx_set);
	assert_int_equal(stub.tx_setups, 1);
	b = outer_get(&d, &one, OUTER_UDP, &closing);
	assert_ptr_equal(a, b);
	assert_int_equal(stub.tx_setups, 1);	/* set up once */
	/* Sending from the port with other options: refused, its reference given back. */
	assert_null(outer_get(&d, &nocsum, OUTER_UDP, &closing));
	assert_int_equal(a->refs, 2);
	assert_null(closing);
	/* A tunnel with its own send sockets may differ. */
	assert_ptr_equal(outer_get(&d, &own, OUTER_UDP, &closing), a);
	assert_int_equal(a->refs, 3);
	for (int i = 0; i < 3; i++)
		outer_put(&d, a, &closing);
	assert_ptr_equal(closing, a);
	outer_close(closing);
}

static void test_failures_leave_nothing(void **state)
{
	struct sitd_conf c = sit(0x0a000002);
	struct sitd_conf port = udp(SITD_ENCAP_FOU, 5555, 5555, true);
	struct outer *closing = NULL;

	(void)state;
	stub.fail_open = true;
	assert_null(outer_get(&d, &c, OUTER_RAW41, &closing));
	stub.fail_open = false;
	stub.fail_watch = true;
	assert_null(outer_get(&d, &c, OUTER_RAW41, &closing));
	stub.fail_watch = false;
	assert_null(d.outers);
	assert_null(closing);
	/* The first sender's setup fails: the new path goes again, to close. */
	stub.fail_tx_setup = true;
	assert_null(outer_get(&d, &port, OUTER_UDP, &closing));
	assert_null(d.outers);
	assert_non_null(closing);
	assert_int_equal(closing->refs, 0);
	outer_close(closing);
}

/* A running tunnel on path o, as tunnel_open would have made it. */
static struct tunnel *tunnel_on(struct outer *o, uint32_t remote, uint32_t local)
{
	struct tunnel *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	t->conf = sit(remote);
	t->conf.local = local;
	t->path[0] = o;
	t->up = 1;
	d.t[d.n++] = t;
	return t;
}

static void test_rebuild_publishes_and_hands_back(void **state)
{
	struct sitd_conf c = sit(0x0a000002);
	struct outer *closing = NULL, *o;
	struct tunnel *x, *y, *later, *earlier;
	const struct sitd_table *first;
	void *old[4];
	unsigned nold = 0;
	struct tunnel *table[4];

	(void)state;
	d.t = table;
	o = outer_get(&d, &c, OUTER_RAW41, &closing);
	x = tunnel_on(o, 0x0a000002, 0x0a000001);
	y = tunnel_on(o, 0x0a000003, 0x0a000001);
	o->refs = 2;
	assert_int_equal(outer_rebuild(&d, old, &nold, &later, &earlier), 0);
	/* Published: the table names both; what it replaced (none yet) is handed back. */
	first = qsbr_read(o->table);
	assert_non_null(first);
	assert_int_equal(first->n, 2);
	assert_ptr_equal(sitd_table_lookup(first, 0x0a000003, 0x0a000001, 0), y);
	assert_ptr_equal(sitd_table_lookup(first, 0x0a000002, 0x0a000001, 0), x);
	assert_int_equal(nold, 1);
	assert_null(old[0]);

	/* A reload that removes y: a new table without it, the first one to retire. */
	d.n = 1;
	assert_int_equal(outer_rebuild(&d, old, &nold, &later, &earlier), 0);
	assert_int_equal(nold, 2);
	assert_ptr_equal(old[1], first);
	assert_int_equal(qsbr_read(o->table)->n, 1);
	assert_null(sitd_table_lookup(qsbr_read(o->table), 0x0a000003, 0x0a000001, 0));

	/* Two tunnels with the same remote, local and device: refused, the table unchanged. */
	first = o->table;
	y->conf.remote = x->conf.remote;
	d.n = 2;
	assert_int_equal(outer_rebuild(&d, old, &nold, &later, &earlier), -1);
	assert_ptr_equal(later, y);
	assert_ptr_equal(earlier, x);
	assert_ptr_equal(o->table, first);
	assert_int_equal(nold, 2);

	free(old[1]);
	free(x);
	free(y);
	d.n = 0;
	o->refs = 1;
	outer_put(&d, o, &closing);
	outer_close(closing);	/* frees the table it holds */
	d.t = NULL;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_raw_shared_and_released, setup),
		cmocka_unit_test_setup(test_udp_ports_and_the_fou_gue_clash, setup),
		cmocka_unit_test_setup(test_udp6_ports, setup),
		cmocka_unit_test_setup(test_port_send_options_agree, setup),
		cmocka_unit_test_setup(test_failures_leave_nothing, setup),
		cmocka_unit_test_setup(test_rebuild_publishes_and_hands_back, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
