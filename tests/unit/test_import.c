/* SPDX-License-Identifier: MIT */
/*
 * `sitd import` (proto/import.h): ifupdown's v4tunnel and tunnel stanzas, systemd-networkd's
 * sit and ipip .netdev files with their .network files, in the shapes tunnel brokers
 * publish (written here with documentation addresses), into sitd.conf stanzas.  Each case
 * gives the files, and either the exact stanzas (which sitd_config_parse must read back as
 * that many tunnels) or the exact refusals, "FILE:LINE: message" in file and line order,
 * with nothing written to out.  Then the buffers' limits: a short out, a short err, more
 * refusals than are kept.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/conf.h"
#include "proto/config.h"
#include "proto/import.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum kind { IFUPDOWN, NETWORKD };
enum { FILES = 12, OUT_LEN = 16384, ERR_LEN = 8192 };

struct import_case {
	const char *name;
	enum kind kind;
	unsigned nfiles;
	struct {
		const char *name, *text;
		size_t len;		/* 0: strlen(text) */
	} files[FILES];
	int n;				/* tunnels, or -1: refused */
	const char *out;
	const char *err;
};

static const struct import_case cases[] = {
	{ "ifupdown: a broker's v4tunnel: address, netmask, endpoint, local, ttl, gateway", IFUPDOWN,
	  1, {
		{ "interfaces",
		  "# A tunnel broker's 6in4 tunnel, as brokers publish it for Debian\n"
		  "auto he-ipv6\n"
		  "iface he-ipv6 inet6 v4tunnel\n"
		  "        address 2001:db8:1234::2\n"
		  "        netmask 64\n"
		  "        endpoint 203.0.113.1\n"
		  "        local 192.0.2.10\n"
		  "        ttl 255\n"
		  "        gateway 2001:db8:1234::1\n", 0 },
	  },
	  1,
	  "# from ifupdown: iface he-ipv6 inet6 v4tunnel\n"
	  "tunnel he-ipv6\n"
	  "\tmode sit\n"
	  "\tremote 203.0.113.1\n"
	  "\tlocal 192.0.2.10\n"
	  "\tttl 255\n"
	  "\taddress 2001:db8:1234::2/64\n"
	  "\troute 2001:db8:1234::1/128\n"
	  "\troute ::/0 via 2001:db8:1234::1\n"
	  "\n",
	  "" },
	{ "ifupdown: v4tunnel with address/LEN, mtu, gateway metric, no local", IFUPDOWN,
	  1, {
		{ "interfaces",
		  "iface sit1 inet6 v4tunnel\n"
		  "\taddress 2001:db8:5::2/48\n"
		  "\tendpoint 198.51.100.1\n"
		  "\tmtu 1472\n"
		  "\tgateway 2001:db8:5::1\n"
		  "\tmetric 100\n", 0 },
	  },
	  1,
	  "# from ifupdown: iface sit1 inet6 v4tunnel\n"
	  "tunnel sit1\n"
	  "\tmode sit\n"
	  "\tremote 198.51.100.1\n"
	  "\tmtu 1472\n"
	  "\taddress 2001:db8:5::2/48\n"
	  "\troute 2001:db8:5::1/128\n"
	  "\troute ::/0 via 2001:db8:5::1 metric 100\n"
	  "\n",
	  "" },
	{ "ifupdown: v4tunnel with a host address (no length: /128) and ttl inherit", IFUPDOWN,
	  1, {
		{ "interfaces",
		  "iface sit2 inet6 v4tunnel\n"
		  "  address 2001:db8:7::2\n"
		  "  endpoint 203.0.113.2\n"
		  "  ttl inherit\n", 0 },
	  },
	  1,
	  "# from ifupdown: iface sit2 inet6 v4tunnel\n"
	  "tunnel sit2\n"
	  "\tmode sit\n"
	  "\tremote 203.0.113.2\n"
	  "\tttl inherit\n"
	  "\taddress 2001:db8:7::2/128\n"
	  "\n",
	  "" },
	{ "ifupdown: ttl 0 is inherit, as ip tunnel's", IFUPDOWN,
	  1, {
		{ "interfaces",
		  "iface sit2 inet6 v4tunnel\n"
		  "  address 2001:db8:7::2/64\n"
		  "  endpoint 203.0.113.2\n"
		  "  ttl 0\n", 0 },
	  },
	  1,
	  "# from ifupdown: iface sit2 inet6 v4tunnel\n"
	  "tunnel sit2\n"
	  "\tmode sit\n"
	  "\tremote 203.0.113.2\n"
	  "\tttl inherit\n"
	  "\taddress 2001:db8:7::2/64\n"
	  "\n",
	  "" },
	{ "ifupdown: inet tunnel mode ipip, dotted netmask, gateway on the prefix, metric", IFUPDOWN,
	  1, {
		{ "interfaces",
		  "iface ipip0 inet tunnel\n"
		  "\tmode ipip\n"
		  "\taddress 198.51.100.1\n"
		  "\tnetmask 255.255.255.252\n"
		  "\tendpoint 203.0.113.7\n"
		  "\tlocal 192.0.2.10\n"
		  "\tttl 64\n"
		  "\tmtu 1480\n"
		  "\tgateway 198.51.100.2\n"
		  "\tmetric 5\n", 0 },
	  },
	  1,
	  "# from ifupdown: iface ipip0 inet tunnel\n"
	  "tunnel ipip0\n"
	  "\tmode ipip\n"
	  "\tremote 203.0.113.7\n"
	  "\tlocal 192.0.2.10\n"
	  "\tttl 64\n"
	  "\tmtu 1480\n"
	  "\taddress 198.51.100.1/30\n"
	  "\troute 0.0.0.0/0 via 198.51.100.2 metric 5\n"
	  "\n",
	  "" },
	{ "ifupdown: inet tunnel mode ip/ip, netmask in bits", IFUPDOWN,
	  1, {
		{ "interfaces",
		  "iface ipip1 inet tunnel\n"
		  "\tmode ip/ip\n"
		  "\taddress 198.51.100.5\n"
		  "\tnetmask 30\n"
		  "\tendpoint 203.0.113.8\n", 0 },
	  },
	  1,
	  "# from ifupdown: iface ipip1 inet tunnel\n"
	  "tunnel ipip1\n"
	  "\tmode ipip\n"
	  "\tremote 203.0.113.8\n"
	  "\taddress 198.51.100.5/30\n"
	  "\n",
	  "" },
	{ "ifupdown: a whole file: lo, eth0, a mapping, auto and allow lines skipped; comments; a continued line", IFUPDOWN,
	  1, {
		{ "interfaces",
		  "# /etc/network/interfaces\n"
		  "auto lo eth0 he-ipv6\n"
		  "allow-hotplug eth1\n"
		  "\n"
		  "iface lo inet loopback\n"
		  "\n"
		  "iface eth0 inet static\n"
		  "    address 192.0.2.10/24\n"
		  "    gateway 192.0.2.1\n"
		  "    dns-nameservers 192.0.2.53\n"
		  "\n"
		  "mapping eth1\n"
		  "    script /usr/local/bin/map-scheme\n"
		  "    map HOME eth1-home\n"
		  "\n"
		  "  # the tunnel\n"
		  "iface he-ipv6 inet6 v4tunnel\n"
		  "    address \\\n"
		  "        2001:db8:1234::2/64\n"
		  "    endpoint 203.0.113.1\r\n"
		  "    # a comment inside the stanza\n"
		  "    local 192.0.2.10\n", 0 },
	  },
	  1,
	  "# from ifupdown: iface he-ipv6 inet6 v4tunnel\n"
	  "tunnel he-ipv6\n"
	  "\tmode sit\n"
	  "\tremote 203.0.113.1\n"
	  "\tlocal 192.0.2.10\n"
	  "\taddress 2001:db8:1234::2/64\n"
	  "\n",
	  "" },
	{ "ifupdown: two tunnels in one file", IFUPDOWN,
	  1, {
		{ "interfaces",
		  "# A tunnel broker's 6in4 tunnel, as brokers publish it for Debian\n"
		  "auto he-ipv6\n"
		  "iface he-ipv6 inet6 v4tunnel\n"
		  "        address 2001:db8:1234::2\n"
		  "        netmask 64\n"
		  "        endpoint 203.0.113.1\n"
		  "        local 192.0.2.10\n"
		  "        ttl 255\n"
		  "        gateway 2001:db8:1234::1\n"
		  "\n"
		  "iface ipip0 inet tunnel\n"
		  "\tmode ipip\n"
		  "\taddress 198.51.100.1\n"
		  "\tnetmask 30\n"
		  "\tendpoint 203.0.113.7\n", 0 },
	  },
	  2,
	  "# from ifupdown: iface he-ipv6 inet6 v4tunnel\n"
	  "tunnel he-ipv6\n"
	  "\tmode sit\n"
	  "\tremote 203.0.113.1\n"
	  "\tlocal 192.0.2.10\n"
	  "\tttl 255\n"
	  "\taddress 2001:db8:1234::2/64\n"
	  "\troute 2001:db8:1234::1/128\n"
	  "\troute ::/0 via 2001:db8:1234::1\n"
	  "\n"
	  "# from ifupdown: iface ipip0 inet tunnel\n"
	  "tunnel ipip0\n"
	  "\tmode ipip\n"
	  "\tremote 203.0.113.7\n"
	  "\taddress 198.51.100.1/30\n"
	  "\n",
	  "" },
	{ "ifupdown: refused: preferred-lifetime, commands, unknown options", IFUPDOWN,
	  1, {
		{ "interfaces",
		  "iface he-ipv6 inet6 v4tunnel\n"
		  "\taddress 2001:db8:1234::2/64\n"
		  "\tendpoint 203.0.113.1\n"
		  "\tpreferred-lifetime 0\n"
		  "\tup ip -6 route add default dev he-ipv6\n"
		  "\tpost-down true\n"
		  "\tdns-nameservers 2001:db8::53\n"
		  "\tmode sit\n", 0 },
	  },
	  -1,
	  "",
	  "interfaces:4: preferred-lifetime: sitd sets no address lifetime\n"
	  "interfaces:5: up: sitd runs no commands; not imported\n"
	  "interfaces:6: post-down: sitd runs no commands; not imported\n"
	  "interfaces:7: option \"dns-nameservers\" of method v4tunnel has no sitd equivalent\n"
	  "interfaces:8: option \"mode\" of method v4tunnel has no sitd equivalent\n" },
	{ "ifupdown: refused: mode gre, dstaddr", IFUPDOWN,
	  1, {
		{ "interfaces",
		  "iface gre1 inet tunnel\n"
		  "\tmode gre\n"
		  "\taddress 198.51.100.1\n"
		  "\tnetmask 30\n"
		  "\tendpoint 203.0.113.7\n"
		  "\tdstaddr 198.51.100.2\n", 0 },
	  },
	  -1,
	  "",
	  "interfaces:2: mode gre: sitd has no GRE, only ipip and sit\n"
	  "interfaces:6: dstaddr (ip addr ... peer): sitd puts no peer address on a device\n" },
	{ "ifupdown: refused: mode sit and mode IPIP for inet tunnel, mode missing", IFUPDOWN,
	  1, {
		{ "interfaces",
		  "iface t1 inet tunnel\n"
		  "\tmode sit\n"
		  "\taddress 198.51.100.1\n"
		  "\tnetmask 30\n"
		  "\tendpoint 203.0.113.7\n"
		  "iface t2 inet tunnel\n"
		  "\tmode IPIP\n"
		  "\taddress 198.51.100.5\n"
		  "\tnetmask 30\n"
		  "\tendpoint 203.0.113.7\n"
		  "iface t3 inet tunnel\n"
		  "\taddress 198.51.100.9\n"
		  "\tnetmask 30\n"
		  "\tendpoint 203.0.113.7\n", 0 },
	  },
	  -1,
	  "",
	  "interfaces:2: mode \"sit\": sitd imports method tunnel with mode ipip (6in4: iface NAME inet6 v4tunnel)\n"
	  "interfaces:7: mode \"IPIP\": sitd imports method tunnel with mode ipip\n"
	  "interfaces:11: method tunnel needs \"mode\" (ipip)\n" },
	{ "ifupdown: refused: endpoint missing, endpoint IPv6, local and ttl and mtu malformed", IFUPDOWN,
	  1, {
		{ "interfaces",
		  "iface t1 inet6 v4tunnel\n"
		  "\taddress 2001:db8::2/64\n"
		  "iface t2 inet6 v4tunnel\n"
		  "\taddress 2001:db8::2/64\n"
		  "\tendpoint 2001:db8::1\n"
		  "\tlocal 192.0.2.300\n"
		  "\tttl 256\n"
		  "\tmtu 1480b\n", 0 },
	  },
	  -1,
	  "",
	  "interfaces:1: method v4tunnel needs \"endpoint\"\n"
	  "interfaces:5: endpoint \"2001:db8::1\": expected an IPv4 address\n"
	  "interfaces:6: local \"192.0.2.300\": expected an IPv4 address\n"
	  "interfaces:7: ttl \"256\": expected 0..255 or inherit\n"
	  "interfaces:8: mtu \"1480b\": expected a number\n" },
	{ "ifupdown: refused: address missing, of the wrong family, /LEN on inet, netmask missing or malformed", IFUPDOWN,
	  1, {
		{ "interfaces",
		  "iface t1 inet6 v4tunnel\n"
		  "\tendpoint 203.0.113.1\n"
		  "iface t2 inet6 v4tunnel\n"
		  "\taddress 192.0.2.1\n"
		  "\tendpoint 203.0.113.1\n"
		  "iface t3 inet tunnel\n"
		  "\tmode ipip\n"
		  "\taddress 198.51.100.1/30\n"
		  "\tendpoint 203.0.113.1\n"
		  "iface t4 inet tunnel\n"
		  "\tmode ipip\n"
		  "\taddress 198.51.100.1\n"
		  "\tendpoint 203.0.113.1\n"
		  "iface t5 inet tunnel\n"
		  "\tmode ipip\n"
		  "\taddress 198.51.100.1\n"
		  "\tnetmask 255.0.255.0\n"
		  "\tendpoint 203.0.113.1\n"
		  "iface t6 inet6 v4tunnel\n"
		  "\taddress 2001:db8::2/64\n"
		  "\tnetmask 129\n"
		  "\tendpoint 203.0.113.1\n"
		  "iface t7 inet6 v4tunnel\n"
		  "\taddress 2001:db8::2/64\n"
		  "\tnetmask 48\n"
		  "\tendpoint 203.0.113.1\n", 0 },
	  },
	  -1,
	  "",
	  "interfaces:1: method v4tunnel needs \"address\"\n"
	  "interfaces:4: address \"192.0.2.1\": expected an IPv6 address[/LEN]\n"
	  "interfaces:8: method tunnel takes the length from \"netmask\", not from address\n"
	  "interfaces:10: method tunnel needs \"netmask\"\n"
	  "interfaces:17: netmask \"255.0.255.0\": expected 0..32 or a dotted quad mask\n"
	  "interfaces:21: netmask \"129\": expected 0..128\n"
	  "interfaces:25: netmask 48 and address's /64 disagree\n" },
	{ "ifupdown: refused: gateway off the prefix (inet: onlink), malformed; metric without gateway", IFUPDOWN,
	  1, {
		{ "interfaces",
		  "iface t1 inet tunnel\n"
		  "\tmode ipip\n"
		  "\taddress 198.51.100.1\n"
		  "\tnetmask 30\n"
		  "\tendpoint 203.0.113.1\n"
		  "\tgateway 198.51.100.9\n"
		  "iface t2 inet6 v4tunnel\n"
		  "\taddress 2001:db8::2/64\n"
		  "\tendpoint 203.0.113.1\n"
		  "\tgateway 198.51.100.9\n"
		  "iface t3 inet6 v4tunnel\n"
		  "\taddress 2001:db8::2/64\n"
		  "\tendpoint 203.0.113.1\n"
		  "\tmetric 7\n"
		  "iface t4 inet6 v4tunnel\n"
		  "\taddress 2001:db8::2/64\n"
		  "\tendpoint 203.0.113.1\n"
		  "\tgateway 2001:db8::1\n"
		  "\tmetric -1\n", 0 },
	  },
	  -1,
	  "",
	  "interfaces:6: gateway 198.51.100.9 is outside 198.51.100.1/30: ifupdown adds it onlink, sitd's routes have no onlink\n"
	  "interfaces:10: gateway \"198.51.100.9\": expected an IPv6 address\n"
	  "interfaces:14: metric is the gateway's route's: no gateway is given\n"
	  "interfaces:19: metric \"-1\": expected a number\n" },
	{ "ifupdown: refused: an option twice, an empty option, a second stanza, 6to4, source, an option outside", IFUPDOWN,
	  1, {
		{ "interfaces",
		  "\taddress 192.0.2.1\n"
		  "iface he-ipv6 inet6 v4tunnel\n"
		  "\taddress 2001:db8::2/64\n"
		  "\taddress 2001:db8::3/64\n"
		  "\tendpoint 203.0.113.1\n"
		  "\tttl\n"
		  "iface he-ipv6 inet static\n"
		  "\taddress 198.51.100.1/24\n"
		  "iface he-ipv6 inet6 v4tunnel\n"
		  "\taddress 2001:db8::2/64\n"
		  "\tendpoint 203.0.113.1\n"
		  "iface tun6to4 inet6 6to4\n"
		  "\tlocal 192.0.2.10\n"
		  "source /etc/network/interfaces.d/*\n", 0 },
	  },
	  -1,
	  "",
	  "interfaces:1: \"address\" outside an iface stanza\n"
	  "interfaces:4: address given twice (first on line 3)\n"
	  "interfaces:6: ttl needs a value\n"
	  "interfaces:7: a second stanza for tunnel he-ipv6 is not imported: give its settings in the tunnel's own\n"
	  "interfaces:9: a second stanza for tunnel he-ipv6 (the first on line 2)\n"
	  "interfaces:12: method 6to4 is not imported (sitd's \"remote any\" is it)\n"
	  "interfaces:14: source: import each included file by itself\n" },
	{ "ifupdown: refused: an iface line with extra words, a name sitd cannot take", IFUPDOWN,
	  1, {
		{ "interfaces",
		  "iface he-ipv6 inet6 v4tunnel extra\n"
		  "\taddress 2001:db8::2/64\n"
		  "\tendpoint 203.0.113.1\n"
		  "iface averyveryverylongname inet6 v4tunnel\n"
		  "\taddress 2001:db8::2/64\n"
		  "\tendpoint 203.0.113.1\n"
		  "iface tunnel inet6 v4tunnel\n"
		  "\taddress 2001:db8::2/64\n"
		  "\tendpoint 203.0.113.1\n", 0 },
	  },
	  -1,
	  "",
	  "interfaces:1: expected \"iface NAME inet6 v4tunnel\"\n"
	  "interfaces:4: \"averyveryverylongname\" is no device name sitd takes\n"
	  "interfaces:7: \"tunnel\" is no device name sitd takes\n" },
	{ "ifupdown: refused by sitd's own parser: an mtu below IPv6's 1280, a keyword as name", IFUPDOWN,
	  1, {
		{ "interfaces",
		  "iface sit1 inet6 v4tunnel\n"
		  "\taddress 2001:db8::2/64\n"
		  "\tendpoint 203.0.113.1\n"
		  "\tmtu 1000\n"
		  "iface mode inet6 v4tunnel\n"
		  "\taddress 2001:db8::2/64\n"
		  "\tendpoint 203.0.113.1\n", 0 },
	  },
	  -1,
	  "",
	  "interfaces:1: sitd refuses it: invalid \"mtu\" value 1000: mode sit takes 1280..65515\n"
	  "interfaces:5: sitd refuses it: unknown tunnel mode \"mode\": expected sit, ipip, any, isatap, ip6ip6 or ipip6\n" },
	{ "ifupdown: refused: a NUL byte", IFUPDOWN,
	  1, {
		{ "interfaces",
		  "iface lo inet loopback\n"
		  "# \0\n", 27 },
	  },
	  -1,
	  "",
	  "interfaces:2: a NUL byte\n" },
	{ "ifupdown: refused: no tunnel in the file", IFUPDOWN,
	  1, {
		{ "interfaces",
		  "auto eth0\n"
		  "iface eth0 inet dhcp\n", 0 },
	  },
	  -1,
	  "",
	  "interfaces:2: no \"iface NAME inet6 v4tunnel\" or \"iface NAME inet tunnel\" stanza\n" },
	{ "networkd: a broker's sit pair: .netdev, .network with Address= and Gateway=", NETWORKD,
	  2, {
		{ "he-ipv6.netdev",
		  "[NetDev]\n"
		  "Name=he-ipv6\n"
		  "Kind=sit\n"
		  "MTUBytes=1480\n"
		  "\n"
		  "[Tunnel]\n"
		  "Local=192.0.2.10\n"
		  "Remote=203.0.113.1\n"
		  "TTL=255\n", 0 },
		{ "he-ipv6.network",
		  "[Match]\n"
		  "Name=he-ipv6\n"
		  "\n"
		  "[Network]\n"
		  "Address=2001:db8:1234::2/64\n"
		  "Gateway=2001:db8:1234::1\n", 0 },
	  },
	  1,
	  "# from systemd-networkd: Kind=sit\n"
	  "tunnel he-ipv6\n"
	  "\tmode sit\n"
	  "\tremote 203.0.113.1\n"
	  "\tlocal 192.0.2.10\n"
	  "\tttl 255\n"
	  "\tmtu 1480\n"
	  "\taddress 2001:db8:1234::2/64\n"
	  "\troute ::/0 via 2001:db8:1234::1\n"
	  "\n",
	  "" },
	{ "networkd: bound by an underlay's Tunnel= (dev), its own settings left alone; [Address] and [Route] sections", NETWORKD,
	  3, {
		{ "eth0.network",
		  "# the underlay\n"
		  "[Match]\n"
		  "Name=eth0\n"
		  "[Network]\n"
		  "DHCP=yes\n"
		  "Tunnel=he-ipv6\n", 0 },
		{ "he-ipv6.network",
		  "[Match]\n"
		  "Name = he-ipv6\n"
		  "[Address]\n"
		  "Address=2001:db8:1234::2/64\n"
		  "[Address]\n"
		  "Address=198.51.100.1/24\n"
		  "[Route]\n"
		  "Destination=2001:db8:99::/48\n"
		  "Gateway=2001:db8:1234::1\n"
		  "Metric=10\n"
		  "Table=100\n"
		  "[Route]\n"
		  "Destination=2001:db8:aa::/48\n"
		  "[Route]\n"
		  "Gateway=198.51.100.254\n"
		  "Table=main\n", 0 },
		{ "he-ipv6.netdev",
		  "; a comment\n"
		  "[NetDev]\n"
		  "Description=broker\n"
		  "Name=he-ipv6\n"
		  "Kind=sit\n"
		  "[Tunnel]\n"
		  "Local=192.0.2.10\n"
		  "Remote=203.0.113.1\n"
		  "DiscoverPathMTU=yes\n", 0 },
	  },
	  1,
	  "# from systemd-networkd: Kind=sit\n"
	  "tunnel he-ipv6\n"
	  "\tmode sit\n"
	  "\tremote 203.0.113.1\n"
	  "\tlocal 192.0.2.10\n"
	  "\tdev eth0\n"
	  "\taddress 2001:db8:1234::2/64\n"
	  "\taddress 198.51.100.1/24\n"
	  "\troute 2001:db8:aa::/48\n"
	  "\troute 2001:db8:99::/48 via 2001:db8:1234::1 metric 10 table 100\n"
	  "\troute 0.0.0.0/0 via 198.51.100.254\n"
	  "\n",
	  "" },
	{ "networkd: ipip in UDP: FooOverUDP, GUE, ports", NETWORKD,
	  1, {
		{ "ipip0.netdev",
		  "[NetDev]\n"
		  "Name=ipip0\n"
		  "Kind=ipip\n"
		  "[Tunnel]\n"
		  "Remote=198.51.100.7\n"
		  "Local=192.0.2.10\n"
		  "Independent=true\n"
		  "FooOverUDP=yes\n"
		  "FOUDestinationPort=5555\n"
		  "FOUSourcePort=4000\n"
		  "Encapsulation=GenericUDPEncapsulation\n", 0 },
	  },
	  1,
	  "# from systemd-networkd: Kind=ipip\n"
	  "tunnel ipip0\n"
	  "\tmode ipip\n"
	  "\tremote 198.51.100.7\n"
	  "\tlocal 192.0.2.10\n"
	  "\tencap gue\n"
	  "\tencap-dport 5555\n"
	  "\tencap-sport 4000\n"
	  "\n",
	  "" },
	{ "networkd: 6rd: no Remote= (any), IPv6RapidDeploymentPrefix=; TTL=0 inherit", NETWORKD,
	  1, {
		{ "6rd.netdev",
		  "[NetDev]\n"
		  "Name=6rd\n"
		  "Kind=sit\n"
		  "[Tunnel]\n"
		  "Local=192.0.2.10\n"
		  "TTL=0\n"
		  "IPv6RapidDeploymentPrefix=2001:db8::/32\n", 0 },
	  },
	  1,
	  "# from systemd-networkd: Kind=sit\n"
	  "tunnel 6rd\n"
	  "\tmode sit\n"
	  "\tremote any\n"
	  "\tlocal 192.0.2.10\n"
	  "\t6rd-prefix 2001:db8::/32\n"
	  "\n",
	  "" },
	{ "networkd: ISATAP=yes; DiscoverPathMTU=no", NETWORKD,
	  2, {
		{ "isatap0.netdev",
		  "[NetDev]\n"
		  "Name=isatap0\n"
		  "Kind=sit\n"
		  "[Tunnel]\n"
		  "Local=192.0.2.10\n"
		  "Remote=any\n"
		  "ISATAP=yes\n", 0 },
		{ "np.netdev",
		  "[NetDev]\n"
		  "Name=np0\n"
		  "Kind=ipip\n"
		  "[Tunnel]\n"
		  "Remote=198.51.100.7\n"
		  "DiscoverPathMTU=off\n", 0 },
	  },
	  2,
	  "# from systemd-networkd: Kind=sit\n"
	  "tunnel isatap0\n"
	  "\tmode isatap\n"
	  "\tremote any\n"
	  "\tlocal 192.0.2.10\n"
	  "\n"
	  "# from systemd-networkd: Kind=ipip\n"
	  "tunnel np0\n"
	  "\tmode ipip\n"
	  "\tremote 198.51.100.7\n"
	  "\tnopmtudisc\n"
	  "\n",
	  "" },
	{ "networkd: refused: Kind=gre, no Name=, [Match] in a .netdev, MACAddress=, TOS=, AssignToLoopback=", NETWORKD,
	  1, {
		{ "a.netdev",
		  "[Match]\n"
		  "Host=router\n"
		  "[NetDev]\n"
		  "Kind=gre\n"
		  "MACAddress=02:00:00:00:00:01\n"
		  "[Tunnel]\n"
		  "Remote=203.0.113.1\n"
		  "TOS=8\n"
		  "AssignToLoopback=yes\n", 0 },
	  },
	  -1,
	  "",
	  "a.netdev:1: section [Match] is not imported\n"
	  "a.netdev:1: no [NetDev] Name=\n"
	  "a.netdev:2: [Match] Host= is not imported: sitd has no such setting\n"
	  "a.netdev:4: Kind=gre: sitd imports sit and ipip\n"
	  "a.netdev:5: [NetDev] MACAddress= is not imported: sitd has no such setting\n"
	  "a.netdev:8: TOS=: networkd does not set it on sit or ipip\n"
	  "a.netdev:9: [Tunnel] AssignToLoopback= is not imported: sitd has no such setting\n" },
	{ "networkd: refused: values: Local=dhcp4, TTL=300, a bad boolean, MTUBytes=1.5K, a bad prefix, a key twice", NETWORKD,
	  1, {
		{ "b.netdev",
		  "[NetDev]\n"
		  "Name=sit1\n"
		  "Kind=sit\n"
		  "MTUBytes=1.5K\n"
		  "[Tunnel]\n"
		  "Local=dhcp4\n"
		  "Remote=203.0.113.1\n"
		  "Remote=203.0.113.2\n"
		  "TTL=300\n"
		  "DiscoverPathMTU=maybe\n"
		  "IPv6RapidDeploymentPrefix=2001:db8::\n", 0 },
	  },
	  -1,
	  "",
	  "b.netdev:4: MTUBytes=1.5K: expected a number of bytes\n"
	  "b.netdev:6: Local=dhcp4: expected an IPv4 address or any\n"
	  "b.netdev:8: Remote= given twice (first on line 7)\n"
	  "b.netdev:9: TTL=300: expected 0..255\n"
	  "b.netdev:10: DiscoverPathMTU=maybe: expected a boolean\n"
	  "b.netdev:11: IPv6RapidDeploymentPrefix=2001:db8::: expected an IPv6 prefix P/L\n" },
	{ "networkd: refused: 6rd and ISATAP on ipip; FOU keys without FooOverUDP=yes; FooOverUDP=yes without its port", NETWORKD,
	  2, {
		{ "c.netdev",
		  "[NetDev]\n"
		  "Name=ipip1\n"
		  "Kind=ipip\n"
		  "[Tunnel]\n"
		  "Remote=198.51.100.7\n"
		  "ISATAP=yes\n"
		  "IPv6RapidDeploymentPrefix=2001:db8::/32\n"
		  "FOUDestinationPort=5555\n"
		  "FOUSourcePort=4000\n"
		  "Encapsulation=FooOverUDP\n", 0 },
		{ "d.netdev",
		  "[NetDev]\n"
		  "Name=ipip2\n"
		  "Kind=ipip\n"
		  "[Tunnel]\n"
		  "Remote=198.51.100.8\n"
		  "FooOverUDP=yes\n", 0 },
	  },
	  -1,
	  "",
	  "c.netdev:6: ISATAP= is for Kind=sit\n"
	  "c.netdev:7: IPv6RapidDeploymentPrefix= is for Kind=sit\n"
	  "c.netdev:8: FOUDestinationPort= without FooOverUDP=yes\n"
	  "c.netdev:9: FOUSourcePort= without FooOverUDP=yes\n"
	  "c.netdev:10: Encapsulation= without FooOverUDP=yes\n"
	  "d.netdev:6: FooOverUDP=yes needs FOUDestinationPort=\n" },
	{ "networkd: refused: the file's syntax: a key before a section, no =, a continued line, a bad header", NETWORKD,
	  1, {
		{ "e.netdev",
		  "Name=x\n"
		  "[NetDev]\n"
		  "Name=sit1\n"
		  "Kind sit\n"
		  "Kind=sit\n"
		  "[Tunnel]\n"
		  "Remote=203.0.113.1 \\\n"
		  "\n"
		  "[Tun\n", 0 },
	  },
	  -1,
	  "",
	  "e.netdev:1: a setting before any [Section]\n"
	  "e.netdev:4: expected \"Key=Value\"\n"
	  "e.netdev:7: a line continued with \"\\\" is not imported\n"
	  "e.netdev:9: expected \"[Section]\"\n" },
	{ "networkd: refused: the tunnel's .network: DHCP=, [Address] Peer=, [Route] GatewayOnLink=, a gateway off-link, two families, an empty [Route]", NETWORKD,
	  2, {
		{ "sit1.netdev",
		  "[NetDev]\n"
		  "Name=sit1\n"
		  "Kind=sit\n"
		  "[Tunnel]\n"
		  "Remote=203.0.113.1\n", 0 },
		{ "sit1.network",
		  "[Match]\n"
		  "Name=sit1\n"
		  "[Network]\n"
		  "DHCP=no\n"
		  "Address=2001:db8::2/64\n"
		  "Gateway=2001:db8:1::1\n"
		  "[Address]\n"
		  "Address=2001:db8:2::2/64\n"
		  "Peer=2001:db8:2::1/128\n"
		  "[Route]\n"
		  "Gateway=2001:db8::1\n"
		  "GatewayOnLink=yes\n"
		  "[Route]\n"
		  "Destination=2001:db8:9::/48\n"
		  "Gateway=198.51.100.1\n"
		  "[Route]\n"
		  "[DHCPv4]\n"
		  "UseDNS=no\n", 0 },
	  },
	  -1,
	  "",
	  "sit1.network:4: [Network] DHCP= is not imported: sitd has no such setting\n"
	  "sit1.network:6: gateway 2001:db8:1::1 is on none of the tunnel's address prefixes; sitd's routes have no onlink\n"
	  "sit1.network:9: [Address] Peer= is not imported: sitd's addresses take only Address=\n"
	  "sit1.network:12: [Route] GatewayOnLink= is not imported: sitd's routes take Destination=, Gateway=, Metric=, Table=\n"
	  "sit1.network:15: Gateway= and Destination= of two families\n"
	  "sit1.network:16: [Route] with neither Destination= nor Gateway=\n"
	  "sit1.network:17: section [DHCPv4] is not imported\n"
	  "sit1.network:18: [DHCPv4] UseDNS= is not imported: sitd has no such setting\n" },
	{ "networkd: refused: which .network goes where: no match, unknown Tunnel=, an underlay with no Name= or a pattern, two .network files, a second binding, [Match] with more than Name=", NETWORKD,
	  11, {
		{ "sit1.netdev",
		  "[NetDev]\n"
		  "Name=sit1\n"
		  "Kind=sit\n"
		  "[Tunnel]\n"
		  "Remote=203.0.113.1\n", 0 },
		{ "sit2.netdev",
		  "[NetDev]\n"
		  "Name=sit2\n"
		  "Kind=sit\n"
		  "[Tunnel]\n"
		  "Remote=203.0.113.2\n"
		  "Independent=yes\n", 0 },
		{ "eth0.network",
		  "[Match]\n"
		  "Name=eth0\n"
		  "[Network]\n"
		  "Tunnel=sit1\n"
		  "Tunnel=sit9\n"
		  "Tunnel=sit2\n", 0 },
		{ "eth1.network",
		  "[Match]\n"
		  "Name=eth1\n"
		  "[Network]\n"
		  "Tunnel=sit1\n", 0 },
		{ "mac.network",
		  "[Match]\n"
		  "MACAddress=02:00:00:00:00:01\n"
		  "[Network]\n"
		  "Tunnel=sit1\n", 0 },
		{ "glob.network",
		  "[Match]\n"
		  "Name=eth*\n"
		  "[Network]\n"
		  "Tunnel=sit1\n", 0 },
		{ "not.network",
		  "[Match]\n"
		  "Name=!eth0\n"
		  "[Network]\n"
		  "Tunnel=sit1\n", 0 },
		{ "wlan0.network",
		  "[Match]\n"
		  "Name=wlan0\n"
		  "[Network]\n"
		  "DHCP=yes\n", 0 },
		{ "sit1.network",
		  "[Match]\n"
		  "Name=sit1\n"
		  "[Network]\n"
		  "Address=2001:db8::2/64\n", 0 },
		{ "sit1-again.network",
		  "[Match]\n"
		  "Name=sit1\n"
		  "[Network]\n"
		  "Address=2001:db8::3/64\n", 0 },
		{ "sit2.network",
		  "[Match]\n"
		  "Name=sit2\n"
		  "Type=sit\n"
		  "[Network]\n"
		  "Address=2001:db8::4/64\n", 0 },
	  },
	  -1,
	  "",
	  "eth0.network:5: Tunnel=sit9: no .netdev given names it\n"
	  "eth0.network:6: Tunnel=sit2: the tunnel is Independent= (sit2.netdev:6)\n"
	  "eth1.network:4: Tunnel=sit1: already bound to eth0 (eth0.network:4)\n"
	  "mac.network:4: Tunnel=sit1: sitd's dev needs this file's [Match] to be one device's Name=, no pattern\n"
	  "glob.network:4: Tunnel=sit1: sitd's dev needs this file's [Match] to be one device's Name=, no pattern\n"
	  "not.network:4: Tunnel=sit1: sitd's dev needs this file's [Match] to be one device's Name=, no pattern\n"
	  "wlan0.network:2: matches no tunnel of the .netdev files given, and names none in [Network] Tunnel=\n"
	  "sit1-again.network:2: a second .network for tunnel sit1\n"
	  "sit2.network:2: [Match] with more than Name=sit2 is not imported\n" },
	{ "networkd: refused: a file neither .netdev nor .network, a tunnel in two .netdev files, Tunnel= on the tunnel", NETWORKD,
	  4, {
		{ "sit1.conf",
		  "[NetDev]\n"
		  "Name=sit1\n", 0 },
		{ "sit1.netdev",
		  "[NetDev]\n"
		  "Name=sit1\n"
		  "Kind=sit\n"
		  "[Tunnel]\n"
		  "Remote=203.0.113.1\n", 0 },
		{ "sit1b.netdev",
		  "[NetDev]\n"
		  "Name=sit1\n"
		  "Kind=sit\n"
		  "[Tunnel]\n"
		  "Remote=203.0.113.2\n", 0 },
		{ "sit1.network",
		  "[Match]\n"
		  "Name=sit1\n"
		  "[Network]\n"
		  "Tunnel=sit1\n", 0 },
	  },
	  -1,
	  "",
	  "sit1.conf:1: neither a .netdev nor a .network\n"
	  "sit1b.netdev:2: tunnel sit1 given twice (sit1.netdev:2)\n"
	  "sit1.network:4: Tunnel= on the tunnel itself: sitd puts no tunnel over another\n" },
	{ "networkd: refused by sitd's own parser: ipip with no Remote= (remote any is sit's)", NETWORKD,
	  1, {
		{ "ipip9.netdev",
		  "[NetDev]\n"
		  "Name=ipip9\n"
		  "Kind=ipip\n"
		  "[Tunnel]\n"
		  "Local=192.0.2.10\n", 0 },
	  },
	  -1,
	  "",
	  "ipip9.netdev:2: sitd refuses it: \"remote any\" (6to4, 6rd) needs mode sit and no encap: IPv4 inside or UDP outside would need a next hop sitd does not know\n" },
	{ "networkd: refused: only .network files", NETWORKD,
	  1, {
		{ "eth0.network",
		  "[Match]\n"
		  "Name=eth0\n", 0 },
	  },
	  -1,
	  "",
	  "eth0.network:2: matches no tunnel of the .netdev files given, and names none in [Network] Tunnel=\n" },

};

