/* SPDX-License-Identifier: MIT */
/*
 * The command line, in `ip tunnel` grammar:
 *
 *   sitd [name] NAME [mode {sit|ipip|any|isatap}] remote {ADDR|any} [local {ADDR|any}]
 *        [ttl {1..255|inherit}] [tos {00..ff|inherit|inherit/00..ff}]
 *        [pmtudisc|nopmtudisc] [dev IFACE] [mtu N]
 *        [encap {fou|gue|none}] [encap-sport {PORT|auto}] [encap-dport PORT]
 *        [[no]encap-csum] [[no]encap-udp6-csum] [noencap-remcsum] [nogso] [nogro] [takeover]
 *        [6rd-prefix P[/L]] [6rd-relay_prefix A[/L]] [6rd-reset]
 *        [{prl-default|prl-nodefault} ADDR]... [address ADDR[/LEN]]...
 *        [route PREFIX[/LEN] [via ADDR] [metric N] [table N]]...
 *
 * and over an IPv6 underlay in `ip -6 tunnel` grammar (ip/ip6tunnel.c, the kernel's
 * ip6tnl):
 *
 *   sitd [name] NAME [mode {ip6ip6|ipip6|any}] remote ADDR6 [local {ADDR6|any}]
 *        [encaplimit {none|0..255}] [hoplimit {0..255|inherit}] [tclass {0x00..0xff|inherit}]
 *        [flowlabel {0x0..0xfffff|inherit}] [dscp inherit] [[no]allow-localremote]
 *        [dev IFACE] [mtu N] [nogso] [nogro] [takeover] [address ...]... [route ...]...
 *
 * Keywords and aliases as iproute2 spells them (hoplimit and hlim for ttl, tclass and
 * dsfield for tos, and for IPv6 tc, fl for flowlabel; ipv6/ip and ip6ip for sit, ip/ip for
 * ipip; ipv6/ipv6 for ip6ip6, ip4ip6, ip/ipv6 and ipv4/ipv6 for ipip6, any/ipv6), matched
 * exactly: no prefixes.  The underlay is IPv6 for the IPv6 modes, and for mode any (or no
 * mode and a name that says neither sit nor ipip: ip6ip6, as ip -6 tunnel) when the
 * addresses are IPv6; both ends are of one family, and each underlay refuses the other's
 * words.  IPv6 defaults as ip -6 tunnel add: hoplimit 64, encaplimit 4, tclass 0x00,
 * flowlabel 0x00000.  remote any is 6to4 / 6rd (mode sit, no encap), with the 6rd words of
 * `ip tunnel 6rd` (proto/sixrd_cmd.h), not with encap; over IPv6 it is ip6tnl's NBMA
 * tunnel and needs local.  mode isatap is
 * remote any by default and needs local, and only it takes a PRL (the prl words of `ip
 * tunnel prl`).  address and route (IPv6 or IPv4) are put on the tunnel device.  nogso and
 * nogro are sitd's own: no TSO on the TUN device (the kernel then segments, as with
 * `ethtool -K NAME tso off`), no merging on receive; so is takeover: an existing TUN
 * device another owner or group may attach to is made anew, not refused.  Pure: no I/O, the error is returned
 * as text.
 */
#ifndef SITD_CLI_H
#define SITD_CLI_H

#include <stddef.h>

#include "core/conf.h"

/* Defaults as `ip tunnel add` has them: ttl inherit, tos 0, pmtudisc. */
void sitd_conf_defaults(struct sitd_conf *c);

/*
 * Parse the arguments after the program name into *c.  Returns 0, or -1 with one line
 * naming the bad argument in err.
 */
int sitd_cli_parse(int argc, const char *const *argv, struct sitd_conf *c, char *err, size_t errlen);

/* The same, also saying which argument was bad (*bad), or -1 when the whole line is. */
int sitd_cli_parse_at(int argc, const char *const *argv, struct sitd_conf *c, char *err, size_t errlen,
		      int *bad);

/*
 * Format the tunnel as `ip tunnel show` does ("NAME: ipv6/ip remote A local B ttl inherit"),
 * or `ip -6 tunnel show` ("NAME: ipv6/ipv6 remote A local B encaplimit 4 hoplimit 64 tclass
 * 0x00 flowlabel 0x00000 (flowinfo 0x00000000)").  For an IPv6 underlay every word parses
 * back to the same configuration, given "name" before the name and "mode" before the mode,
 * the flowinfo (a sum of tclass and flowlabel) left out.  Returns the length written, cut
 * to fit len (always NUL-terminated when len > 0).
 */
size_t sitd_conf_format(const struct sitd_conf *c, char *buf, size_t len);

#endif
