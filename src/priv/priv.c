/* SPDX-License-Identifier: MIT */
#include "priv/priv.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/netlink.h>
#include <linux/nsfs.h>
#include <net/if.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <pwd.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <termios.h>
#include <ucontext.h>
#include <unistd.h>

#include "os/log.h"
#include "os/sock.h"

/* The sanitizers' runtimes make calls of their own (LeakSanitizer stops the world with ptrace). */
#if defined(__SANITIZE_ADDRESS__)
#define SITD_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SITD_SANITIZED 1
#endif
#endif

/* A refused call traps (SIGSYS) where the handler can set its return value. */
#if (defined(__x86_64__) || defined(__aarch64__)) && !defined(SITD_SANITIZED)
#define SITD_TRAP 1
#endif

static void drop_user(uid_t uid, gid_t gid)
{
	if (setgroups(0, NULL) < 0 || setresgid(gid, gid, gid) < 0 || setresuid(uid, uid, uid) < 0)
		log_fatal("cannot become uid %u, gid %u", (unsigned)uid, (unsigned)gid);
}

static bool has_cap(cap_value_t c, cap_flag_t set)
{
	cap_t now = cap_get_proc();
	cap_flag_value_t v = CAP_CLEAR;

	if (now) {
		(void)cap_get_flag(now, c, set, &v);
		cap_free(now);
	}
	return v == CAP_SET;
}

/*
 * Nothing can be gained back: keep only `keep` in the bounding set and empty the ambient
 * one.  Without CAP_SETPCAP (sitd started unprivileged) there is nothing to drop from.
 */
static void drop_bounding(const cap_value_t *keep, int n)
{
	if (has_cap(CAP_SETPCAP, CAP_EFFECTIVE)) {
		for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++) {
			bool kept = false;

			for (int i = 0; i < n; i++)
				kept |= keep[i] == c;
			if (!kept && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
				log_fatal("cannot drop capability %d from the bounding set", c);
		}
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		log_fatal("cannot clear ambient capabilities");
}

/* Exactly `keep`, of those this process has: the rest of every set cleared. */
static void keep_caps(const cap_value_t *keep, int n)
{
	cap_value_t have[8];
	int m = 0;
	cap_t caps;

	for (int i = 0; i < n && m < 8; i++)
		if (has_cap(keep[i], CAP_PERMITTED))
			have[m++] = keep[i];
	caps = cap_init();
	if (!caps)
		log_fatal("cap_init");
	if ((m && (cap_set_flag(caps, CAP_PERMITTED, m, have, CAP_SET) < 0 ||
		   cap_set_flag(caps, CAP_EFFECTIVE, m, have, CAP_SET) < 0)) ||
	    cap_set_proc(caps) < 0)
		log_fatal("cannot reduce capabilities to what sitd needs");
	cap_free(caps);
}

/* ---- refused calls ---------------------------------------------------------------- */

enum { NR_MAX = 1024 };
static _Atomic uint64_t refused[NR_MAX];

size_t priv_refused(struct priv_refused *out, size_t max)
{
	size_t n = 0;

	for (int i = 0; i < NR_MAX && n < max; i++) {
		uint64_t c = atomic_load_explicit(&refused[i], memory_order_relaxed);

		if (c)
			out[n++] = (struct priv_refused){ .nr = i, .count = c };
	}
	return n;
}

const char *priv_syscall_name(int nr, char *buf, size_t len)
{
	char *name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, nr);

	if (name)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "%d", nr);
	free(name);
	return buf;
}

static __thread bool probing;

void priv_probing(bool on)
{
	probing = on;
}