static int run(const struct import_case *c, char *out, size_t outcap, char *err, size_t errcap)
{
	struct sitd_import_file f[FILES];

	for (unsigned i = 0; i < c->nfiles; i++)
		f[i] = (struct sitd_import_file){ .name = c->files[i].name, .text = c->files[i].text,
						  .len = c->files[i].len ? c->files[i].len :
						  strlen(c->files[i].text) };
	if (c->kind == IFUPDOWN)
		return sitd_import_ifupdown(&f[0], out, outcap, err, errcap);
	return sitd_import_networkd(f, c->nfiles, out, outcap, err, errcap);
}

static void test_case(void **state)
{
	const struct import_case *c = *state;
	static struct sitd_conf conf[8];
	static char out[OUT_LEN], err[ERR_LEN];
	char msg[256];
	int r;

	memset(out, 'x', sizeof(out));
	memset(err, 'x', sizeof(err));
	r = run(c, out, sizeof(out), err, sizeof(err));
	assert_int_equal(r, c->n);
	assert_string_equal(out, c->out);
	assert_string_equal(err, c->err);
	if (r < 0)
		return;
	/* What is printed is what sitd runs: sitd's own parser reads it back whole. */
	assert_int_equal(sitd_config_parse(out, strlen(out), conf, ARRAY_SIZE(conf), msg, sizeof(msg)),
			 r);
}

