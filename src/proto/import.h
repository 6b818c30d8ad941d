/* SPDX-License-Identifier: MIT */
/*
 * `sitd import`: the configurations tunnel brokers hand out, translated into sitd.conf(5)
 * stanzas.  Two sources:
 *
 *  - Debian's ifupdown, interfaces(5): `iface NAME inet6 v4tunnel` (ifupdown's inet6.defn:
 *    address, netmask, endpoint, local, ttl, mtu, gateway, metric) and `iface NAME inet
 *    tunnel` (inet.defn: mode ipip, address, netmask, endpoint, local, ttl, mtu, gateway,
 *    metric).  Other interfaces of the file are not tunnels and are skipped.
 *  - systemd-networkd: .netdev files of Kind=sit or ipip (systemd.netdev(5): [NetDev]
 *    Name=, Kind=, MTUBytes=; [Tunnel] Local=, Remote=, TTL=, DiscoverPathMTU=,
 *    IPv6RapidDeploymentPrefix=, ISATAP=, Independent=, FooOverUDP=, FOUDestinationPort=,
 *    FOUSourcePort=, Encapsulation=) and the .network files that go with them
 *    (systemd.network(5): the tunnel's own [Match] Name=, [Network] Address= and Gateway=,
 *    [Address] Address=, [Route] Destination=, Gateway=, Metric=, Table=; an underlay's
 *    [Network] Tunnel=, which binds the tunnel to it: `dev`).
 *
 * What sitd cannot express is refused, never guessed: every such line gives one
 * "FILE:LINE: message\n" in err, and then nothing is written to out.  Each stanza written
 * has been parsed back by sitd_config_parse, so what is printed is what sitd would run.
 * Pure: the caller reads the files and prints.
 */
#ifndef SITD_IMPORT_H
#define SITD_IMPORT_H

#include <stddef.h>

struct sitd_import_file {
	const char *name;	/* as the user gave it: the FILE of FILE:LINE */
	const char *text;
	size_t len;
};

/*
 * One interfaces(5) file.  Returns the number of tunnels written to out (NUL-terminated),
 * or -1 with one line per refusal in err (NUL-terminated; cut short, with a last line
 * saying so, when errcap is too small) and out "".
 */
int sitd_import_ifupdown(const struct sitd_import_file *f, char *out, size_t outcap, char *err,
			 size_t errcap);

/*
 * .netdev and .network files (told apart by their names' suffix), in any order: one
 * stanza per .netdev.  As sitd_import_ifupdown.
 */
int sitd_import_networkd(const struct sitd_import_file *files, unsigned nfiles, char *out,
			 size_t outcap, char *err, size_t errcap);

#endif
