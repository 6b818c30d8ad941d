/* SPDX-License-Identifier: MIT */
#include "priv.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/socket.h>
#include <grp.h>
#include <pwd.h>
#include <seccomp.h>
#include <stddef.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "log.h"

/* The sanitizers' runtimes make calls of their own (LeakSanitizer stops the world with ptrace). */
#if defined(__SANITIZE_ADDRESS__)
#define SITD_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SITD_SANITIZED 1
#endif
#endif

static void drop_user(const char *user)
{
	struct passwd *pw = getpwnam(user);

	if (!pw)
		log_fatalx("no such user \"%s\"", user);
	/* Keep the permitted capabilities across the uid change; they are cut down below. */
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		log_fatal("prctl(PR_SET_KEEPCAPS)");
	if (setgroups(0, NULL) < 0 || setresgid(pw->pw_gid, pw->pw_gid, pw->pw_gid) < 0 ||
	    setresuid(pw->pw_uid, pw->pw_uid, pw->pw_uid) < 0)
		log_fatal("cannot become user \"%s\"", user);
}

static bool needed(cap_value_t c, bool bind_service)
{
	return c == CAP_NET_ADMIN || c == CAP_NET_RAW || (bind_service && c == CAP_NET_BIND_SERVICE);
}

/* Nothing can be gained back: empty the bounding and ambient sets (needs CAP_SETPCAP). */
static void drop_bounding(bool bind_service)
{
	for (cap_value_t c = 0; c <= CAP_LAST_CAP; c++)
		if (!needed(c, bind_service) && prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			log_fatal("cannot drop capability %d from the bounding set", c);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		log_fatal("cannot clear ambient capabilities");
}

static void keep_caps(bool bind_service)
{
	cap_value_t keep[] = { CAP_NET_ADMIN, CAP_NET_RAW, CAP_NET_BIND_SERVICE };
	int n = bind_service ? 3 : 2;
	cap_t caps = cap_init();

	if (!caps)
		log_fatal("cap_init");
	if (cap_set_flag(caps, CAP_PERMITTED, n, keep, CAP_SET) < 0 ||
	    cap_set_flag(caps, CAP_EFFECTIVE, n, keep, CAP_SET) < 0 || cap_set_proc(caps) < 0)
		log_fatal("cannot reduce capabilities to what sitd needs");
	cap_free(caps);
}

#ifndef SITD_SANITIZED
/* Everything sitd calls after start, glibc's own calls included; some with their
 * arguments checked below. */
static const char *const allowed[] = {
	/* packets and devices */
	"read", "write", "readv", "writev", "recvmsg", "sendmsg", "recvmmsg", "sendmmsg",
	"recvfrom", "sendto", "poll", "ppoll", "ioctl", "epoll_create1", "epoll_ctl",
	"epoll_wait", "epoll_pwait", "timerfd_create", "timerfd_settime",
	/* a reload opens a TUN device, sockets and the config file */
	"close", "fstat", "newfstatat", "statx", "lseek", "fcntl", "bind",
	"connect", "setsockopt", "getsockopt", "getsockname", "eventfd2",
	/* the control socket */
	"accept4", "accept", "unlink",
	/* threads, memory, time, signals, exit */
	"futex", "set_robust_list", "rseq", "mmap", "munmap", "mprotect",
	"madvise", "brk", "clock_gettime", "clock_nanosleep", "nanosleep", "gettid", "getpid",
	"getuid", "sched_yield", "getrandom", "rt_sigprocmask", "rt_sigreturn",
	"rt_sigtimedwait", "exit", "exit_group",
	/* a stop (SIGSTOP, a debugger) resumes an interrupted poll() through this one */
	"restart_syscall",
};

static void rule(scmp_filter_ctx ctx, uint32_t action, const char *name, unsigned n,
		 const struct scmp_arg_cmp *arg)
{
	int nr = seccomp_syscall_resolve_name(name);

	/* Some names do not exist on every architecture (open, accept on arm64). */
	if (nr != __NR_SCMP_ERROR && seccomp_rule_add_array(ctx, action, nr, n, arg) < 0)
		log_fatalx("seccomp: cannot add a rule for %s", name);
}

static void install_seccomp(void)
{
	/*
	 * A call outside the list fails with EPERM rather than killing the process: a path
	 * missed here then fails like any refused call, counted and logged, and a tunnel
	 * other hosts depend on stays up.  The call still does nothing.
	 */
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	/* Files: read, or read and write an existing one (/dev/net/tun); never create,
	 * truncate or open one for writing only or appending. */
	const struct scmp_arg_cmp noflag1 = SCMP_A1(SCMP_CMP_MASKED_EQ,
						    O_CREAT | O_TRUNC | O_WRONLY | O_APPEND, 0);
	const struct scmp_arg_cmp noflag2 = SCMP_A2(SCMP_CMP_MASKED_EQ,
						    O_CREAT | O_TRUNC | O_WRONLY | O_APPEND, 0);
	/* Threads, never new namespaces; clone3 answers ENOSYS, so glibc uses clone. */
	const struct scmp_arg_cmp nons = SCMP_A0(SCMP_CMP_MASKED_EQ,
						 CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWPID |
						 CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP, 0);
	/* Signals to its own threads only. */
	const struct scmp_arg_cmp self = SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)getpid(), 0);
	/* The socket families sitd uses: raw and UDP IPv4, ICMPv6 (ISATAP), netlink, unix. */
	static const int families[] = { AF_UNIX, AF_INET, AF_INET6, AF_NETLINK };

	if (!ctx)
		log_fatalx("seccomp_init failed");
	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		rule(ctx, SCMP_ACT_ALLOW, allowed[i], 0, NULL);
	rule(ctx, SCMP_ACT_ALLOW, "open", 1, &noflag1);
	rule(ctx, SCMP_ACT_ALLOW, "openat", 1, &noflag2);
	rule(ctx, SCMP_ACT_ALLOW, "clone", 1, &nons);
	rule(ctx, SCMP_ACT_ERRNO(ENOSYS), "clone3", 0, NULL);
	rule(ctx, SCMP_ACT_ALLOW, "tgkill", 1, &self);
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++) {
		const struct scmp_arg_cmp fam = SCMP_A0(SCMP_CMP_EQ, (scmp_datum_t)families[i], 0);

		rule(ctx, SCMP_ACT_ALLOW, "socket", 1, &fam);
	}
	if (seccomp_load(ctx) < 0)
		log_fatalx("cannot install the seccomp filter");
	seccomp_release(ctx);
}
#endif

void priv_drop(const char *user, bool bind_service)
{
	drop_bounding(bind_service);
	if (user)
		drop_user(user);
	keep_caps(bind_service);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		log_fatal("prctl(PR_SET_NO_NEW_PRIVS)");
#ifdef SITD_SANITIZED
	log_warnx("built with sanitizers: no seccomp filter");
#else
	install_seccomp();
#endif
}