#ifdef SITD_TRAP
/* Async-signal-safe: one write(2) per system call, the first time it is refused. */
static void on_sigsys(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	int nr = si->si_syscall, saved = errno;

	(void)sig;
	if (nr >= 0 && nr < NR_MAX &&
	    atomic_fetch_add_explicit(&refused[nr], 1, memory_order_relaxed) == 0) {
		char msg[96] = "sitd: seccomp refused system call ", digits[12];
		size_t len = strlen(msg), k = 0;
		unsigned v = (unsigned)nr;

		do
			digits[k++] = (char)('0' + v % 10);
		while ((v /= 10) && k < sizeof(digits));
		while (k)
			msg[len++] = digits[--k];
		static const char counted[] = " (counted in `sitd status`)\n";
		static const char probe[] = " (a sandbox probe)\n";
		const char *tail = probing ? probe : counted;
		size_t tl = probing ? sizeof(probe) - 1 : sizeof(counted) - 1;

		memcpy(msg + len, tail, tl);
		len += tl;
		(void)!write(STDERR_FILENO, msg, len);
	}
#if defined(__x86_64__)
	uc->uc_mcontext.gregs[REG_RAX] = -EPERM;
#else
	uc->uc_mcontext.regs[0] = (unsigned long long)-EPERM;
#endif
	errno = saved;
}
#endif

/* ---- the filters ------------------------------------------------------------------ */

#ifndef SITD_SANITIZED
/* Both processes: threads or not, memory, time, signals, exit, logging. */
static const char *const common[] = {
	"read", "write", "readv", "writev", "close", "fstat", "newfstatat", "statx", "lseek",
	"fcntl", "futex", "set_robust_list", "rseq", "mmap", "munmap", "mremap", "mprotect",
	"madvise", "brk", "clock_gettime", "clock_nanosleep", "nanosleep", "gettid", "getpid",
	"getuid", "geteuid", "getrandom", "rt_sigprocmask", "rt_sigreturn", "exit", "exit_group",
	/* a stop (SIGSTOP, a debugger) resumes an interrupted poll() through this one */
	"restart_syscall", "poll", "ppoll", "recvmsg", "sendmsg", "recvfrom", "sendto",
	"getsockopt", "getsockname",
};

/* The packet process, after start. */
static const char *const child_calls[] = {
	"recvmmsg", "sendmmsg", "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait",
	"timerfd_create", "timerfd_settime", "eventfd2", "connect", "accept4", "accept",
	"sched_yield", "rt_sigtimedwait", "signalfd4",
};

/* The monitor. */
static const char *const monitor_calls[] = {
	"unlink", "wait4", "waitid",
};

static void rule(scmp_filter_ctx ctx, uint32_t action, const char *name, unsigned n,
		 const struct scmp_arg_cmp *arg)
{
	int nr = seccomp_syscall_resolve_name(name);

	/* Some names do not exist on every architecture (open, accept on arm64). */
	if (nr != __NR_SCMP_ERROR && seccomp_rule_add_array(ctx, action, nr, n, arg) < 0)
		log_fatalx("seccomp: cannot add a rule for %s", name);
}

static void allow_all(scmp_filter_ctx ctx, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		rule(ctx, SCMP_ACT_ALLOW, names[i], 0, NULL);
}

static void allow_ioctls(scmp_filter_ctx ctx, const unsigned long *req, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct scmp_arg_cmp a = SCMP_A1(SCMP_CMP_EQ, (scmp_datum_t)req[i], 0);

		rule(ctx, SCMP_ACT_ALLOW, "ioctl", 1, &a);
	}
}

static void allow_families(scmp_filter_ctx ctx, const int *fam, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct scmp_arg_cmp a = SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)fam[i], 0);

		rule(ctx, SCMP_ACT_ALLOW, "socket", 1, &a);
	}
}

/* A (level, optname) pair of setsockopt(2). */
struct sockopt {
	int level, name;
};

static void allow_sockopts(scmp_filter_ctx ctx, const struct sockopt *o, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct scmp_arg_cmp a[2] = { SCMP_A1(SCMP_CMP_EQ, (scmp_datum_t)o[i].level, 0),
						   SCMP_A2(SCMP_CMP_EQ, (scmp_datum_t)o[i].name, 0) };

		rule(ctx, SCMP_ACT_ALLOW, "setsockopt", 2, a);
	}
}

/*
 * bind(2)'s address is a pointer seccomp cannot read; its length tells the family apart:
 * sockaddr_nl (12), sockaddr_in (16), sockaddr_in6 (28: the IPv6 send socket's source,
 * txloop.c raw6_bind; the monitor's fou6 port, udp6_rx_open), and for the monitor only
 * sockaddr_ll (20, its rings).  Binding narrows what a socket it already holds receives
 * and names the source its own headers carry: nothing new.  No sockaddr_un of a path:
 * neither process binds one after its filter is in.
 */