/* A buffer too small for the stanzas: refused at the tunnel's line, out left empty. */
static void test_short_out(void **state)
{
	char out[64], err[256];

	(void)state;
	assert_int_equal(run(&cases[0], out, sizeof(out), err, sizeof(err)), -1);
	assert_string_equal(out, "");
	assert_string_equal(err, "interfaces:3: the output is longer than 64 bytes\n");
}

/* A short err holds the refusals that fit whole, each a complete line, nothing cut. */
static void test_short_err(void **state)
{
	const struct import_case *c = NULL;
	char out[4096], err[100];

	(void)state;
	for (size_t i = 0; i < ARRAY_SIZE(cases) && !c; i++)
		if (cases[i].n < 0 && strlen(cases[i].err) > 150)
			c = &cases[i];
	assert_non_null(c);
	assert_int_equal(run(c, out, sizeof(out), err, sizeof(err)), -1);
	assert_true(strlen(err) < sizeof(err));
	assert_memory_equal(err, c->err, strlen(err));
	assert_true(strlen(err) == 0 || err[strlen(err) - 1] == '\n');
	assert_int_equal(run(c, out, sizeof(out), err, 0), -1);
}

/* More refusals than are kept: the first 64 in order, then how many more. */
static void test_many_refusals(void **state)
{
	static char text[8192], out[4096], err[ERR_LEN * 2];
	struct sitd_import_file f = { .name = "interfaces", .text = text };
	size_t len = 0;
	char line[40];

	(void)state;
	len += (size_t)snprintf(text, sizeof(text), "iface sit1 inet6 v4tunnel\n");
	for (int i = 0; i < 70; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "\thwaddress %d\n", i);
	f.len = len;
	assert_int_equal(sitd_import_ifupdown(&f, out, sizeof(out), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "interfaces:2: option \"hwaddress\""));
	snprintf(line, sizeof(line), "interfaces:65: option");
	assert_non_null(strstr(err, line));
	assert_null(strstr(err, "interfaces:66: option"));
	/* 70 options, and no address or endpoint: 72 in all, 64 shown. */
	assert_non_null(strstr(err, "sitd: 8 more refusals not shown\n"));
}

