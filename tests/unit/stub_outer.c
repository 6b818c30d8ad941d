/* SPDX-License-Identifier: MIT */
/* Stubs of what outer.c calls below it, for test_outer.c (stub_outer.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "daemon/internal.h"
#include "os/log.h"
#include "os/sock.h"
#include "priv/privsep.h"
#include "stub_outer.h"

struct stub_outer stub;

/* As the monitor's stubs answer: an fd, or -errno. */
static int fake_socket(void)
{
	int fd;

	if (stub.fail_open)
		return -EPERM;
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	stub.opened++;
	return fd;
}

int ps_raw_open(uint8_t proto)
{
	(void)proto;
	return fake_socket();
}

int ps_raw6_open(uint8_t proto)
{
	(void)proto;
	return fake_socket();
}

int ps_udp_rx_open(uint16_t port)
{
	(void)port;
	return fake_socket();
}

int ps_udp6_rx_open(uint16_t port)
{
	(void)port;
	return fake_socket();
}

int ps_icmp6_ptb_open(void)
{
	return fake_socket();
}

int ps_ring_open(uint8_t proto)
{
	(void)proto;
	return -ENOSYS;
}

int ring_map(int fd, uint8_t **map)
{
	(void)fd;
	(void)map;
	errno = ENOSYS;
	return -1;
}

int sock_filter_set(int fd, struct sock_filter *f, unsigned n)
{
	(void)fd;
	(void)f;
	(void)n;
	return 0;
}

int udp_tx_setup(int fd, int pmtudisc_mode, int csum)
{
	(void)fd;
	(void)pmtudisc_mode;
	(void)csum;
	stub.tx_setups++;
	return stub.fail_tx_setup ? -EIO : 0;
}

int worker_watch(struct sitd_daemon *d, unsigned i, int fd, uint32_t events, void *p,
		 enum ev_tag tag)
{
	(void)d;
	(void)fd;
	(void)events;
	(void)p;
	(void)tag;
	if (stub.fail_watch)
		return -ENOMEM;
	stub.watched++;
	stub.last_worker = i;
	return 0;
}

void worker_unwatch(struct sitd_daemon *d, unsigned i, int fd)
{
	(void)d;
	(void)i;
	(void)fd;
	stub.unwatched++;
}

void log_info(const char *fmt, ...)
{
	(void)fmt;
}

void log_warn(const char *fmt, ...)
{
	(void)fmt;
	stub.warnings++;
}

void log_warnx(const char *fmt, ...)
{
	(void)fmt;
	stub.warnings++;
}

void log_warn_errno(int err, const char *fmt, ...)
{
	(void)err;
	(void)fmt;
	stub.warnings++;
}