static void allow_bind(scmp_filter_ctx ctx, bool monitor)
{
	static const scmp_datum_t lens[] = { sizeof(struct sockaddr_nl), sizeof(struct sockaddr_in),
					     sizeof(struct sockaddr_in6), sizeof(struct sockaddr_ll) };

	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]) - (monitor ? 0 : 1); i++) {
		const struct scmp_arg_cmp a = SCMP_A2(SCMP_CMP_EQ, lens[i], 0);

		rule(ctx, SCMP_ACT_ALLOW, "bind", 1, &a);
	}
}

/* Files opened with none of these flags in `forbid`. */
static void allow_open(scmp_filter_ctx ctx, scmp_datum_t forbid)
{
	const struct scmp_arg_cmp a1 = SCMP_A1(SCMP_CMP_MASKED_EQ, forbid, 0);
	const struct scmp_arg_cmp a2 = SCMP_A2(SCMP_CMP_MASKED_EQ, forbid, 0);

	rule(ctx, SCMP_ACT_ALLOW, "open", 1, &a1);
	rule(ctx, SCMP_ACT_ALLOW, "openat", 1, &a2);
}

static scmp_filter_ctx filter_new(void)
{
	/* Signals to this process's own threads only (raise, abort). */
	const struct scmp_arg_cmp self = SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid(), 0);
	const struct scmp_arg_cmp not_sigsys = SCMP_A0(SCMP_CMP_NE, SIGSYS, 0);
	scmp_filter_ctx ctx;
#ifdef SITD_TRAP
	struct sigaction sa = { .sa_sigaction = on_sigsys, .sa_flags = SA_SIGINFO | SA_RESTART };

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL) < 0)
		log_fatal("sigaction(SIGSYS)");
	ctx = seccomp_init(SCMP_ACT_TRAP);
#else
	ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
#endif
	if (!ctx)
		log_fatalx("seccomp_init failed");
	allow_all(ctx, common, sizeof(common) / sizeof(common[0]));
	rule(ctx, SCMP_ACT_ALLOW, "tgkill", 1, &self);
	/* glibc installs its own handlers with the first thread; SIGSYS's stays ours. */
	rule(ctx, SCMP_ACT_ALLOW, "rt_sigaction", 1, &not_sigsys);
	return ctx;
}

static void filter_load(scmp_filter_ctx ctx)
{
	if (seccomp_load(ctx) < 0)
		log_fatalx("cannot install the seccomp filter");
	seccomp_release(ctx);
}