/* No file, or an empty one: refused, not an empty success. */
static void test_empty(void **state)
{
	struct sitd_import_file f = { .name = "x.netdev", .text = "", .len = 0 };
	char out[64], err[256];

	(void)state;
	assert_int_equal(sitd_import_networkd(&f, 0, out, sizeof(out), err, sizeof(err)), -1);
	assert_string_equal(err, "-:1: no .netdev file\n");
	assert_int_equal(sitd_import_networkd(&f, 1, out, sizeof(out), err, sizeof(err)), -1);
	assert_string_equal(err, "x.netdev:1: no [NetDev] Name=\nx.netdev:1: no [NetDev] Kind=\n");
	f.name = "interfaces";
	assert_int_equal(sitd_import_ifupdown(&f, out, sizeof(out), err, sizeof(err)), -1);
	assert_string_equal(err, "interfaces:1: no \"iface NAME inet6 v4tunnel\" or \"iface NAME "
			    "inet tunnel\" stanza\n");
}

int main(void)
{
	struct CMUnitTest tests[ARRAY_SIZE(cases) + 4];
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		tests[n++] = (struct CMUnitTest){ .name = cases[i].name, .test_func = test_case,
						  .initial_state = (void *)(uintptr_t)&cases[i] };
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_short_out);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_short_err);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_many_refusals);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_empty);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
