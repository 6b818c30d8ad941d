/* SPDX-License-Identifier: MIT */
/*
 * `sitd sandbox`, a check an operator (and the tests) can run on the daemon itself: the
 * packet process tries calls its seccomp filter must refuse (priv.c), then asks the
 * monitor for what it must refuse (monitor.c), and reports what happened.
 */
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cmd/server_int.h"
#include "daemon/daemon.h"
#include "priv/priv.h"
#include "priv/privsep.h"
#include "proto/privmsg.h"

/* One more line of the report, cut (never past cap) when it does not fit. */
__attribute__((format(printf, 4, 5)))
static void add(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *len, cap - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n < cap - *len ? (size_t)n : cap - 1 - *len;
}

/* One sandbox probe: what a refused call answers (EPERM), or what it did. */
static void probe_line(char *buf, size_t cap, size_t *len, const char *what, long r, int e)
{
	add(buf, cap, len, "  %-50s %s (%s)\n", what,
	    r < 0 && e == EPERM ? "refused" : "allowed", r < 0 ? strerror(e) : "done");
}

/* A request to the monitor: refused with any -errno, or allowed (the stanza asks for it). */
static void monitor_line(char *buf, size_t cap, size_t *len, const char *what, int e)
{
	add(buf, cap, len, "  %-50s %s (%s)\n", what, e ? "refused" : "allowed",
	    e ? strerror(-e) : "done");
}

/* This process's uid and effective capabilities, as the kernel reports them. */
static void identity(char *buf, size_t cap, size_t *len)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256], uid[64] = "?", caps[64] = "?";

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Uid:", 4))
			sscanf(line + 4, "%63s", uid);
		else if (!strncmp(line, "CapEff:", 7))
			sscanf(line + 7, "%63s", caps);
	}
	if (f)
		fclose(f);
	add(buf, cap, len, "packet process: pid %u, uid %s, capabilities %s\n",
	    (unsigned)getpid(), uid, caps);
}

/* setsockopt(2) pairs the packet process never sets (priv.c child_filter). */
static const struct {
	int level, name;
	const char *what;
} opts[] = {
	{ IPPROTO_IPV6, IPV6_HDRINCL, "setsockopt IPV6_HDRINCL (IPv6 from any source)" },
	{ IPPROTO_IP, IP_HDRINCL, "setsockopt IP_HDRINCL (a raw socket's mode)" },
	{ SOL_PACKET, PACKET_ADD_MEMBERSHIP, "setsockopt PACKET_ADD_MEMBERSHIP (promiscuous)" },
	{ SOL_SOCKET, SO_DETACH_FILTER, "setsockopt SO_DETACH_FILTER (a socket's filter)" },
};

/*
 * Calls the packet process must never make, each tried in a form that does nothing where
 * the filter would let it through (it fails later in the kernel instead); then requests
 * the monitor must refuse.  What a reload needs is tested by a reload.
 */
