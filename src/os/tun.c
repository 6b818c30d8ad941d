/* SPDX-License-Identifier: MIT */
#include "os/tun.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/wire.h"

/*
 * Attach a new fd to TUN device `name` with these flags (TUNSETIFF), creating it when
 * there is none.  Busy: another fd holds it.  After a crash or a kill the old packet
 * process may still be letting go (its monitor gone, it stops on SIGTERM): wait for it,
 * 2 s at most, when the device was there (existed); a second sitd running the same
 * device fails after that.  The fd, or -errno.
 */
static int tun_attach(const char *name, short flags, bool existed)
{
	struct ifreq ifr;
	int fd, err;

	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = flags;
	strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
	for (int i = 0; ioctl(fd, TUNSETIFF, &ifr) < 0; i++) {
		if (errno != EBUSY || !existed || i == 40) {
			err = errno;
			close(fd);
			return -err;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 50 * 1000 * 1000 }, NULL);
	}
	return fd;
}

int tun_open(const char *name, bool tso, unsigned *offloads, bool *existed)
{
	/* Richest first: TSO_ECN lets CWR-marked TCP reach us unsegmented too. */
	static const unsigned tries[] = {
		TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 | TUN_F_TSO_ECN,
		TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6,
		TUN_F_CSUM,
	};
	int fd, hdrsz = VNET_HDR_LEN, err;

	/* A device of that name left by an earlier sitd is taken over, as it is. */
	*existed = if_nametoindex(name) != 0;
	fd = tun_attach(name, IFF_TUN | IFF_NO_PI | IFF_VNET_HDR, *existed);
	if (fd < 0)
		return fd;
	/*
	 * Persistent: the device, its ifindex, addresses and routes outlive this fd, so a
	 * restart or a crash of sitd loses none of them (tun_set_iff, TUNSETPERSIST); only
	 * tun_delete() removes it.  Owned by root: with neither owner nor group set,
	 * tun_not_capable lets anyone who can open /dev/net/tun (0666 on Debian) attach to
	 * it whenever sitd does not hold it, in a restart; uid 0 leaves that to root and
	 * CAP_NET_ADMIN.  "No owner" cannot be set back (TUNSETOWNER -1 is EINVAL).
	 */
	if (ioctl(fd, TUNSETVNETHDRSZ, &hdrsz) < 0 || ioctl(fd, TUNSETOWNER, 0UL) < 0 ||
	    ioctl(fd, TUNSETPERSIST, 1) < 0)
		goto fail;
	for (size_t i = tso ? 0 : 2; i < sizeof(tries) / sizeof(tries[0]); i++) {
		if (ioctl(fd, TUNSETOFFLOAD, tries[i]) == 0) {
			*offloads = tries[i];
			return fd;
		}
	}
fail:
	err = errno;
	if (!*existed)
		(void)ioctl(fd, TUNSETPERSIST, 0);
	close(fd);
	return -err;
}

int tun_remove(const char *name, bool tap, bool multi_queue)
{
	/* TUNSETIFF must match the device's type and queueing, or tun_set_iff says EINVAL. */
	int fd = tun_attach(name, (short)((tap ? IFF_TAP : IFF_TUN) | IFF_NO_PI |
					  (multi_queue ? IFF_MULTI_QUEUE : 0)), true);

	if (fd < 0)
		return fd;
	/* Not persistent, the last fd closed: __tun_detach unregisters it, now. */
	return tun_delete(fd);
}

int tun_delete(int fd)
{
	/* No longer persistent: the device goes with the last fd, now. */
	int r = ioctl(fd, TUNSETPERSIST, 0) < 0 ? -errno : 0;

	close(fd);
	return r;
}

/*
 * One SIOC[GS]IF* ioctl on socket `at`, in the namespace that socket is of (sock_ioctl
 * falls back to dev_ioctl(sock_net(sk)) for a family without its own), or, at < 0, on a
 * socket of its own: 0 or -errno.
 */
static int ifreq_ioctl_at(int at, const char *name, unsigned long req, struct ifreq *ifr)
{
	int fd = at >= 0 ? at : socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r;

	if (fd < 0)
		return -errno;
	strncpy(ifr->ifr_name, name, IFNAMSIZ - 1);
	r = ioctl(fd, req, ifr) < 0 ? -errno : 0;
	if (at < 0)
		close(fd);
	return r;
}

static int ifreq_ioctl(const char *name, unsigned long req, struct ifreq *ifr)
{
	return ifreq_ioctl_at(-1, name, req, ifr);
}

int link_is_up_at(int at, const char *name)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	return ifreq_ioctl_at(at, name, SIOCGIFFLAGS, &ifr) == 0 && (ifr.ifr_flags & IFF_UP);
}

int link_is_up(const char *name)
{
	return link_is_up_at(-1, name);
}

int link_get_mtu_at(int at, const char *name)
{
	struct ifreq ifr;
	int r;

	memset(&ifr, 0, sizeof(ifr));
	if ((r = ifreq_ioctl_at(at, name, SIOCGIFMTU, &ifr)) < 0)
		return r;
	return ifr.ifr_mtu;
}

int link_index_at(int at, const char *name)
{
	struct ifreq ifr;
	int r;

	memset(&ifr, 0, sizeof(ifr));
	if ((r = ifreq_ioctl_at(at, name, SIOCGIFINDEX, &ifr)) < 0)
		return r;
	return ifr.ifr_ifindex;
}

int link_get_ether(const char *name, uint8_t mac[6])
{
	struct ifreq ifr;
	int r;

	memset(&ifr, 0, sizeof(ifr));
	if ((r = ifreq_ioctl(name, SIOCGIFHWADDR, &ifr)) < 0)
		return r;
	if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER)
		return -EAFNOSUPPORT;
	memcpy(mac, ifr.ifr_hwaddr.sa_data, 6);
	return 0;
}

int link_get_mtu(const char *name)
{
	return link_get_mtu_at(-1, name);
}

int link_set_mtu(const char *name, unsigned mtu)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_mtu = (int)mtu;
	return ifreq_ioctl(name, SIOCSIFMTU, &ifr);
}

int tun_set_carrier(int fd, bool on)
{
	int v = on;

	return ioctl(fd, TUNSETCARRIER, &v) < 0 ? -errno : 0;
}

int link_get_addr4(const char *name, uint8_t addr[4])
{
	struct ifreq ifr;
	struct sockaddr_in sin;
	int r;

	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_addr.sa_family = AF_INET;
	if ((r = ifreq_ioctl(name, SIOCGIFADDR, &ifr)) < 0)
		return r;
	memcpy(&sin, &ifr.ifr_addr, sizeof(sin));
	memcpy(addr, &sin.sin_addr, 4);
	return 0;
}
