/* SPDX-License-Identifier: MIT */
/*
 * ISATAP (RFC 5214): the device's interface identifier, and the router solicitations to
 * the PRL, on the control thread.
 */
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "daemon/internal.h"
#include "os/log.h"
#include "priv/privsep.h"

/*
 * The u bit of an ISATAP interface identifier (RFC 5214 6.1): 1 for a globally unique
 * IPv4 address, 0 for the private, special and documentation ranges isatap_ifid() lists.
 */
bool isatap_global(uint32_t a)
{
	return !((a >> 24) == 0 || (a >> 24) == 10 || (a >> 24) == 127 || (a >> 16) == 0xa9fe ||
		 (a >> 20) == 0xac1 || (a >> 8) == 0xc00002 || (a >> 8) == 0xc05863 ||
		 (a >> 16) == 0xc0a8 || (a >> 17) == (0xc612 >> 1) || (a >> 8) == 0xc63364 ||
		 (a >> 8) == 0xcb0071 || (a >> 28) == 0xe || a == 0xffffffffu);
}

/* An ISATAP device: its own link-local only, and the token SLAAC builds addresses from. */
void isatap_setup(const struct tunnel *t)
{
	static const uint8_t zero[8];
	uint8_t token[16];
	int r;

	sitd_isatap_addr(zero, t->conf.local, isatap_global(t->conf.local), token);
	r = ps_isatap_setup(t->ifindex, token);
	if (r < 0)
		log_warnx("%s: cannot set the ISATAP interface identifier: %s", t->conf.name, strerror(-r));
}

/*
 * The monitor's ICMPv6 socket for this device alone (SO_BINDTOIFINDEX), hop limit 255
 * (RFC 4861 6.1.1), receiving nothing: a raw ICMPv6 socket held by every packet process
 * could send neighbour discovery anywhere.  Without it the tunnel runs and solicits none.
 */
void isatap_open(struct tunnel *t)
{
	int fd = ps_icmp6_dev_open(t->ifindex);

	if (fd < 0)
		log_warnx("%s: no ICMPv6 socket, so no router solicitations: %s", t->conf.name,
			  strerror(-fd));
	t->icmp6_fd = fd < 0 ? -1 : fd;
}

/*
 * ISATAP hosts solicit the routers of their PRL, at their ISATAP link-local addresses
 * (RFC 5214, router and prefix discovery), as isatapd does for the kernel's ISATAP device: the kernel would send
 * its solicitation to ff02::2, which an NBMA link cannot carry.  Three a second apart,
 * then one a minute; the answers come back through the tunnel like any packet.
 */
void isatap_solicit(struct tunnel *t, uint64_t now)
{
	static const uint8_t fe80[8] = { 0xfe, 0x80 };
	const uint8_t rs[8] = { 133 };	/* RFC 4861 4.1; the kernel fills the checksum */

	if (!t->prl || now < t->rs_next || t->icmp6_fd < 0)
		return;
	for (uint32_t k = 0; k < t->prl->prl.n; k++) {
		struct sockaddr_in6 to = { .sin6_family = AF_INET6, .sin6_scope_id = t->ifindex };
		uint32_t v4 = t->prl->prl.e[k].addr;

		sitd_isatap_addr(fe80, v4, isatap_global(v4), to.sin6_addr.s6_addr);
		if (sendto(t->icmp6_fd, rs, sizeof(rs), 0, (struct sockaddr *)&to, sizeof(to)) < 0 &&
		    t->rs_sent == 0)
			log_warn("%s: cannot solicit PRL router %u.%u.%u.%u", t->conf.name, v4 >> 24,
				 (v4 >> 16) & 0xff, (v4 >> 8) & 0xff, v4 & 0xff);
	}
	t->rs_sent++;
	t->rs_next = now + (t->rs_sent < 3 ? 1000000000ull : 60000000000ull);
}