static void child_filter(void)
{
	/*
	 * Threads only (pthread_create: CLONE_VM | CLONE_THREAD and more), never a process
	 * (clone(SIGCHLD), which would outlive sitd with every fd) nor new namespaces;
	 * clone3 answers ENOSYS, so glibc uses clone.
	 */
	const scmp_datum_t thread = CLONE_VM | CLONE_THREAD;
	const struct scmp_arg_cmp threads = SCMP_A0(SCMP_CMP_MASKED_EQ,
						    thread | CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWNET |
						    CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS |
						    CLONE_NEWCGROUP, thread);
	/*
	 * The options it sets itself: the raw socket's filter (its split with the ring,
	 * bpf.h), the path MTU probe's device (sock.c pmtu_query), FOU's send options
	 * (udp_tx_setup, and DF per packet in txloop.c), the netlink notification socket's
	 * receive buffer (SO_RCVBUF, capped by rmem_max: nl_link_open), a `sitd monitor` client's
	 * send buffer (SO_SNDBUF, cmd/watch.c).  Not IP_HDRINCL (raw sockets come
	 * with it set), IPV6_HDRINCL, PACKET_ADD_MEMBERSHIP, SO_DETACH_FILTER, and nothing of
	 * SOL_PACKET: its AF_PACKET sockets come from the monitor made and locked.
	 */
	static const struct sockopt opts[] = {
		{ SOL_SOCKET, SO_ATTACH_FILTER }, { SOL_SOCKET, SO_BINDTODEVICE },
		{ SOL_SOCKET, SO_NO_CHECK }, { SOL_IP, IP_MTU_DISCOVER },
		{ SOL_SOCKET, SO_RCVBUF }, { SOL_SOCKET, SO_SNDBUF },
	};
	/* Datagram sockets (ioctls, the path MTU probe, glibc's if_nametoindex) and
	 * NETLINK_ROUTE; AF_PACKET and raw ones come from the monitor. */
	const struct scmp_arg_cmp dgram = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_DGRAM);
	const struct scmp_arg_cmp route = SCMP_A2(SCMP_CMP_EQ, NETLINK_ROUTE, 0);
	/*
	 * Devices: the TUN device's persistence (its removal), MTUs and names read.  Sockets:
	 * UDP and netlink (path MTU queries, notifications, dumps); raw ones come from the
	 * monitor.  Files: read-only (the CPU count); the configuration comes from the monitor.
	 */
	static const unsigned long ioctls[] = { TUNSETPERSIST, SIOCGIFMTU, SIOCGIFINDEX,
						SIOCGIFNAME, SIOCGIFHWADDR, SIOCGIFFLAGS, TCGETS,
						FIONREAD,
						/* keepalive: the carrier (no capability: tun.c
						 * takes it on the attached fd), the device's IPv4
						 * address for the echo's source */
						TUNSETCARRIER, SIOCGIFADDR };
	static const int families[] = { AF_UNIX, AF_INET, AF_INET6 };
	scmp_filter_ctx ctx = filter_new();

	allow_all(ctx, child_calls, sizeof(child_calls) / sizeof(child_calls[0]));
	rule(ctx, SCMP_ACT_ALLOW, "clone", 1, &threads);
	rule(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, NULL);
	allow_ioctls(ctx, ioctls, sizeof(ioctls) / sizeof(ioctls[0]));
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		const struct scmp_arg_cmp a[2] = { SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)families[i], 0),
						   dgram };

		rule(ctx, SCMP_ACT_ALLOW, "socket", 2, a);
	}
	{
		const struct scmp_arg_cmp a[2] = { SCMP_A0(SCMP_CMP_EQ, AF_NETLINK, 0), route };

		rule(ctx, SCMP_ACT_ALLOW, "socket", 2, a);
	}
	allow_sockopts(ctx, opts, sizeof(opts) / sizeof(opts[0]));
	allow_bind(ctx, false);	/* netlink, the path MTU probe's and raw6_tx's local address */
	allow_open(ctx, O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND);
	filter_load(ctx);
}