size_t sandbox_report(const struct sitd_daemon *d, char *buf, size_t cap)
{
	struct priv_req mtu_lo = { .type = PRIV_LINK_MTU, .mtu = 1280, .name = "lo" };
	struct priv_req tun_other = { .type = PRIV_TUN_OPEN, .name = "sitdprobe0" };
	/*
	 * A default route into the first tunnel: the hijack its stanza does not ask for.  Via
	 * ff02::1, a gateway the kernel refuses (ip6_validate_gw): nothing is added even if
	 * the monitor let it through.
	 */
	struct priv_req route_own = { .type = PRIV_ROUTE, .flag = 1, .route.dst.family = 6,
				      .route.via = { 0xff, 0x02, [15] = 1 } };
	/* Sockets the configuration does not ask for: the test's has no FOU on port 53, no
	 * ISATAP stanza, and runs without -T packet and -R ring. */
	struct priv_req udp53 = { .type = PRIV_UDP_RX_OPEN, .port = 53 };
	struct priv_req packet = { .type = PRIV_PACKET_TX_OPEN };
	struct priv_req icmp6 = { .type = PRIV_ICMP6_DEV_OPEN, .ifindex = 1 };
	struct priv_req raw_send = { .type = PRIV_RAW_SEND_OPEN };
	struct priv_req metrics = { .type = PRIV_METRICS_LISTEN };
	struct priv_req addr_lo = { .type = PRIV_ADDR, .ifindex = 1, .flag = 1,
				    .route.dst = { .family = 6, .len = 128, .addr = { 0x20, 0x01, 0x0d, 0xb8 } } };
	static const char junk[] = "not a request";
	size_t len = 0;
	long r;
	int e;

	if (!cap)
		return 0;
	buf[0] = '\0';
	if (daemon_count(d))
		route_own.ifindex = if_nametoindex(tunnel_conf(daemon_tunnel(d, 0))->name);
	if (route_own.ifindex)
		icmp6.ifindex = route_own.ifindex;	/* sitd's own device, not ISATAP */
	identity(buf, cap, &len);
	priv_probing(true);
	/* uname(NULL): EFAULT where allowed, EPERM where refused. */
	r = syscall(SYS_uname, NULL);
	e = r < 0 ? errno : 0;
	add(buf, cap, &len, "seccomp: %s (a forbidden call, uname: %s)\n",
	    e == EPERM ? "on" : "off", e ? strerror(e) : "allowed");
	/* "/" is a directory: allowed, these fail with EISDIR and create nothing. */
	r = syscall(SYS_openat, AT_FDCWD, "/", O_CREAT | O_WRONLY, 0600);
	e = errno;
	probe_line(buf, cap, &len, "create a file (O_CREAT)", r, e);
	r = syscall(SYS_openat, AT_FDCWD, "/", O_WRONLY | O_TRUNC);
	e = errno;
	probe_line(buf, cap, &len, "open a file to write (O_WRONLY|O_TRUNC)", r, e);
	r = syscall(SYS_openat, AT_FDCWD, "/", O_RDWR);
	e = errno;
	probe_line(buf, cap, &len, "open a file read-write (O_RDWR)", r, e);
	r = syscall(SYS_openat, AT_FDCWD, "/dev/net/tun", O_RDWR | O_CLOEXEC);
	e = errno;
	if (r >= 0)
		close((int)r);
	probe_line(buf, cap, &len, "open /dev/net/tun (the monitor does)", r, e);
	r = syscall(SYS_socket, AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	e = errno;
	if (r >= 0)
		close((int)r);
	probe_line(buf, cap, &len, "an AF_PACKET socket", r, e);
	r = syscall(SYS_socket, AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	e = errno;
	if (r >= 0)
		close((int)r);
	probe_line(buf, cap, &len, "a raw socket (the monitor opens them)", r, e);
	/* CLONE_NEWUSER with CLONE_FS: EINVAL in the kernel where allowed (copy_process). */
	r = syscall(SYS_clone, CLONE_NEWUSER | CLONE_NEWNET | CLONE_FS, NULL, NULL, NULL, 0);
	e = errno;
	probe_line(buf, cap, &len, "clone into new user and net namespaces", r, e);
	/* Another process's thread group with our own thread id: ESRCH where allowed. */
	r = syscall(SYS_tgkill, 1, syscall(SYS_gettid), 0);
	e = errno;
	probe_line(buf, cap, &len, "signal another process (tgkill)", r, e);
	/* Signal 0 to init: a check only, it sends nothing where allowed. */
	r = syscall(SYS_kill, 1, 0);
	e = errno;
	probe_line(buf, cap, &len, "signal another process (kill)", r, e);
	/* Back to root: as an unprivileged uid the kernel refuses it too. */
	r = syscall(SYS_setresuid, 0, 0, 0);
	e = errno;
	probe_line(buf, cap, &len, "become root again (setresuid)", r, e);
	/* Socket options on fd -1: EBADF where allowed, nothing set. */
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		int on = 1;

		r = setsockopt(-1, opts[i].level, opts[i].name, &on, sizeof(on));
		e = errno;
		probe_line(buf, cap, &len, opts[i].what, r, e);
	}
	/*
	 * On fd -1, EBADF where allowed: a TUN device's owner or group set to the packet
	 * process's uid would let it attach again later, as any uid it names (issue 20); a
	 * bind of an AF_PACKET address (sockaddr_ll), ETH_P_ALL, every frame on every device.
	 */
	r = ioctl(-1, TUNSETOWNER, 65534UL);
	e = errno;
	probe_line(buf, cap, &len, "ioctl TUNSETOWNER (another uid attaches to a TUN)", r, e);
	r = ioctl(-1, TUNSETGROUP, 65534UL);
	e = errno;
	probe_line(buf, cap, &len, "ioctl TUNSETGROUP (a group attaches to a TUN)", r, e);
	{
		struct sockaddr_ll ll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };

		r = bind(-1, (const struct sockaddr *)&ll, sizeof(ll));
		e = errno;
		probe_line(buf, cap, &len, "bind an AF_PACKET address (ETH_P_ALL)", r, e);
	}
	/* A process, not a thread; CLONE_SIGHAND without CLONE_VM: EINVAL where allowed
	 * (copy_process), so none is made. */
	r = syscall(SYS_clone, SIGCHLD | CLONE_SIGHAND, NULL, NULL, NULL, 0);
	e = errno;
	probe_line(buf, cap, &len, "a new process (clone(SIGCHLD))", r, e);
	priv_probing(false);
	monitor_line(buf, cap, &len, "monitor: a TUN device no tunnel is named",
		     ps_raw_request(&tun_other, sizeof(tun_other)));
	if (route_own.ifindex)
		monitor_line(buf, cap, &len, "monitor: a default route into the tunnel",
			     ps_raw_request(&route_own, sizeof(route_own)));
	monitor_line(buf, cap, &len, "monitor: the MTU of lo (not sitd's device)",
		     ps_raw_request(&mtu_lo, sizeof(mtu_lo)));
	monitor_line(buf, cap, &len, "monitor: an address on ifindex 1 (lo)",
		     ps_raw_request(&addr_lo, sizeof(addr_lo)));
	monitor_line(buf, cap, &len, "monitor: a malformed request",
		     ps_raw_request(junk, sizeof(junk)));
	monitor_line(buf, cap, &len, "monitor: an AF_PACKET socket (no -T packet)",
		     ps_raw_request(&packet, sizeof(packet)));
	monitor_line(buf, cap, &len, "monitor: a UDP socket on port 53 (no stanza's)",
		     ps_raw_request(&udp53, sizeof(udp53)));
	monitor_line(buf, cap, &len, "monitor: an ICMPv6 socket (no ISATAP stanza)",
		     ps_raw_request(&icmp6, sizeof(icmp6)));
	/* Without -M none; with it, given once at start: a second listener never. */
	monitor_line(buf, cap, &len, "monitor: the -M socket (none, or given already)",
		     ps_raw_request(&metrics, sizeof(metrics)));
	/* Raw send sockets, one per worker, are opened at start only: asking on to the cap
	 * takes nothing a later reload needs.  Each is closed at once. */
	for (e = 0, r = 0; !e && r < 4096; r++)
		e = ps_raw_request(&raw_send, sizeof(raw_send));
	add(buf, cap, &len, "  %-50s %s (%s, after %ld)\n", "monitor: raw send sockets past the cap",
	    e ? "refused" : "allowed", e ? strerror(-e) : "done", r - 1);
	return len;
}