static void monitor_filter(pid_t child, bool setns)
{
	/* Signals to the packet process only (forwarded SIGTERM and the like). */
	const struct scmp_arg_cmp to_child = SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)child, 0);
	/* What tun_open(), the sockets of sock.c and the MTU need, and no more. */
	static const unsigned long ioctls[] = { TUNSETIFF, TUNSETVNETHDRSZ, TUNSETOWNER,
						TUNSETPERSIST, TUNSETOFFLOAD, SIOCGIFMTU, SIOCSIFMTU,
						SIOCGIFINDEX, SIOCGIFNAME, TCGETS };
	static const int families[] = { AF_UNIX, AF_INET, AF_INET6, AF_NETLINK, AF_PACKET };
	/* What the sockets of sock.c and monitor.c are opened with (raw IPv4 and IPv6, UDP,
	 * AF_PACKET with its ring and locked filter, ICMPv6), and nothing else. */
	static const struct sockopt opts[] = {
		{ SOL_SOCKET, SO_RCVBUFFORCE }, { SOL_SOCKET, SO_RCVBUF },
		{ SOL_SOCKET, SO_SNDBUFFORCE }, { SOL_SOCKET, SO_SNDBUF },
		{ SOL_SOCKET, SO_BINDTODEVICE }, { SOL_SOCKET, SO_BINDTOIFINDEX },
		{ SOL_SOCKET, SO_NO_CHECK }, { SOL_SOCKET, SO_ATTACH_FILTER },
		{ SOL_SOCKET, SO_LOCK_FILTER }, { SOL_IP, IP_HDRINCL }, { SOL_IP, IP_RECVERR },
		{ SOL_IP, IP_PKTINFO }, { SOL_IP, IP_RECVTOS }, { SOL_IP, IP_MTU_DISCOVER },
		{ SOL_UDP, UDP_GRO }, { SOL_PACKET, PACKET_QDISC_BYPASS },
		{ SOL_PACKET, PACKET_VNET_HDR }, { SOL_PACKET, PACKET_VERSION },
		{ SOL_PACKET, PACKET_RX_RING }, { IPPROTO_IPV6, IPV6_UNICAST_HOPS },
		{ IPPROTO_ICMPV6, ICMP6_FILTER }, { IPPROTO_IPV6, IPV6_HDRINCL },
		{ IPPROTO_IPV6, IPV6_RECVERR }, { IPPROTO_IPV6, IPV6_RECVPKTINFO },
		{ IPPROTO_IPV6, IPV6_RECVTCLASS }, { IPPROTO_IPV6, IPV6_V6ONLY },
		{ SOL_UDP, UDP_NO_CHECK6_RX },
	};
	scmp_filter_ctx ctx = filter_new();

	allow_all(ctx, monitor_calls, sizeof(monitor_calls) / sizeof(monitor_calls[0]));
	allow_sockopts(ctx, opts, sizeof(opts) / sizeof(opts[0]));
	allow_bind(ctx, true);
	rule(ctx, SCMP_ACT_ALLOW, "kill", 1, &to_child);
	allow_ioctls(ctx, ioctls, sizeof(ioctls) / sizeof(ioctls[0]));
	allow_families(ctx, families, sizeof(families) / sizeof(families[0]));
	if (setns) {
		/* `netns`: into a network namespace and back (os/netns.c), each checked first. */
		const struct scmp_arg_cmp net = SCMP_A1(SCMP_CMP_EQ, CLONE_NEWNET, 0);
		static const unsigned long nsioctl[] = { NS_GET_NSTYPE };

		rule(ctx, SCMP_ACT_ALLOW, "setns", 1, &net);
		allow_ioctls(ctx, nsioctl, 1);
	}
	/* /dev/net/tun read-write and the configuration read-only; nothing created. */
	allow_open(ctx, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND);
	filter_load(ctx);
}
#endif

void priv_drop_child(uid_t uid, gid_t gid, pid_t monitor)
{
	drop_bounding(NULL, 0);
	if (uid != (uid_t)-1)
		drop_user(uid, gid);
	/* Without its monitor the packet process stops (SIGTERM: the devices stay).  Set
	 * after the uid change, which clears it; a monitor already gone is seen here too. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0) < 0)
		log_fatal("prctl(PR_SET_PDEATHSIG)");
	if (getppid() != monitor)
		raise(SIGTERM);
	keep_caps(NULL, 0);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		log_fatal("prctl(PR_SET_NO_NEW_PRIVS)");
#ifdef SITD_SANITIZED
	/* A uid change clears it; LeakSanitizer's ptrace needs it at exit. */
	(void)prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	log_warnx("built with sanitizers: no seccomp filter");
#else
	child_filter();
#endif
}

void priv_drop_monitor(pid_t child, bool setns)
{
	/* The devices, addresses and routes; raw and AF_PACKET sockets; UDP ports below 1024
	 * (encap-dport); kill(2) of the packet process, another uid; and with `setns`, a
	 * stanza's netns: setns(2) wants CAP_SYS_ADMIN (net/core/net_namespace.c netns_install),
	 * opening /proc/PID/ns/net of a process with more capabilities CAP_SYS_PTRACE
	 * (ptrace_may_access, PTRACE_MODE_READ_FSCREDS). */
	static const cap_value_t keep[] = { CAP_NET_ADMIN, CAP_NET_RAW, CAP_NET_BIND_SERVICE,
					     CAP_KILL, CAP_SYS_ADMIN, CAP_SYS_PTRACE };
	int n = setns ? 6 : 4;

	drop_bounding(keep, n);
	keep_caps(keep, n);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		log_fatal("prctl(PR_SET_NO_NEW_PRIVS)");
#ifdef SITD_SANITIZED
	(void)child;
	(void)setns;
#else
	monitor_filter(child, setns);
#endif
}
