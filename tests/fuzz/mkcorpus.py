#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write the seed corpora of the sitd fuzzers, byte by byte.

    python3 tests/fuzz/mkcorpus.py [OUTDIR]      (default: tests/fuzz/corpus)

Each seed starts with the configuration bytes its target reads (see the comment at the
top of tests/fuzz/fuzz_NAME.c), then the packet or command line.  Addresses are from the
documentation ranges only: 192.0.2.0/24, 198.51.100.0/24, 203.0.113.0/24, 2001:db8::/32.
Existing files with other names (for example reproducers of fixed bugs) are left alone.
"""

import ipaddress
import os
import struct
import sys

# ---------------------------------------------------------------- addresses

LOCAL4 = "192.0.2.1"        # the tunnel's local end (as fuzz_tx.c configures it)
REMOTE4 = "198.51.100.2"    # the tunnel's remote end
HOST4_A = "203.0.113.10"    # inner IPv4 hosts
HOST4_B = "203.0.113.20"
HOST6_A = "2001:db8:1::10"  # inner IPv6 hosts
HOST6_B = "2001:db8:2::20"


def a4(s):
    return ipaddress.IPv4Address(s).packed


def a6(s):
    return ipaddress.IPv6Address(s).packed


# ---------------------------------------------------------------- checksums

def csum_sum(data, s=0):
    """RFC 1071 one's complement sum, unfolded."""
    if len(data) % 2:
        data += b"\0"
    for i in range(0, len(data), 2):
        s += data[i] << 8 | data[i + 1]
    return s


def fold(s):
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s


def csum(data, s=0):
    return ~fold(csum_sum(data, s)) & 0xFFFF


def pseudo4(src, dst, proto, length):
    return csum_sum(src + dst + struct.pack(">BBH", 0, proto, length))


def pseudo6(src, dst, proto, length):
    return csum_sum(src + dst + struct.pack(">I3xB", length, proto))


# ---------------------------------------------------------------- headers

IPPROTO_HOPOPTS, IPPROTO_ICMP, IPPROTO_IPIP, IPPROTO_TCP, IPPROTO_UDP = 0, 1, 4, 6, 17
IPPROTO_IPV6, IPPROTO_ROUTING, IPPROTO_FRAGMENT = 41, 43, 44
IPPROTO_ICMPV6, IPPROTO_NONE, IPPROTO_DSTOPTS = 58, 59, 60

FIN, SYN, RST, PSH, ACK, URG, ECE, CWR = 1, 2, 4, 8, 16, 32, 64, 128


def ipv4(src, dst, proto, payload, tos=0, ttl=64, ident=0x1234, df=True, mf=False,
         frag_off=0, options=b"", total=None):
    """RFC 791 header with its checksum, then the payload."""
    assert len(options) % 4 == 0
    ihl = 5 + len(options) // 4
    tot = total if total is not None else ihl * 4 + len(payload)
    frag = (0x4000 if df else 0) | (0x2000 if mf else 0) | (frag_off // 8)
    h = struct.pack(">BBHHHBBH4s4s", 0x40 | ihl, tos, tot, ident, frag, ttl, proto, 0,
                    a4(src), a4(dst)) + options
    h = h[:10] + struct.pack(">H", csum(h)) + h[12:]
    return h + payload


def ipv6(src, dst, nxt, payload, tclass=0, flow=0, hlim=64):
    """RFC 8200 fixed header, then the payload (extension headers included)."""
    vtf = 6 << 28 | tclass << 20 | flow
    return struct.pack(">IHBB16s16s", vtf, len(payload), nxt, hlim, a6(src), a6(dst)) + payload


def ext_hdr(nxt, body_len8):
    """Hop-by-hop / destination options / routing style header of 8 * (n + 1) bytes, PadN."""
    total = 8 * (body_len8 + 1)
    pad = total - 2
    # One PadN option filling the rest (RFC 8200 4.2).
    return struct.pack(">BB", nxt, body_len8) + bytes([1, pad - 2]) + bytes(pad - 2)


def frag_hdr(nxt, offset, more, ident):
    return struct.pack(">BBHI", nxt, 0, offset | (1 if more else 0), ident)


def tcp(sport, dport, seq, ack, flags, payload, options=b"", window=65535):
    """TCP header with the checksum field zero; fill it with tcp_csum_*()."""
    assert len(options) % 4 == 0
    off = (20 + len(options)) // 4
    return struct.pack(">HHIIBBHHH", sport, dport, seq, ack, off << 4, flags, window, 0, 0) \
        + options + payload


def set_csum(seg, field, value):
    return seg[:field] + struct.pack(">H", value) + seg[field + 2:]


def l4_full(seg, field, pseudo):
    """A complete L4 checksum (what the wire carries)."""
    return set_csum(seg, field, csum(seg, pseudo))


def l4_partial(seg, field, pseudo):
    """CHECKSUM_PARTIAL as the kernel hands it over: the folded pseudo-header sum."""
    return set_csum(seg, field, fold(pseudo))


def udp(sport, dport, payload):
    return struct.pack(">HHHH", sport, dport, 8 + len(payload), 0) + payload


def icmp6(typ, code, rest, body):
    return struct.pack(">BBHI", typ, code, 0, rest) + body


def icmp4(typ, code, rest, body):
    m = struct.pack(">BBHI", typ, code, 0, rest) + body
    return set_csum(m, 2, csum(m))


def pattern(n, seed=0):
    return bytes((i * 31 + seed * 7 + (i >> 8)) & 0xFF for i in range(n))


TCP_TS_OPTS = bytes([1, 1, 8, 10]) + struct.pack(">II", 0x01020304, 0x05060708)

# virtio_net_hdr (host order, little-endian on the hosts sitd runs on)
VNET_F_NEEDS_CSUM = 1
GSO_NONE, GSO_TCPV4, GSO_UDP, GSO_TCPV6, GSO_ECN = 0, 1, 3, 4, 0x80


def vnet(flags=0, gso_type=GSO_NONE, hdr_len=0, gso_size=0, csum_start=0, csum_offset=0):
    return struct.pack("<BBHHHH", flags, gso_type, hdr_len, gso_size, csum_start, csum_offset)


# ---------------------------------------------------------------- packets

def tcp6_packet(payload_len, flags=ACK | PSH, ext=b"", ext_first=None, partial=True,
                tclass=0, options=b"", seq=1000):
    pay = pattern(payload_len, 1)
    seg = tcp(40000, 443, seq, 77, flags, pay, options)
    ps = pseudo6(a6(HOST6_A), a6(HOST6_B), IPPROTO_TCP, len(seg))
    seg = l4_partial(seg, 16, ps) if partial else l4_full(seg, 16, ps)
    nxt = ext_first if ext else IPPROTO_TCP
    return ipv6(HOST6_A, HOST6_B, nxt, ext + seg, tclass=tclass)


def tcp4_packet(payload_len, flags=ACK | PSH, df=True, partial=True, tos=0, options=b"",
                ip_options=b"", seq=5000):
    pay = pattern(payload_len, 2)
    seg = tcp(40001, 80, seq, 99, flags, pay, options)
    ps = pseudo4(a4(HOST4_A), a4(HOST4_B), IPPROTO_TCP, len(seg))
    seg = l4_partial(seg, 16, ps) if partial else l4_full(seg, 16, ps)
    return ipv4(HOST4_A, HOST4_B, IPPROTO_TCP, seg, tos=tos, df=df, options=ip_options)


def gso_frame(pkt, l3len, thlen, gso_size, gso_type):
    return vnet(VNET_F_NEEDS_CSUM, gso_type, l3len + thlen, gso_size, l3len, 16) + pkt


# ---------------------------------------------------------------- fuzz_tx seeds

MODE_ANY, MODE_IPIP, MODE_SIT = 0, 1, 2
NOPMTUDISC, TWICE, GROW, TIMES64 = 4, 8, 16, 32
ENCAP_FOU, ENCAP_GUE = 0x40, 0x80           # bits 6-7: encap fou / gue (first_id: the dport)
OUTER6 = 0xC0                               # bits 6-7 = 3: an IPv6 outer header
O6_LIMIT_NONE, O6_FL_INHERIT, O6_LOCAL_ANY = 1, 2, 4    # [6] with OUTER6
O6_FOU, O6_GUE, O6_FOU_NOCSUM = 0x08, 0x10, 0x18       # [6] bits 3-4: fou6 / gue6


def tx_cfg(mode, path_mtu, flags=0, ttl=0, tos=0, first_id=1, ms=0, grow=0, damper=0):
    """fuzz_tx.c: [mode|flags][ttl][tos][path_mtu be16][first_id be16][ms][grow be16]
    [damper count]."""
    return struct.pack(">BBBHHBHB", mode | flags, ttl, tos, path_mtu, first_id, ms, grow, damper)


def tx_seeds():
    s = {}
    # GSO TCPv6 super-packet through a 1500-byte path: 1480 inside, MSS 1420.
    p = tcp6_packet(4000)
    s["gso_tcp6_mss1420"] = tx_cfg(MODE_SIT, 1500) + gso_frame(p, 40, 20, 1420, GSO_TCPV6)
    # GSO TCPv4 with timestamps, inner DF, ipip, fixed TTL and TOS.
    p = tcp4_packet(5000, options=TCP_TS_OPTS)
    s["gso_tcp4_ts"] = tx_cfg(MODE_IPIP, 1500, ttl=64, tos=0x20) + \
        gso_frame(p, 20, 32, 1448 - 20, GSO_TCPV4)
    # The same through "mode any", TTL and TOS inherited, ECN CE inside, CWR and FIN.
    p = tcp4_packet(3000, flags=ACK | PSH | FIN | CWR, tos=0x03)
    s["gso_tcp4_any_ce_cwr_fin"] = tx_cfg(MODE_ANY, 1500, tos=1) + \
        gso_frame(p, 20, 20, 1000, GSO_TCPV4 | GSO_ECN)
    # Inner IPv4 with options (IHL 6).
    p = tcp4_packet(2500, ip_options=bytes([1, 1, 1, 0]))
    s["gso_tcp4_ipopts"] = tx_cfg(MODE_IPIP, 1500) + gso_frame(p, 24, 20, 1200, GSO_TCPV4)
    # IPv6 with hop-by-hop and destination options before TCP, GSO.
    ext = ext_hdr(IPPROTO_DSTOPTS, 0) + ext_hdr(IPPROTO_TCP, 1)
    p = tcp6_packet(3000, ext=ext, ext_first=IPPROTO_HOPOPTS)
    s["gso_tcp6_exthdrs"] = tx_cfg(MODE_SIT, 1500) + \
        gso_frame(p, 40 + len(ext), 20, 1300, GSO_TCPV6)
    # A segment that does not fit a 1400-byte path: ICMPv6 Packet Too Big back to TUN.
    p = tcp6_packet(3000)
    s["gso_tcp6_ptb"] = tx_cfg(MODE_SIT, 1400) + gso_frame(p, 40, 20, 1440, GSO_TCPV6)
    # The same for IPv4 with DF: Fragmentation Needed.
    p = tcp4_packet(3000)
    s["gso_tcp4_fragneeded"] = tx_cfg(MODE_IPIP, 1300) + gso_frame(p, 20, 20, 1460, GSO_TCPV4)
    # 64 of them at one instant: 50 answered, then the rate limit.
    p = tcp6_packet(1400, partial=False)
    s["ptb6_ratelimit"] = tx_cfg(MODE_ANY, 1400, flags=TIMES64, ms=1) + vnet() + p
    # Small GSO packet grown by the harness to a 64 KB super-packet of 1220-byte segments.
    p = tcp6_packet(200)
    s["gso_tcp6_grow64k"] = tx_cfg(MODE_SIT, 1500, flags=GROW, grow=65000) + \
        gso_frame(p, 40, 20, 1220, GSO_TCPV6)
    # ... and to more segments than out[] holds (gso_size 100: ~600 segments).
    p = tcp4_packet(100, df=False)
    s["gso_tcp4_grow_manyseg"] = tx_cfg(MODE_IPIP, 9000, flags=GROW | TWICE, grow=60000) + \
        gso_frame(p, 20, 20, 100, GSO_TCPV4)
    # Non-GSO UDP over IPv6 with NEEDS_CSUM (csum_start 40, csum_offset 6).
    pay = pattern(300, 3)
    u = udp(5353, 5353, pay)
    u = l4_partial(u, 6, pseudo6(a6(HOST6_A), a6(HOST6_B), IPPROTO_UDP, len(u)))
    s["udp6_needs_csum"] = tx_cfg(MODE_SIT, 1500) + \
        vnet(VNET_F_NEEDS_CSUM, GSO_NONE, 0, 0, 40, 6) + ipv6(HOST6_A, HOST6_B, IPPROTO_UDP, u)
    # Non-GSO TCPv4 with NEEDS_CSUM.
    p = tcp4_packet(500)
    s["tcp4_needs_csum_damper"] = tx_cfg(MODE_ANY, 1500, flags=TWICE, ms=9, damper=1) + \
        vnet(VNET_F_NEEDS_CSUM, 0, 0, 0, 20, 16) + p
    # IPv4 without DF, 3000 bytes, path 1500: fragmented outside.
    pay = pattern(2972, 4)
    p = ipv4(HOST4_A, HOST4_B, IPPROTO_UDP, l4_full(
        udp(4000, 4001, pay), 6, pseudo4(a4(HOST4_A), a4(HOST4_B), IPPROTO_UDP, 8 + len(pay))),
        df=False)
    s["udp4_nodf_outer_frag"] = tx_cfg(MODE_IPIP, 1500) + vnet() + p
    # IPv6 with nopmtudisc, 2000 bytes: no outer DF, fragmented outside.
    p = tcp6_packet(1940, partial=False)
    s["tcp6_nopmtudisc_frag"] = tx_cfg(MODE_SIT, 1500, flags=NOPMTUDISC) + vnet() + p
    # Path MTU 1000 < 1280 + 20: IPv6 still gets 1280, sent without DF and fragmented.
    p = tcp6_packet(1220, partial=False)
    s["tcp6_path1000_min1280"] = tx_cfg(MODE_SIT, 1000) + vnet() + p
    # IPv6 first fragment (Fragment header) and an ICMPv6 echo request, not GSO.
    body = frag_hdr(IPPROTO_UDP, 0, True, 0xabcd) + udp(7, 7, pattern(64, 5))
    s["ipv6_fraghdr"] = tx_cfg(MODE_SIT, 1480) + vnet() + \
        ipv6(HOST6_A, HOST6_B, IPPROTO_FRAGMENT, body)
    echo = icmp6(128, 0, 0x00010001, pattern(56, 6))
    echo = l4_full(echo, 2, pseudo6(a6(HOST6_A), a6(HOST6_B), IPPROTO_ICMPV6, len(echo)))
    # ... with two unrelayable errors pending: sent, and a link failure reported.
    s["icmp6_echo_ttl_damper"] = tx_cfg(MODE_ANY, 1280, ttl=255, tos=0xb8, ms=5, damper=2) + \
        vnet() + \
        ipv6(HOST6_A, HOST6_B, IPPROTO_ICMPV6, echo, tclass=0x02)
    # Two 9.6 KB IPv4 packets without DF over a 68-byte path: 200 fragments each, so the
    # second does not fit in out[] behind the first.
    p = ipv4(HOST4_A, HOST4_B, IPPROTO_UDP, udp(9, 9, pattern(72, 14)), df=False)
    s["udp4_frag200_twice"] = tx_cfg(MODE_IPIP, 68, flags=NOPMTUDISC | TWICE | GROW,
                                     grow=9600 - len(p)) + vnet() + p
    # GSO behind 184 bytes of hop-by-hop options: more inner headers than sitd splits.
    ext = ext_hdr(IPPROTO_TCP, 22)
    p = tcp6_packet(2000, ext=ext, ext_first=IPPROTO_HOPOPTS)
    s["gso_tcp6_hdr_too_long"] = tx_cfg(MODE_SIT, 1500) + \
        gso_frame(p, 40 + len(ext), 20, 1000, GSO_TCPV6)

    # FOU and GUE: the kernel writes IPv4 + UDP (28 bytes), GUE adds 4 of its own.
    # GSO TCPv6 over fou through a 1500-byte path: 1472 inside, MSS 1412.
    p = tcp6_packet(4000)
    s["fou_gso_tcp6"] = tx_cfg(MODE_SIT, 1500, flags=ENCAP_FOU, first_id=5555) + \
        gso_frame(p, 40, 20, 1412, GSO_TCPV6)
    # GSO TCPv4 with timestamps over gue, fixed TTL and TOS: 1468 inside, MSS 1416.
    p = tcp4_packet(5000, options=TCP_TS_OPTS)
    s["gue_gso_tcp4_ts"] = tx_cfg(MODE_IPIP, 1500, flags=ENCAP_GUE, ttl=64, tos=0x20,
                                  first_id=6080) + gso_frame(p, 20, 32, 1416, GSO_TCPV4)
    # Mode any over gue, TOS inherited from an inner CE (sent as ECT(0)), fed twice.
    p = tcp4_packet(3000, flags=ACK | PSH | CWR, tos=0xbb)
    s["gue_any_ce_inherit_twice"] = tx_cfg(MODE_ANY, 1500, flags=ENCAP_GUE | TWICE, tos=1) + \
        gso_frame(p, 20, 20, 1000, GSO_TCPV4 | GSO_ECN)
    # Non-GSO UDP over IPv6 with NEEDS_CSUM, over fou, with a link failure pending.
    pay = pattern(300, 3)
    u = udp(5353, 5353, pay)
    u = l4_partial(u, 6, pseudo6(a6(HOST6_A), a6(HOST6_B), IPPROTO_UDP, len(u)))
    s["fou_udp6_needs_csum_damper"] = tx_cfg(MODE_ANY, 1500, flags=ENCAP_FOU, ms=3, damper=1) + \
        vnet(VNET_F_NEEDS_CSUM, GSO_NONE, 0, 0, 40, 6) + ipv6(HOST6_A, HOST6_B, IPPROTO_UDP, u)
    # Too big for a 1400-byte path over fou: Packet Too Big saying 1372.
    p = tcp6_packet(3000)
    s["fou_gso_tcp6_ptb"] = tx_cfg(MODE_SIT, 1400, flags=ENCAP_FOU) + \
        gso_frame(p, 40, 20, 1320, GSO_TCPV6)
    # Over gue through 1300 with inner DF: Fragmentation Needed saying 1268.
    p = tcp4_packet(3000)
    s["gue_gso_tcp4_fragneeded"] = tx_cfg(MODE_IPIP, 1300, flags=ENCAP_GUE) + \
        gso_frame(p, 20, 20, 1460, GSO_TCPV4)
    # IPv4 without DF, 3000 bytes, path 1500: one output without DF, the kernel fragments.
    pay = pattern(2972, 4)
    p = ipv4(HOST4_A, HOST4_B, IPPROTO_UDP, l4_full(
        udp(4000, 4001, pay), 6, pseudo4(a4(HOST4_A), a4(HOST4_B), IPPROTO_UDP, 8 + len(pay))),
        df=False)
    s["fou_udp4_nodf_big"] = tx_cfg(MODE_IPIP, 1500, flags=ENCAP_FOU) + vnet() + p
    # IPv6 over gue through a 1000-byte path: carried up to 1280 without DF.
    p = tcp6_packet(1220, partial=False)
    s["gue_tcp6_path1000"] = tx_cfg(MODE_SIT, 1000, flags=ENCAP_GUE) + vnet() + p
    # Grown to ~600 segments of 100 bytes, twice: more outputs than out[] holds.
    p = tcp4_packet(100, df=False)
    s["gue_gso_grow_manyseg"] = tx_cfg(MODE_IPIP, 9000, flags=ENCAP_GUE | GROW | TWICE,
                                       grow=60000) + gso_frame(p, 20, 20, 100, GSO_TCPV4)

    # IPv6 outer (ip6tnl): bits 6-7 = 3; first_id = [encap limit][flags] (fuzz_tx.c).
    # ip6ip6, GSO TCPv6 through 1500: 1452 inside, MSS 1392 behind 40 + 20.
    p = tcp6_packet(6000)
    s["o6_gso_tcp6"] = tx_cfg(MODE_SIT, 1500, flags=OUTER6, ttl=64, first_id=4 << 8) + \
        gso_frame(p, 40, 20, 1392, GSO_TCPV6)
    # ipip6 (DS-Lite B4), GSO TCPv4 with timestamps, tclass inherit, flow label inherit
    # (none in IPv4: the auto label), fed twice.
    p = tcp4_packet(5000, options=TCP_TS_OPTS, tos=0x21)
    s["o6_gso_tcp4_ts_twice"] = tx_cfg(MODE_IPIP, 1500, flags=OUTER6 | TWICE, tos=1,
                                       first_id=4 << 8 | O6_FL_INHERIT) + \
        gso_frame(p, 20, 32, 1400, GSO_TCPV4)
    # A nested tunnel's packet with limit 0: Parameter Problem pointing at it.
    opts = bytes([IPPROTO_UDP, 0, 0, 4, 1, 0, 1, 0])    # Pad1, TEL 0, PadN 0
    u = udp(9, 9, pattern(80, 7))
    u = l4_full(u, 6, pseudo6(a6(HOST6_A), a6(HOST6_B), IPPROTO_UDP, len(u)))
    s["o6_nested_limit0"] = tx_cfg(MODE_ANY, 1500, flags=OUTER6, first_id=4 << 8) + vnet() + \
        ipv6(HOST6_A, HOST6_B, IPPROTO_DSTOPTS, opts + u)
    # Limit 3 behind a hop-by-hop header, encaplimit none: an option of 2 goes out.
    opts = bytes([IPPROTO_UDP, 0, 4, 1, 3, 1, 1, 0])
    s["o6_nested_limit3_none"] = tx_cfg(MODE_SIT, 1500, flags=OUTER6,
                                        first_id=O6_LIMIT_NONE | 0xa0) + vnet() + \
        ipv6(HOST6_A, HOST6_B, IPPROTO_HOPOPTS, ext_hdr(IPPROTO_DSTOPTS, 0) + opts + u)
    # Path 1280: an inner IPv6 packet of 1280 bytes fragmented outside (RFC 2473 7.1),
    # local any, a fixed flow label.
    p = tcp6_packet(1220, partial=False)
    s["o6_tcp6_frag1280"] = tx_cfg(MODE_SIT, 1280, flags=OUTER6,
                                   first_id=4 << 8 | O6_LOCAL_ANY | 0xe0) + vnet() + p
    # Path 1280, GSO TCPv6 with segments of 1280 bytes: a train per segment.
    p = tcp6_packet(8000)
    s["o6_gso_tcp6_frag"] = tx_cfg(MODE_SIT, 1280, flags=OUTER6, first_id=0) + \
        gso_frame(p, 40, 20, 1220, GSO_TCPV6)
    # IPv4 without DF, 3000 bytes: Fragmentation Needed saying 1452 (ipxip6_tnl_xmit).
    pay = pattern(2972, 4)
    p = ipv4(HOST4_A, HOST4_B, IPPROTO_UDP, l4_full(
        udp(4000, 4001, pay), 6, pseudo4(a4(HOST4_A), a4(HOST4_B), IPPROTO_UDP, 8 + len(pay))),
        df=False)
    s["o6_udp4_nodf_fragneeded"] = tx_cfg(MODE_IPIP, 1500, flags=OUTER6, first_id=4 << 8) + \
        vnet() + p
    # Packet Too Big through 1400 with flow label inherit: 1352.
    p = tcp6_packet(3000)
    s["o6_gso_tcp6_ptb"] = tx_cfg(MODE_SIT, 1400, flags=OUTER6, first_id=O6_FL_INHERIT) + \
        gso_frame(p, 40, 20, 1320, GSO_TCPV6)

    # fou6 / gue6: [IPv6][option][UDP][GUE][inner].  ip6ip6 over fou, GSO through 1500:
    # 1500 - 40 - 8 - 8 = 1444 inside, MSS 1384 behind 40 + 20.
    p = tcp6_packet(7000)
    s["fou6_gso_tcp6"] = tx_cfg(MODE_SIT, 1500, flags=OUTER6, ttl=64, first_id=4 << 8 | O6_FOU) + \
        gso_frame(p, 40, 20, 1384, GSO_TCPV6)
    # ipip6 over gue, encaplimit none, GSO TCPv4 one byte too big: Fragmentation Needed 1448.
    p = tcp4_packet(4000)
    s["gue6_gso_tcp4_too_big"] = tx_cfg(MODE_IPIP, 1500, flags=OUTER6,
                                        first_id=O6_LIMIT_NONE | O6_GUE) + \
        gso_frame(p, 20, 20, 1409, GSO_TCPV4)
    # Zero UDP checksums (noencap-udp6-csum), an odd-length IPv4 datagram.
    pay = pattern(301, 5)
    p = ipv4(HOST4_A, HOST4_B, IPPROTO_UDP, l4_full(
        udp(4000, 4001, pay), 6, pseudo4(a4(HOST4_A), a4(HOST4_B), IPPROTO_UDP, 8 + len(pay))))
    s["fou6_nocsum_udp4_odd"] = tx_cfg(MODE_ANY, 1500, flags=OUTER6,
                                       first_id=4 << 8 | O6_FOU_NOCSUM) + vnet() + p
    # Path 1280, an inner IPv6 packet of 1280 bytes: the train carries [option][UDP][GUE].
    p = tcp6_packet(1220, partial=False)
    s["gue6_tcp6_frag1280"] = tx_cfg(MODE_SIT, 1280, flags=OUTER6, first_id=4 << 8 | O6_GUE) + \
        vnet() + p
    return s


# ---------------------------------------------------------------- fuzz_rx seeds

CHECK_REMOTE, CHECK_LOCAL, FIX_CSUM = 4, 8, 16


def rx_cfg(mode, flags=CHECK_REMOTE | CHECK_LOCAL | FIX_CSUM, remote=REMOTE4, local=LOCAL4):
    """fuzz_rx.c: [mode|flags][remote 4][local 4]; FIX_CSUM: the harness sets the outer
    header checksum, so mutations of the outer header are not all lost to it."""
    return struct.pack(">B4s4s", mode | flags, a4(remote), a4(local))


def outer(inner, proto, tos=0, **kw):
    """An outer packet from the remote to us, as the raw socket hands it over."""
    return ipv4(REMOTE4, LOCAL4, proto, inner, tos=tos, ident=0x4242, **kw)


def rx_seeds():
    s = {}
    tcp6 = tcp6_packet(600, partial=False)
    tcp4 = tcp4_packet(600, partial=False)
    s["sit_tcp6"] = rx_cfg(MODE_SIT, CHECK_REMOTE | CHECK_LOCAL) + outer(tcp6, IPPROTO_IPV6)
    s["ipip_tcp4"] = rx_cfg(MODE_IPIP) + outer(tcp4, IPPROTO_IPIP)
    ping = icmp4(8, 0, 0x00070001, pattern(56, 7))
    s["any_icmp4_echo"] = rx_cfg(MODE_ANY, 0) + \
        outer(ipv4(HOST4_A, HOST4_B, IPPROTO_ICMP, ping), IPPROTO_IPIP)
    # RFC 6040 4.2: outer CE onto ECT(0) inner, for both inner versions.
    s["sit_ce_on_ect0"] = rx_cfg(MODE_ANY) + \
        outer(tcp6_packet(300, partial=False, tclass=0x02), IPPROTO_IPV6, tos=0x03)
    s["ipip_ce_on_ect0"] = rx_cfg(MODE_ANY) + \
        outer(tcp4_packet(300, partial=False, tos=0x02), IPPROTO_IPIP, tos=0x03)
    s["ipip_ect1_on_ect0"] = rx_cfg(MODE_IPIP) + \
        outer(tcp4_packet(300, partial=False, tos=0xba), IPPROTO_IPIP, tos=0x01)
    s["sit_ce_on_notect_drop"] = rx_cfg(MODE_SIT) + outer(tcp6, IPPROTO_IPV6, tos=0x03)
    # Outer IPv4 options, trailing bytes after the declared length.
    s["sit_outer_options"] = rx_cfg(MODE_SIT) + \
        outer(tcp6, IPPROTO_IPV6, options=bytes([1, 1, 1, 0]))
    s["ipip_trailing_bytes"] = rx_cfg(MODE_IPIP) + outer(tcp4, IPPROTO_IPIP) + bytes(14)
    # Inner length shorter than what the outer carries (trim).
    s["sit_inner_padded"] = rx_cfg(MODE_SIT) + outer(tcp6 + bytes(8), IPPROTO_IPV6)
    # Drops: an outer fragment, the wrong source, IPv4 inside a sit-only tunnel.
    s["outer_fragment"] = rx_cfg(MODE_SIT) + outer(tcp6[:512], IPPROTO_IPV6, mf=True, df=False)
    s["wrong_source"] = rx_cfg(MODE_SIT, remote="198.51.100.99") + outer(tcp6, IPPROTO_IPV6)
    s["ipv4_in_sit_mode"] = rx_cfg(MODE_SIT) + outer(tcp4, IPPROTO_IPIP)
    s["outer_only"] = rx_cfg(MODE_SIT) + outer(b"", IPPROTO_IPV6)
    # IPv6 with extension headers inside; an ICMPv6 Packet Too Big inside.
    ext = ext_hdr(IPPROTO_ROUTING, 0) + \
        struct.pack(">BBBB4x", IPPROTO_TCP, 2, 0, 1) + a6("2001:db8:3::30")
    s["sit_exthdrs"] = rx_cfg(MODE_SIT) + \
        outer(tcp6_packet(200, ext=ext, ext_first=IPPROTO_HOPOPTS, partial=False), IPPROTO_IPV6)
    # A router's Packet Too Big quotes as much as fits in 1280 bytes: 1232 of them.
    ptb = icmp6(2, 0, 1280, tcp6_packet(1400, partial=False)[:1232])
    ptb = l4_full(ptb, 2, pseudo6(a6(HOST6_B), a6(HOST6_A), IPPROTO_ICMPV6, len(ptb)))
    s["sit_icmp6_ptb"] = rx_cfg(MODE_SIT) + \
        outer(ipv6(HOST6_B, HOST6_A, IPPROTO_ICMPV6, ptb), IPPROTO_IPV6)
    # Bare headers are whole packets (RFC 8200 4.7 No Next Header; IPv4 of 20 bytes):
    # delivered, as the kernel delivers them.  The first was once dropped as truncated.
    s["regress-ipv6-no-next-header"] = rx_cfg(MODE_SIT) + \
        outer(ipv6(HOST6_A, HOST6_B, IPPROTO_NONE, b""), IPPROTO_IPV6)
    s["ipv4_header_only"] = rx_cfg(MODE_ANY) + \
        outer(ipv4(HOST4_A, HOST4_B, 253, b""), IPPROTO_IPIP)
    s.update(rx6_seeds())
    return s


LOCAL6 = "2001:db8:ff::1"   # an IPv6-outer tunnel's ends (fuzz_rx.c, fuzz_icmp.c)
REMOTE6 = "2001:db8:ff::2"
RX6, R6, L6, DSCP6, DEV6, ALR6 = 0x80, 4, 8, 16, 32, 64
SRC_OURS, SRC_OTHER, DST_OTHER = 1, 2, 4


def rx6_cfg(mode, nh, tclass=0, flags=R6 | L6, facts=0, remote=REMOTE6, local=LOCAL6):
    """fuzz_rx.c, IPv6 outer: [RX6|mode|flags][next header][tclass][facts][remote6][local6],
    then the inner packet alone, as a raw IPv6 socket hands it over."""
    return struct.pack(">BBBB16s16s", RX6 | mode | flags, nh, tclass, facts, a6(remote),
                       a6(local))


def rx6_seeds():
    s = {}
    tcp6 = tcp6_packet(600, partial=False)
    tcp4 = tcp4_packet(600, partial=False)
    s["ip6_ip6ip6"] = rx6_cfg(MODE_SIT, IPPROTO_IPV6) + tcp6
    s["ip6_ipip6"] = rx6_cfg(MODE_IPIP, IPPROTO_IPIP) + tcp4
    s["ip6_any_dscp_ce"] = rx6_cfg(MODE_ANY, IPPROTO_IPIP, 0xbb, R6 | L6 | DSCP6) + \
        tcp4_packet(300, partial=False, tos=0x02)
    s["ip6_dscp_ect1_v6"] = rx6_cfg(MODE_ANY, IPPROTO_IPV6, 0x29, R6 | DSCP6) + \
        tcp6_packet(300, partial=False, tclass=0x02)
    s["ip6_ce_on_notect"] = rx6_cfg(MODE_SIT, IPPROTO_IPV6, 0x03) + tcp6
    s["ip6_wrong_source"] = rx6_cfg(MODE_SIT, IPPROTO_IPV6, facts=SRC_OTHER) + tcp6
    s["ip6_local_remote"] = rx6_cfg(MODE_ANY, IPPROTO_IPV6, flags=R6 | L6, facts=SRC_OURS) + tcp6
    s["ip6_local_remote_allowed"] = rx6_cfg(MODE_ANY, IPPROTO_IPV6, flags=R6 | L6 | ALR6,
                                            facts=SRC_OURS) + tcp6
    s["ip6_linklocal_dev"] = rx6_cfg(MODE_ANY, IPPROTO_IPV6, flags=DEV6, remote="fe80::2",
                                     local="fe80::1") + tcp6
    s["ip6_trailing"] = rx6_cfg(MODE_IPIP, IPPROTO_IPIP) + tcp4 + bytes(11)
    return s


# ---------------------------------------------------------------- fuzz_udp seeds

UDP_GUE, FROM_REMOTE, NO_REMOTE, UDP_SIX = 4, 8, 16, 32
OTHER4 = "198.51.100.99"    # a source that is not the remote


def udp_cfg(mode, flags=FROM_REMOTE, tos=0, remote=REMOTE4, src=OTHER4):
    """fuzz_udp.c: [mode|flags][outer tos][remote 4][source 4]; FROM_REMOTE: the payload
    comes from the remote (the source bytes are ignored); UDP_GUE: encap gue, else fou."""
    return struct.pack(">BB4s4s", mode | flags, tos, a4(remote), a4(src))


def gue(proto, flags=0, first=0x00, opts=b""):
    """GUE version 0 header (draft-ietf-intarea-gue): Ver|C|Hlen, Proto, Flags."""
    return struct.pack(">BBH", first, proto, flags) + opts


def udp_seeds():
    s = {}
    tcp6 = tcp6_packet(600, partial=False)
    tcp4 = tcp4_packet(600, partial=False)
    # FOU: the inner packet straight after the UDP header.
    s["fou_sit_tcp6"] = udp_cfg(MODE_SIT) + tcp6
    s["fou_ipip_tcp4"] = udp_cfg(MODE_IPIP) + tcp4
    ping = icmp4(8, 0, 0x00070001, pattern(56, 7))
    s["fou_any_icmp4_echo"] = udp_cfg(MODE_ANY) + ipv4(HOST4_A, HOST4_B, IPPROTO_ICMP, ping)
    s["fou_ipip_trailing"] = udp_cfg(MODE_IPIP) + tcp4 + bytes(14)
    # GUE version 0: [0, Proto, 0, 0] then the inner packet.
    s["gue0_sit_tcp6"] = udp_cfg(MODE_SIT, FROM_REMOTE | UDP_GUE) + gue(IPPROTO_IPV6) + tcp6
    s["gue0_ipip_tcp4"] = udp_cfg(MODE_IPIP, FROM_REMOTE | UDP_GUE) + gue(IPPROTO_IPIP) + tcp4
    ext = ext_hdr(IPPROTO_ROUTING, 0) + \
        struct.pack(">BBBB4x", IPPROTO_TCP, 2, 0, 1) + a6("2001:db8:3::30")
    s["gue0_any_exthdrs"] = udp_cfg(MODE_ANY, FROM_REMOTE | UDP_GUE) + gue(IPPROTO_IPV6) + \
        tcp6_packet(200, ext=ext, ext_first=IPPROTO_HOPOPTS, partial=False)
    # GUE version 1, direct IP: the IPv6 or IPv4 header itself (first bits 01).
    s["gue1_sit_tcp6"] = udp_cfg(MODE_SIT, FROM_REMOTE | UDP_GUE) + tcp6
    s["gue1_any_tcp4"] = udp_cfg(MODE_ANY, FROM_REMOTE | UDP_GUE) + tcp4
    # Refused GUE headers: control message, private flags with their option word,
    # version 2, shorter than the header, a Proto the mode does not carry.
    s["gue0_control"] = udp_cfg(MODE_SIT, FROM_REMOTE | UDP_GUE) + \
        gue(IPPROTO_IPV6, first=0x20) + tcp6
    s["gue0_flags_priv"] = udp_cfg(MODE_ANY, FROM_REMOTE | UDP_GUE) + \
        gue(IPPROTO_IPV6, flags=0x0001, first=0x01, opts=struct.pack(">I", 0x80000000)) + tcp6
    s["gue_version2"] = udp_cfg(MODE_ANY, FROM_REMOTE | UDP_GUE) + \
        gue(IPPROTO_IPIP, first=0x80) + tcp4
    s["gue_short"] = udp_cfg(MODE_SIT, FROM_REMOTE | UDP_GUE) + gue(IPPROTO_IPV6)[:2]
    s["gue0_proto4_on_sit"] = udp_cfg(MODE_SIT, FROM_REMOTE | UDP_GUE) + gue(IPPROTO_IPIP) + tcp4
    # RFC 6040 4.2 with the outer TOS from IP_RECVTOS.
    s["fou_sit_ce_on_ect0"] = udp_cfg(MODE_SIT, tos=0x03) + \
        tcp6_packet(300, partial=False, tclass=0x02)
    s["gue0_ipip_ect1_on_ect0"] = udp_cfg(MODE_IPIP, FROM_REMOTE | UDP_GUE, tos=0x01) + \
        gue(IPPROTO_IPIP) + tcp4_packet(300, partial=False, tos=0xba)
    s["gue0_ce_on_notect_drop"] = udp_cfg(MODE_SIT, FROM_REMOTE | UDP_GUE, tos=0x03) + \
        gue(IPPROTO_IPV6) + tcp6
    # Who sent it: another address, and a tunnel without a remote (any source).
    s["fou_wrong_source"] = udp_cfg(MODE_SIT, 0) + tcp6
    s["fou_any_no_remote"] = udp_cfg(MODE_ANY, NO_REMOTE) + tcp6
    # fou6 / gue6 (UDP_SIX): the same payloads over an IPv6 underlay, the traffic class
    # in place of the TOS.
    s["fou6_sit_tcp6"] = udp_cfg(MODE_SIT, FROM_REMOTE | UDP_SIX) + tcp6
    s["gue6_ipip_tcp4"] = udp_cfg(MODE_IPIP, FROM_REMOTE | UDP_GUE | UDP_SIX) + gue(IPPROTO_IPIP) + tcp4
    s["fou6_wrong_source"] = udp_cfg(MODE_ANY, UDP_SIX) + tcp4
    s["gue6_no_remote_ce_on_ect0"] = udp_cfg(MODE_SIT, NO_REMOTE | UDP_GUE | UDP_SIX, tos=0x03) + \
        gue(IPPROTO_IPV6) + tcp6_packet(300, partial=False, tclass=0x02)
    return s


# ---------------------------------------------------------------- fuzz_icmp seeds

SRC6, SRC4, ERR_IPIP, ERR_SIT, ERR_TTL64, ERR_LOCAL = 1, 2, 4, 8, 16, 32
ROUTER4 = "203.0.113.254"   # the router that sent an ICMP error about an outer packet


def icmp_cfg(cap, typ, code, info, flags=0, src=b"", router=None):
    """fuzz_icmp.c: [cap be16][type][code][info be32][flags][src 16], of which the last 4
    bytes are also the router that sent the error (sitd_icmp_err)."""
    src = src.ljust(16, b"\0")
    if router:
        src = src[:12] + a4(router)
    return struct.pack(">HBBIB16s", cap, typ, code, info, flags, src)


def our_outer(inner, proto, cut):
    """One of our outer packets, as a router quotes it in an ICMP error: cut short."""
    return ipv4(LOCAL4, REMOTE4, proto, inner, ident=0x0101)[:cut]


def icmp_seeds():
    s = {}
    big6 = tcp6_packet(1440, partial=False)
    big4 = tcp4_packet(1460, partial=False)
    s["ptb6_full_quote"] = icmp_cfg(1280, 2, 0, 1280) + big6
    s["ptb6_small_cap"] = icmp_cfg(600, 2, 0, 1400) + big6
    s["fragneeded4"] = icmp_cfg(576, 3, 4, 1480) + big4
    s["fragneeded4_src"] = icmp_cfg(2047, 3, 4, 1280, SRC4, a4("192.0.2.254")) + big4
    s["unreach6_src"] = icmp_cfg(1280, 1, 3, 0, SRC6, a6("2001:db8::1")) + \
        ipv6(HOST6_A, HOST6_B, IPPROTO_UDP, udp(1000, 53, pattern(40, 8)))
    s["timeexceeded4_small"] = icmp_cfg(100, 11, 0, 0) + \
        ipv4(HOST4_A, HOST4_B, IPPROTO_UDP, udp(1000, 53, pattern(20, 9)))
    # Errors about errors are declined; queries are answered.
    err6 = icmp6(1, 4, 0, tcp6_packet(40, partial=False))
    s["about_icmp6_error"] = icmp_cfg(1280, 2, 0, 1280) + \
        ipv6(HOST6_B, HOST6_A, IPPROTO_ICMPV6, err6)
    echo6 = icmp6(128, 0, 0x00010002, pattern(32, 10))
    s["about_icmp6_echo"] = icmp_cfg(1280, 2, 0, 1280) + \
        ipv6(HOST6_A, HOST6_B, IPPROTO_ICMPV6, echo6)
    err4 = icmp4(3, 1, 0, tcp4_packet(8, partial=False)[:28])
    s["about_icmp4_error"] = icmp_cfg(576, 3, 4, 1400) + \
        ipv4(HOST4_B, HOST4_A, IPPROTO_ICMP, err4)
    echo4 = icmp4(8, 0, 0x00090001, pattern(56, 11))
    s["about_icmp4_echo"] = icmp_cfg(576, 3, 4, 1400) + \
        ipv4(HOST4_A, HOST4_B, IPPROTO_ICMP, echo4)
    # An ICMPv6 error behind extension headers; a later IPv4 fragment.
    ext = ext_hdr(IPPROTO_ICMPV6, 0)
    s["icmp6_error_behind_ext"] = icmp_cfg(1280, 2, 0, 1280) + \
        ipv6(HOST6_B, HOST6_A, IPPROTO_HOPOPTS, ext + err6)
    s["later_fragment4"] = icmp_cfg(576, 3, 4, 1400) + \
        ipv4(HOST4_A, HOST4_B, IPPROTO_UDP, pattern(200, 12), df=False, frag_off=1480)
    # ICMPv4 errors about our outer packets (sitd_icmp_err), quoting 28 bytes or more.
    s["err_host_unreach_sit"] = icmp_cfg(1280, 3, 1, 0, ERR_SIT | ERR_LOCAL, router=ROUTER4) + \
        our_outer(tcp6_packet(500, partial=False), IPPROTO_IPV6, 20 + 40 + 8 + 60)
    s["err_ttl_exceeded_ipip"] = icmp_cfg(576, 11, 0, 0, ERR_IPIP | ERR_TTL64, router=ROUTER4) + \
        our_outer(tcp4_packet(300, partial=False), IPPROTO_IPIP, 20 + 20 + 8)
    s["err_frag_needed_any"] = icmp_cfg(1280, 3, 4, 1400, 0, router=ROUTER4) + \
        our_outer(tcp6_packet(1400, partial=False), IPPROTO_IPV6, 576 - 28)
    s["err_short_quote_damp"] = icmp_cfg(1280, 3, 3, 0, ERR_SIT, router=ROUTER4) + \
        our_outer(tcp6_packet(100, partial=False), IPPROTO_IPV6, 20 + 8)
    s["ipv6_fragment_first"] = icmp_cfg(1280, 2, 0, 1280) + \
        ipv6(HOST6_A, HOST6_B, IPPROTO_FRAGMENT,
             frag_hdr(IPPROTO_UDP, 0, True, 7) + udp(1, 2, pattern(100, 13)))
    s.update(icmp6_err_seeds())
    return s


ERR6 = 64


def our_outer6(inner, nh, limit=4, cut=None):
    """One of our IPv6 outer packets, with the encapsulation limit option (RFC 2473
    4.1.1: type 4, length 1, then PadN) unless limit is None, as an ICMPv6 error quotes it."""
    if limit is None:
        pkt = ipv6(LOCAL6, REMOTE6, nh, inner)
    else:
        dst = struct.pack(">BBBBBBBB", nh, 0, 4, 1, limit, 1, 1, 0)
        pkt = ipv6(LOCAL6, REMOTE6, IPPROTO_DSTOPTS, dst + inner)
    return pkt[:cut] if cut else pkt


def icmp6_err_seeds():
    s = {}
    big6 = tcp6_packet(1400, partial=False)
    big4 = tcp4_packet(1400, partial=False)
    dev = a6("2001:db8:aa::1")
    s["err6_unreach_ip6ip6"] = icmp_cfg(1280, 1, 0, 0, ERR6 | ERR_SIT | ERR_LOCAL | SRC6, dev) + \
        our_outer6(tcp6_packet(200, partial=False), IPPROTO_IPV6)
    s["err6_hoplimit_ipip6"] = icmp_cfg(576, 3, 0, 0, ERR6 | ERR_IPIP | SRC4, a4("192.0.2.99")) + \
        our_outer6(tcp4_packet(200, partial=False), IPPROTO_IPIP)
    s["err6_ptb_ip6ip6"] = icmp_cfg(1280, 2, 0, 1400, ERR6 | ERR_SIT | ERR_LOCAL) + \
        our_outer6(big6, IPPROTO_IPV6, cut=1232)
    s["err6_ptb_ipip6_mtu"] = icmp_cfg(2047, 2, 0, 1380, ERR6 | ERR_IPIP | ERR_TTL64,
                                       bytes(12) + struct.pack(">HH", 1400, 0)) + \
        our_outer6(big4, IPPROTO_IPIP, limit=None, cut=1232)
    s["err6_paramprob_limit0"] = icmp_cfg(1280, 4, 0, 44, ERR6 | ERR_SIT | ERR_LOCAL) + \
        our_outer6(tcp6_packet(100, partial=False), IPPROTO_IPV6, limit=0)
    s["err6_short_quote"] = icmp_cfg(1280, 1, 0, 0, ERR6) + \
        our_outer6(tcp6_packet(100, partial=False), IPPROTO_IPV6, cut=48 + 8)
    return s


# ---------------------------------------------------------------- fuzz_ptb6 seeds

PTB_GUE, PTB_PORT = 4, 8


def ptb6(mtu, inner, gue_proto=None, dport=5555, limit=4, cut=1232, typ=2, code=0):
    """fuzz_ptb6.c: a router's Packet Too Big from its ICMPv6 header, quoting one of our
    fou6 packets (the option unless limit is None, UDP from an auto port, GUE if asked)
    cut to what fits 1280 bytes."""
    pl = (gue(gue_proto) if gue_proto is not None else b"") + inner
    udp = struct.pack(">HHHH", 40001, dport, 8 + len(pl), 0) + pl
    if limit is None:
        pkt = ipv6(LOCAL6, REMOTE6, 17, udp)
    else:
        pkt = ipv6(LOCAL6, REMOTE6, IPPROTO_DSTOPTS,
                   struct.pack(">BBBBBBBB", 17, 0, 4, 1, limit, 1, 1, 0) + udp)
    return struct.pack(">BBHI", typ, code, 0, mtu) + pkt[:cut]


def ptb6_seeds():
    big6 = tcp6_packet(1380, partial=False)
    big4 = tcp4_packet(1400, partial=False)
    return {
        "fou_ip6ip6": bytes([MODE_SIT]) + ptb6(1400, big6),
        "gue_ipip6": bytes([MODE_IPIP | PTB_GUE]) + ptb6(1400, big4, gue_proto=4),
        "fou_any_nolimit": bytes([MODE_ANY]) + ptb6(1400, big4, limit=None),
        "gue_v1_any": bytes([MODE_ANY | PTB_GUE]) + ptb6(1300, big6),
        "other_port": bytes([MODE_SIT]) + ptb6(1400, big6, dport=4789),
        "any_port_low_mtu": bytes([MODE_SIT | PTB_PORT]) + ptb6(900, big6, dport=4789),
        "short_udp": bytes([MODE_SIT]) + ptb6(1400, big6, cut=40 + 8 + 4),
        "unreach": bytes([MODE_SIT]) + ptb6(0, big6, typ=1, code=3),
    }


# ---------------------------------------------------------------- fuzz_cli seeds

def argv(*args):
    return b"\0".join(a.encode() for a in args)


def cli_seeds():
    return {
        "sit_local_remote": argv("tun0", "mode", "sit", "remote", "192.0.2.2", "local", "192.0.2.1"),
        "sit_all_options": argv("sit1", "remote", "198.51.100.2", "local", "any", "ttl", "64",
                                "tos", "inherit", "pmtudisc", "dev", "eth0", "mtu", "1480"),
        "ipip_name_kw": argv("name", "ipip0", "mode", "ip/ip", "remote", "203.0.113.5",
                             "ttl", "inherit", "tos", "inherit/b8", "pmtudisc"),
        "ipv6ip_aliases": argv("he-ipv6", "mode", "ipv6/ip", "remote", "198.51.100.7", "local",
                               "203.0.113.9", "hoplimit", "255", "tclass", "0x10"),
        "any_dsfield_hlim": argv("t", "mode", "any", "remote", "192.0.2.200", "dsfield",
                                 "inherit", "hlim", "1", "mtu", "65515"),
        "ip6ip_nopmtudisc_nogso": argv("six", "mode", "ip6ip", "remote", "203.0.113.1",
                                       "nopmtudisc", "nogso", "nogro"),
        "gue_ports_csum": argv("gue0", "mode", "any", "remote", "198.51.100.2", "encap", "gue",
                               "encap-sport", "auto", "encap-dport", "5555", "encap-csum",
                               "noencap-remcsum", "mtu", "65503"),
        "help": argv("help"),
        "clamp_keepalive": argv("sit1", "remote", "192.0.2.2", "clamp-mss", "keepalive", "10,3",
                                "keepalive-peer", "2001:db8::1"),
        "clamp_n_ipip_ka": argv("ipip1", "clamp-mss", "1200", "remote", "192.0.2.2", "keepalive",
                                "5", "keepalive-peer", "198.51.100.1"),
        "bad_mode": argv("tun0", "mode", "gre", "remote", "192.0.2.2"),
        "remote_any": argv("sit0", "remote", "any"),
        "ttl_twice": argv("sit0", "remote", "192.0.2.2", "ttl", "1", "ttl", "2"),
        "ttl_nopmtudisc": argv("sit0", "remote", "192.0.2.2", "ttl", "64", "nopmtudisc"),
        "mtu_below_sit_min": argv("sit0", "remote", "192.0.2.2", "mtu", "1279"),
        "dev_slash": argv("ipip9", "remote", "198.51.100.1", "dev", "a/b"),
        "missing_value": argv("sit0", "remote"),
        "long_name": argv("abcdefghijklmnop", "mode", "sit", "remote", "192.0.2.2"),
        # An IPv6 underlay (ip6tnl): ip -6 tunnel's words, their defaults and refusals.
        "ip6ip6_defaults": argv("t6", "mode", "ip6ip6", "remote", "2001:db8::2", "local", "2001:db8::1"),
        "ipip6_all_words": argv("b4", "mode", "ipip6", "remote", "2001:db8:ffff::1", "local",
                                "2001:db8:1::2", "dev", "eth0", "encaplimit", "none", "hoplimit",
                                "inherit", "tclass", "0xb8", "flowlabel", "0x12345", "dscp", "inherit",
                                "allow-localremote", "mtu", "1452", "nogso"),
        "any6_aliases": argv("name", "t", "mode", "any/ipv6", "remote", "2001:db8::9", "tc", "inherit",
                             "fl", "inherit", "hlim", "1", "encaplimit", "0", "mtu", "68",
                             "address", "192.0.0.2/29", "route", "0.0.0.0/0"),
        "ip6tnl_no_mode": argv("ip6tnl1", "remote", "2001:db8::2", "ttl", "255", "tos", "1"),
        "ip6_ll_dev": argv("t", "mode", "ip4ip6", "remote", "fe80::1", "dev", "eth0",
                           "noallow-localremote", "mtu", "65495"),
        "ip6_mixed_families": argv("t", "mode", "any", "remote", "2001:db8::2", "local", "192.0.2.1"),
        "ip6_sit_word": argv("t", "mode", "ip6ip6", "remote", "2001:db8::2", "nopmtudisc"),
        "ip6_remote_any": argv("t", "mode", "ip6ip6", "remote", "any", "local", "2001:db8::1"),
        "ip6_word_on_sit": argv("sit1", "remote", "192.0.2.2", "encaplimit", "4", "flowlabel", "1"),
        # netns (conf.h): a name, a path, a process id; refusals.
        "netns_name": argv("sit1", "remote", "192.0.2.2", "netns", "c1", "address", "2001:db8::1/64"),
        "netns_pid_bad": argv("sit1", "remote", "192.0.2.2", "netns", "0123", "netns", "a/b"),
    }


# ---------------------------------------------------------------- fuzz_gro seeds

GRO_OFF, GRO_TWICE = 1, 2                   # fuzz_gro.c, byte 0
FIX_LEN, FIX_TCP, CONTINUE = 1, 2, 4        # fuzz_gro.c, each chunk's flags
GRO_ACK4, GRO_ACK6 = 0x5A100001, 0x77000001


def seg4(seq, pay, flags=ACK, ident=0x100, df=True, sport=40001, ack=GRO_ACK4,
         opts=TCP_TS_OPTS, bad=False, tos=0, ttl=64, ip_options=b"", seed=0):
    """An IPv4 TCP segment as it comes out of the tunnel: complete checksums."""
    seg = tcp(sport, 443, seq & 0xFFFFFFFF, ack, flags, pattern(pay, seed), opts, window=501)
    seg = l4_full(seg, 16, pseudo4(a4(HOST4_A), a4(HOST4_B), IPPROTO_TCP, len(seg)))
    if bad:
        seg = seg[:17] + bytes([seg[17] ^ 0x40]) + seg[18:]
    return ipv4(HOST4_A, HOST4_B, IPPROTO_TCP, seg, tos=tos, ttl=ttl, ident=ident & 0xFFFF,
                df=df, options=ip_options)


def seg6(seq, pay, flags=ACK, sport=40000, ack=GRO_ACK6, opts=TCP_TS_OPTS, bad=False,
         tclass=0, hlim=64, seed=0):
    seg = tcp(sport, 443, seq & 0xFFFFFFFF, ack, flags, pattern(pay, seed), opts, window=501)
    seg = l4_full(seg, 16, pseudo6(a6(HOST6_A), a6(HOST6_B), IPPROTO_TCP, len(seg)))
    if bad:
        seg = seg[:17] + bytes([seg[17] ^ 0x40]) + seg[18:]
    return ipv6(HOST6_A, HOST6_B, IPPROTO_TCP, seg, tclass=tclass, flow=0x12345, hlim=hlim)


def chunk(pkt, flags=0):
    return struct.pack(">BH", flags, len(pkt)) + pkt


def cont(pay, off=0, xor=0, flags=CONTINUE):
    """The next segment of the previous packet's flow, made by the harness."""
    return struct.pack(">BHBBH", flags, 4, off, xor, pay)


def run(mk, seq, sizes, **kw):
    """Contiguous segments of one flow: mk(seq, pay, ident=..., flags=...) for each size;
    a size given as (n, flags) sets that segment's flags."""
    out = []
    for k, sz in enumerate(sizes):
        pay, fl = sz if isinstance(sz, tuple) else (sz, ACK)
        extra = dict(kw)
        if mk is seg4:
            extra["ident"] = kw.get("ident", 0x100) + k
        out.append(mk(seq, pay, flags=fl, seed=k, **{k2: v for k2, v in extra.items()
                                                      if k2 != "seed"}))
        seq += pay
    return out


def gro_seeds():
    s = {}
    # Five contiguous IPv4 segments of one flow, 4 x 1448 + 500: one item of five.
    s["tcp4_run5"] = b"\0" + b"".join(chunk(p) for p in run(seg4, 1000, [1448] * 4 + [500]))
    # IPv6, 3 x 1428 then one byte with PSH: one item, PSH on the head.
    s["tcp6_run_psh"] = b"\0" + b"".join(
        chunk(p) for p in run(seg6, 0xFFFFF000, [1428] * 3 + [(1, ACK | PSH)]))
    # Two flows interleaved, IPv4 and IPv6: two items each, in order.
    a = run(seg4, 5000, [500] * 3)
    b = run(seg4, 90000, [500] * 3, sport=40002, ident=0x900)
    s["tcp4_two_flows"] = b"\0" + b"".join(chunk(p) for pair in zip(a, b) for p in pair)
    a = run(seg6, 5000, [700] * 3)
    b = run(seg6, 90000, [700] * 2, sport=40002)
    s["tcp6_two_flows"] = b"\0" + b"".join(chunk(p) for p in [a[0], b[0], a[1], b[1], a[2]])
    # A PSH in the middle closes the item; the next starts another.
    s["tcp4_psh_middle"] = b"\0" + b"".join(
        chunk(p) for p in run(seg4, 1, [1000, (1000, ACK | PSH), 1000, 10]))
    # A wrong checksum: never merged; the segments after it merge without it.
    p = run(seg4, 7, [800] * 4)
    p[1] = seg4(7 + 800, 800, ident=0x101, seed=1, bad=True)
    s["tcp4_bad_csum"] = b"\0" + b"".join(chunk(x) for x in p)
    p = run(seg6, 7, [800] * 3)
    p[0] = seg6(7, 800, bad=True)
    s["tcp6_bad_csum_head"] = b"\0" + b"".join(chunk(x) for x in p)
    # DF clear: IDs count up across 0xffff, sequence numbers across 2^32.
    s["tcp4_nodf_ids_wrap"] = b"\0" + b"".join(
        chunk(p) for p in run(seg4, 0xFFFFF800, [1000] * 3 + [300], df=False, ident=0xFFFE))
    # GRO off: the same run goes up segment by segment; and a batch run twice.
    s["disabled_tcp4"] = bytes([GRO_OFF]) + b"".join(chunk(p) for p in run(seg4, 1, [600] * 3))
    s["twice_tcp6"] = bytes([GRO_TWICE]) + b"".join(chunk(p) for p in run(seg6, 1, [900] * 4))
    # One segment and 64 made by the harness: an item of 64 fills the batch, the 65th is
    # refused.
    s["cont_tcp4_64seg"] = b"\0" + chunk(seg4(1, 100, opts=b"")) + b"".join(cont(100) for _ in range(64))
    # 72 + 45 x 1428 + 1203 = 65535 bytes, then one byte more: the last goes alone.
    s["cont_tcp6_65535"] = b"\0" + chunk(seg6(1, 1428)) + b"".join(cont(1428) for _ in range(44)) + \
        cont(1203) + cont(1)
    # Damaged on the way: TTL changed (not covered by the TCP checksum), a port changed
    # (covered), then undamaged again.
    s["cont_damaged"] = b"\0" + chunk(seg4(1, 1000)) + cont(1000) + cont(1000, off=8, xor=1) + \
        cont(1000, off=21, xor=4) + cont(1000)
    # DF clear, and the next segment's ID skips one (header checksum made right again):
    # RFC 6864 says it may not merge.
    s["cont_nodf_id_skip"] = b"\0" + chunk(seg4(1, 1000, df=False, ident=0x4000)) + \
        cont(1000) + cont(1000, off=5, xor=3, flags=CONTINUE | FIX_LEN) + cont(1000)
    # Other packets among a flow's: UDP, a pure ACK of the flow (nothing may pass it),
    # IPv4 with options and a first fragment.
    udp4 = ipv4(HOST4_A, HOST4_B, IPPROTO_UDP, l4_full(
        udp(5353, 53, pattern(100, 9)), 6, pseudo4(a4(HOST4_A), a4(HOST4_B), IPPROTO_UDP, 108)))
    p = run(seg4, 1, [500] * 4)
    pure_ack = seg4(1 + 1000, 0, ident=0x102)
    opts = seg4(1 + 1500, 500, ident=0x103, ip_options=bytes([1, 1, 1, 0]))
    mf = ipv4(HOST4_A, HOST4_B, IPPROTO_TCP, seg4(1, 500)[20:], ident=0x104, df=False, mf=True)
    s["mixed_between"] = b"\0" + b"".join(chunk(x) for x in [p[0], udp4, p[1], pure_ack, p[2], opts, mf, p[3]])
    # Raw bytes the harness makes into valid packets: lengths and checksums left to it.
    rough = bytearray(seg6(1, 300))
    rough[4:6] = b"\0\0"
    rough[56:58] = b"\0\0"
    s["fixups"] = b"\0" + chunk(bytes(rough), FIX_LEN | FIX_TCP) + cont(300, flags=CONTINUE | FIX_TCP)
    return s


# ---------------------------------------------------------------- fuzz_config seeds

def config_seeds():
    """fuzz_config.c: the text of a sitd.conf(5) file, as is."""
    nogso61 = " nogso" * 61
    return {
        "example": b"# A 6in4 tunnel to a tunnel broker.\n"
                   b"tunnel he-ipv6\n"
                   b"\tmode sit remote 203.0.113.1 local 192.0.2.10\n"
                   b"\tttl 255\n"
                   b"\n"
                   b"# IPv4 in IPv4 inside UDP, to cross a NAT.\n"
                   b"tunnel ipip0 mode ipip remote 198.51.100.7 local 192.0.2.10\n"
                   b"\tencap fou encap-dport 5555 encap-csum\n",
        "one_line": b"tunnel sit1 mode sit remote 192.0.2.2 local 192.0.2.1 ttl 64\n",
        "crlf_comments": b"# made on Windows\r\ntunnel sit1\r\n\tremote 192.0.2.2 # peer\r\n\r\n"
                         b"tunnel ipip1 remote 198.51.100.7 ttl 64\r\n\tmtu 1400\r\n",
        "all_keywords": b"tunnel\n name t-any\n mode any remote 203.0.113.9 local any\n"
                        b" hoplimit inherit tclass inherit/b8 nopmtudisc dev eth0 mtu 1472\n"
                        b" encap gue encap-sport auto encap-dport 6080 encap-csum\n"
                        b" noencap-udp6-csum noencap-remcsum nogso nogro\n"
                        b"tunnel sit7 remote 198.51.100.1 dsfield 10 hlim 1 pmtudisc"
                        b" encap fou encap-sport 4000 encap-dport 5555\n",
        "five_tunnels": b"".join(b"tunnel sit%d remote 192.0.2.%d\n" % (i, i + 1) for i in range(5)),
        "words_64": b"tunnel sit1 remote 192.0.2.2\n" + nogso61.encode() + b"\n",
        "bad_ttl_line7": b"# sitd.conf\ntunnel sit1\n\tmode sit\n\tremote 192.0.2.2\n\n"
                         b"# the hop limit\n\tttl 300\n",
        "missing_remote": b"tunnel sit1 remote 192.0.2.2\n# second\ntunnel sit2\n\tmode sit\n",
        "duplicate": b"tunnel sit1 remote 192.0.2.2\ntunnel sit1 remote 192.0.2.3\n",
        "word_before_tunnel": b"mode sit\ntunnel sit1 remote 192.0.2.2\n",
        "word_64_bytes": b"tunnel sit1 remote 192.0.2.2 mtu " + b"0" * 60 + b"1400\n",
        "words_65": b"tunnel sit1 remote 192.0.2.2\n" + nogso61.encode() + b" nogro\n",
        "nul_byte": b"tunnel sit1 remote 192.0.2.2\n# a comment \0 with a NUL\n\tmtu 14\x0000\n",
        "value_missing": b"tunnel sit1 remote 192.0.2.2 ttl\n",
        "empty_stanza": b"tunnel\ntunnel sit1 remote 192.0.2.2\n",
        # sitd show -j must stay JSON whatever bytes a name has (dev_valid_name allows '"').
        "regress-json-quote-in-name": b'tunnel sit"1 remote 192.0.2.2\n',
        # IPv6 underlays (ip6tnl) beside sit; a DS-Lite B4; errors at the offending line.
        "ip6tnl_stanzas": b"tunnel t6 mode ip6ip6 remote 2001:db8::2 local 2001:db8::1\n"
                          b"\tencaplimit none hoplimit 255 tclass inherit flowlabel 0x12345\n"
                          b"# DS-Lite (RFC 6333): the B4 end, to the AFTR\n"
                          b"tunnel b4\n\tmode ipip6 remote 2001:db8:ffff::1 local 2001:db8:1::2\n"
                          b"\tdscp inherit allow-localremote mtu 1452 route 0.0.0.0/0\n"
                          b"tunnel any6 mode any remote 2001:db8::9 tc 0x20 fl inherit dev eth0\n"
                          b"tunnel sit1 remote 192.0.2.2\n",
        "ip6_word_on_sit_line3": b"tunnel sit1 remote 192.0.2.2\n\tttl 64\n\tencaplimit 4\n",
        "ip6_bad_family_line2": b"tunnel b4 mode ipip6\n\tremote 192.0.2.2\n",
    }


# ---------------------------------------------------------------- fuzz_import_* seeds

HE_IFUPDOWN = (b"# a tunnel broker's 6in4 tunnel\nauto he-ipv6\n"
               b"iface he-ipv6 inet6 v4tunnel\n    address 2001:db8:1234::2\n    netmask 64\n"
               b"    endpoint 203.0.113.1\n    local 192.0.2.10\n    ttl 255\n"
               b"    gateway 2001:db8:1234::1\n")


def import_ifupdown_seeds():
    """fuzz_import_ifupdown.c: an interfaces(5) file, as is."""
    return {
        "he_v4tunnel": HE_IFUPDOWN,
        "ipip_tunnel": b"iface ipip0 inet tunnel\n\tmode ipip\n\taddress 198.51.100.1\n"
                       b"\tnetmask 255.255.255.252\n\tendpoint 203.0.113.7\n\tlocal 192.0.2.10\n"
                       b"\tttl 64\n\tmtu 1480\n\tgateway 198.51.100.2\n\tmetric 5\n",
        "whole_file": b"auto lo eth0\niface lo inet loopback\n\niface eth0 inet static\n"
                      b"    address 192.0.2.10/24\n    gateway 192.0.2.1\nmapping eth1\n"
                      b"    script /bin/true\n" + HE_IFUPDOWN.replace(b"2001:db8:1234::2\n",
                                                                  b"\\\n  2001:db8:1234::2\n"),
        "refusals": b"\taddress 192.0.2.1\niface gre1 inet tunnel\n\tmode gre\n\tdstaddr 198.51.100.2\n"
                    b"iface he-ipv6 inet6 v4tunnel\n\taddress 2001:db8::2/64\n\tnetmask 48\n"
                    b"\tpreferred-lifetime 0\n\tup true\n\tmetric 3\n"
                    b"iface he-ipv6 inet6 static\nsource /etc/network/interfaces.d/*\n",
        "mtu_refused_by_sitd": b"iface sit1 inet6 v4tunnel\n\taddress 2001:db8::2/64\n"
                               b"\tendpoint 203.0.113.1\n\tmtu 1000\n",
    }


def nd(*files):
    return b"".join(name + b"\0" + text + b"\0" for name, text in files)


HE_NETDEV = (b"he-ipv6.netdev", b"[NetDev]\nName=he-ipv6\nKind=sit\nMTUBytes=1480\n\n[Tunnel]\n"
             b"Local=192.0.2.10\nRemote=203.0.113.1\nTTL=255\n")
HE_NETWORK = (b"he-ipv6.network", b"[Match]\nName=he-ipv6\n\n[Network]\nAddress=2001:db8:1234::2/64\n"
              b"Gateway=2001:db8:1234::1\n")


def import_networkd_seeds():
    """fuzz_import_networkd.c: NAME\\0TEXT\\0 per file."""
    return {
        "he_pair": nd(HE_NETDEV, HE_NETWORK),
        "underlay_routes": nd((b"eth0.network", b"[Match]\nName=eth0\n[Network]\nDHCP=yes\nTunnel=he-ipv6\n"),
                              HE_NETDEV,
                              (b"he-ipv6.network", b"[Match]\nName=he-ipv6\n[Address]\nAddress=2001:db8:1::2/64\n"
                               b"[Route]\nDestination=2001:db8:99::/48\nGateway=2001:db8:1::1\nMetric=10\n"
                               b"Table=100\n[Route]\nDestination=2001:db8:aa::/48\n")),
        "fou_6rd_isatap": nd((b"ipip0.netdev", b"[NetDev]\nName=ipip0\nKind=ipip\n[Tunnel]\n"
                              b"Remote=198.51.100.7\nIndependent=yes\nFooOverUDP=yes\n"
                              b"FOUDestinationPort=5555\nEncapsulation=GenericUDPEncapsulation\n"),
                             (b"6rd.netdev", b"[NetDev]\nName=6rd\nKind=sit\n[Tunnel]\nLocal=192.0.2.10\n"
                              b"IPv6RapidDeploymentPrefix=2001:db8::/32\nDiscoverPathMTU=no\n"),
                             (b"is0.netdev", b"[NetDev]\nName=is0\nKind=sit\n[Tunnel]\nLocal=192.0.2.10\n"
                              b"ISATAP=yes\n")),
        "refusals": nd((b"a.netdev", b"Name=x\n[Match]\nHost=h\n[NetDev]\nKind=gre\nMTUBytes=1K\n"
                        b"[Tunnel]\nTOS=8\nTTL=300\nFOUSourcePort=1\n[Tun\n"),
                       (b"b.network", b"[Match]\nName=b\n[Network]\nTunnel=zz\n"),
                       (b"c.conf", b"")),
    }


# ---------------------------------------------------------------- fuzz_isatap_nd

ISATAP_SRC = "fe80::5efe:cb00:7102"     # fe80::5efe:203.0.113.2, an ISATAP host
ISATAP_DST = "fe80::5efe:c633:6401"     # fe80::5efe:198.51.100.1, sitd's end
NODE_HOST, NODE_DEFAULT, NODE_NODEFAULT = 3, 1, 2   # enum sitd_isatap_node
CHAIN = 4                                           # [0] bit 2: fuzz_chain mode


def nd_msg(typ, rest, body):
    """ICMPv6 neighbour discovery message without its checksum (RFC 4861 4)."""
    return icmp6(typ, 0, rest, body)


def ra_msg(lifetime=1800):
    # Cur Hop Limit 64, no flags, Router Lifetime, Reachable Time, Retrans Timer.
    return nd_msg(134, 64 << 24 | lifetime, struct.pack(">II", 0, 0))


def nd_packet(msg, ext=b"", first=IPPROTO_ICMPV6):
    """IPv6 from the ISATAP host, hop limit 255, ext then msg with its ICMPv6 checksum."""
    pseudo = pseudo6(a6(ISATAP_SRC), a6(ISATAP_DST), IPPROTO_ICMPV6, len(msg))
    return ipv6(ISATAP_SRC, ISATAP_DST, first, ext + l4_full(msg, 2, pseudo), hlim=255)


def isatap_nd_seeds():
    ra, redirect = ra_msg(), nd_msg(137, 0, a6(HOST6_A) + a6(HOST6_B))
    ns, na = nd_msg(135, 0, a6(ISATAP_DST)), nd_msg(136, 0x60000000, a6(ISATAP_SRC))
    dst = ext_hdr(IPPROTO_ICMPV6, 0)
    hbh_dst = ext_hdr(IPPROTO_DSTOPTS, 1) + dst
    rt = struct.pack(">BBBB", IPPROTO_ICMPV6, 1, 4, 0) + bytes(12)
    ten = b"".join(ext_hdr(IPPROTO_DSTOPTS, 0) for _ in range(9)) + dst
    raw = {
        "ra-host-plain": bytes([NODE_HOST]) + nd_packet(ra),
        "ra-host-dstopts": bytes([NODE_HOST]) + nd_packet(ra, dst, IPPROTO_DSTOPTS),
        "ra-host-hbh-dstopts": bytes([NODE_HOST]) + nd_packet(ra, hbh_dst, IPPROTO_HOPOPTS),
        "ra-host-routing": bytes([NODE_HOST]) + nd_packet(ra, rt, IPPROTO_ROUTING),
        "ra-host-10-dstopts": bytes([NODE_HOST]) + nd_packet(ra, ten, IPPROTO_DSTOPTS),
        "ra-nodefault-chain": bytes([NODE_NODEFAULT]) + nd_packet(ra, hbh_dst, IPPROTO_HOPOPTS),
        "ra-default-dstopts": bytes([NODE_DEFAULT]) + nd_packet(ra, dst, IPPROTO_DSTOPTS),
        "redirect-host": bytes([NODE_HOST]) + nd_packet(redirect, dst, IPPROTO_DSTOPTS),
        "redirect-nodefault": bytes([NODE_NODEFAULT]) + nd_packet(redirect),
        "ns-host-dstopts": bytes([NODE_HOST]) + nd_packet(ns, dst, IPPROTO_DSTOPTS),
        "na-host": bytes([NODE_HOST]) + nd_packet(na),
        "ra-host-first-fragment": bytes([NODE_HOST]) + nd_packet(
            ra, frag_hdr(IPPROTO_ICMPV6, 0, True, 0x5efe), IPPROTO_FRAGMENT),
        "ra-nodefault-first-fragment": bytes([NODE_NODEFAULT]) + nd_packet(
            ra, frag_hdr(IPPROTO_ICMPV6, 0, True, 0x5efe), IPPROTO_FRAGMENT),
        "later-fragment": bytes([NODE_HOST]) + nd_packet(
            ra, frag_hdr(IPPROTO_ICMPV6, 64, False, 0x5efe), IPPROTO_FRAGMENT),
        "first-fragment-short": bytes([NODE_HOST]) + ipv6(
            ISATAP_SRC, ISATAP_DST, IPPROTO_FRAGMENT,
            frag_hdr(IPPROTO_ICMPV6, 0, True, 0x5efe) + bytes([134, 0, 0]), hlim=255),
        "chain-truncated": bytes([NODE_HOST]) + nd_packet(ra, hbh_dst, IPPROTO_HOPOPTS)[:52],
    }
    # Chain mode: [1] the count, one byte per header (kind | units << 2 | M << 4), the body.
    chain = {
        "chain-dst-ra": bytes([CHAIN | NODE_HOST, 1, 1]) + ra,
        "chain-hbh-dst-rt-ra": bytes([CHAIN | NODE_NODEFAULT, 3, 0, 1 | 4, 2]) + ra,
        "chain-frag-ra": bytes([CHAIN | NODE_HOST, 2, 1, 3 | 16]) + ra,
        "chain-frag-short": bytes([CHAIN | NODE_NODEFAULT, 1, 3]) + ra[:5],
        "chain-12-redirect": bytes([CHAIN | NODE_HOST, 12]) + bytes([1] * 12) + redirect,
        "chain-ns": bytes([CHAIN | NODE_HOST, 2, 0, 1]) + ns,
    }
    raw.update(chain)
    return raw


# ---------------------------------------------------------------- main


# ---------------------------------------------------------------- fuzz_privmsg

def privreq(typ, flag=0, proto=0, port=0, pmtudisc=0, ifindex=0, local=0, mtu=0, name=b"",
            family=0, plen=0, addr=b"", via=b"", metric=0, table=0, token=b""):
    """struct priv_req (src/proto/privmsg.h), little-endian as on x86_64 and arm64."""
    route = struct.pack("<BB16s16s2xII", family, plen, addr, via, metric, table)
    return struct.pack("<HBBHBBIII16s", typ, flag, proto, port, pmtudisc, 0, ifindex, local,
                       mtu, name) + route + struct.pack("16s", token)


# enum priv_type (src/proto/privmsg.h), in its order from 1.
PRIV = {name: i + 1 for i, name in enumerate([
    "tun-open", "raw-open", "raw-send-open", "udp-rx-open", "udp-tx-open", "link-mtu",
    "link-up", "addr", "route", "isatap", "config-open", "ready", "packet-tx-open",
    "ring-open", "icmp6-dev-open", "raw6-open", "raw6-send-open", "netns-nl-open",
    "netns-check", "metrics-listen", "tun-doom", "tun-purge",
    "udp6-rx-open", "icmp6-ptb-open"])}


def privmsg_seeds():
    tok = bytes(8) + bytes([0, 0, 0x5e, 0xfe]) + a4(LOCAL4)
    return {
        "tun-open": privreq(PRIV["tun-open"], flag=1, name=b"sit1"),
        "raw-open-41": privreq(PRIV["raw-open"], proto=41),
        "raw-open-4": privreq(PRIV["raw-open"], proto=4),
        "raw-send-open": privreq(PRIV["raw-send-open"]),
        "udp-rx-open": privreq(PRIV["udp-rx-open"], port=5555),
        "udp6-rx-open": privreq(PRIV["udp6-rx-open"], port=5555),
        "icmp6-ptb-open": privreq(PRIV["icmp6-ptb-open"]),
        "udp-tx-open": privreq(PRIV["udp-tx-open"], local=0xc0000201, port=0, name=b"veth0",
                               pmtudisc=3, flag=1),
        "link-mtu": privreq(PRIV["link-mtu"], name=b"sit1", mtu=1480),
        "link-up": privreq(PRIV["link-up"], ifindex=5),
        "addr6": privreq(PRIV["addr"], ifindex=5, flag=1, family=6, plen=64,
                         addr=a6("2001:db8:64::1")),
        "addr4": privreq(PRIV["addr"], ifindex=5, flag=1, family=4, plen=24, addr=a4(LOCAL4)),
        "route6": privreq(PRIV["route"], ifindex=5, flag=1, family=6, plen=48,
                          addr=a6("2001:db8:99::"), via=a6("2001:db8:64::2"), metric=100,
                          table=254),
        "isatap": privreq(PRIV["isatap"], ifindex=5, token=tok),
        "config-open": privreq(PRIV["config-open"]),
        "ready": privreq(PRIV["ready"]),
        "packet-tx-open": privreq(PRIV["packet-tx-open"]),
        "ring-open-41": privreq(PRIV["ring-open"], proto=41),
        "icmp6-dev-open": privreq(PRIV["icmp6-dev-open"], ifindex=5),
        "raw6-open-41": privreq(PRIV["raw6-open"], proto=41),
        "raw6-open-4": privreq(PRIV["raw6-open"], proto=4),
        "raw6-send-open": privreq(PRIV["raw6-send-open"]),
        "netns-check": privreq(PRIV["netns-check"], name=b"sit1"),
        "link-up-netns": privreq(PRIV["link-up"], ifindex=2, name=b"sit1"),
        "metrics-listen": privreq(PRIV["metrics-listen"]),
        "tun-doom": privreq(PRIV["tun-doom"], ifindex=5),
        "tun-purge": privreq(PRIV["tun-purge"]),
        "bad-name": privreq(PRIV["tun-open"], name=b"../x"),
        "short": privreq(PRIV["link-up"], ifindex=5)[:40],
    }

# ---------------------------------------------------------------- fuzz_http

def http_seeds():
    """Request heads as curl, Prometheus and the tests' bad clients send them; -M words."""
    host = b"Host: 127.0.0.1:9724\r\n"
    return {
        "prometheus": b"GET /metrics HTTP/1.1\r\n" + host +
        b"User-Agent: Prometheus/2.42.0\r\nAccept: application/openmetrics-text;"
        b"version=1.0.0,text/plain;version=0.0.4;q=0.5,*/*;q=0.1\r\n"
        b"Accept-Encoding: gzip\r\nX-Prometheus-Scrape-Timeout-Seconds: 10\r\n\r\n",
        "curl": b"GET /metrics HTTP/1.1\r\n" + host + b"User-Agent: curl/7.88.1\r\nAccept: */*\r\n\r\n",
        "http10-lf": b"GET /metrics HTTP/1.0\n\n",
        "head": b"HEAD /metrics HTTP/1.1\r\n" + host + b"\r\n",
        "query": b"GET /metrics?x=1 HTTP/1.1\r\n" + host + b"\r\n",
        "not-found": b"GET / HTTP/1.1\r\n" + host + b"\r\n",
        "post": b"POST /metrics HTTP/1.1\r\n" + host + b"Content-Length: 5\r\n\r\nhello",
        "chunked": b"GET /metrics HTTP/1.1\r\n" + host + b"Transfer-Encoding: chunked\r\n\r\n",
        "http2": b"GET /metrics HTTP/2.0\r\n\r\n",
        "no-host": b"GET /metrics HTTP/1.1\r\n\r\n",
        "folded": b"GET /metrics HTTP/1.1\r\n" + host + b" folded\r\n\r\n",
        "absolute": b"GET http://127.0.0.1/metrics HTTP/1.1\r\n" + host + b"\r\n",
        "partial": b"GET /metr",
        "listen-port": b"9724",
        "listen-v4": b"192.0.2.1:9724",
        "listen-v6": b"[2001:db8::1]:9724",
    }


def mss_cfg(cs, mss):
    """fuzz_mss.c's first 3 bytes: the checksum's form (0 full, 1 partial, 2 check), the limit."""
    return struct.pack(">BH", cs, mss)


MSS_OPTS = bytes([2, 4, 0x05, 0xB4, 4, 2, 8, 10, 0, 0, 0, 1, 0, 0, 0, 0, 1, 3, 3, 7])
MSS_ODD = bytes([1, 2, 4, 0x23, 0x28, 1, 1, 0])


def mss_seeds():
    syn4 = tcp4_packet(0, flags=SYN, partial=False, options=MSS_OPTS)
    syn6 = tcp6_packet(0, flags=SYN | ACK, partial=False, options=MSS_OPTS)
    return {
        "syn4-1400": mss_cfg(0, 1400) + syn4,
        "syn4-check": mss_cfg(2, 1400) + syn4,
        "syn4-odd": mss_cfg(0, 1200) + tcp4_packet(3, flags=SYN, partial=False, options=MSS_ODD),
        "syn4-partial": mss_cfg(1, 1000) + tcp4_packet(0, flags=SYN, options=MSS_OPTS),
        "syn6-synack": mss_cfg(0, 1220) + syn6,
        "syn6-partial-check": mss_cfg(2, 1220) + tcp6_packet(0, flags=SYN, options=MSS_OPTS),
        "syn6-ext": mss_cfg(2, 1300) + tcp6_packet(0, flags=SYN, partial=False, options=MSS_OPTS,
                                                   ext=ext_hdr(IPPROTO_TCP, 0), ext_first=60),
        "no-mss": mss_cfg(0, 536) + tcp4_packet(0, flags=SYN, partial=False, options=bytes([1, 1, 4, 2])),
        "bad-len": mss_cfg(0, 536) + tcp4_packet(0, flags=SYN, partial=False,
                                                 options=bytes([8, 0, 2, 4, 5, 0xB4, 0, 0])),
        "ack": mss_cfg(0, 536) + tcp4_packet(10, flags=ACK, partial=False, options=MSS_OPTS),
    }


def ka_cfg(family, ident, seq, window):
    """fuzz_keepalive.c's first 6 bytes: bit 0 IPv6, identifier, last sequence, window."""
    return struct.pack(">BHHB", 1 if family == 6 else 0, ident, seq, window)


KA_PEER6 = "2001:db8::1"
KA_PEER4 = "198.51.100.2"
KA_PAYLOAD = b"sitd-ka\0"


def ka_seeds():
    def echo6(typ, ident, seq, src=KA_PEER6, dst=HOST6_A):
        m = icmp6(typ, 0, ident << 16 | seq, KA_PAYLOAD)
        m = set_csum(m, 2, csum(m, pseudo6(a6(src), a6(dst), IPPROTO_ICMPV6, len(m))))
        return ipv6(src, dst, IPPROTO_ICMPV6, m)

    def echo4(typ, ident, seq, src=KA_PEER4, dst=HOST4_A):
        return ipv4(src, dst, 1, icmp4(typ, 0, ident << 16 | seq, KA_PAYLOAD))

    return {
        "reply6": ka_cfg(6, 0x1234, 10, 4) + echo6(129, 0x1234, 9),
        "reply6-old": ka_cfg(6, 0x1234, 10, 4) + echo6(129, 0x1234, 3),
        "reply6-other-peer": ka_cfg(6, 0x1234, 10, 4) + echo6(129, 0x1234, 10, src=HOST6_B),
        "request6": ka_cfg(6, 0x1234, 10, 4) + echo6(128, 0x1234, 10),
        "reply4": ka_cfg(4, 0xBEEF, 2, 3) + echo4(0, 0xBEEF, 2),
        "reply4-wrap": ka_cfg(4, 0xBEEF, 1, 3) + echo4(0, 0xBEEF, 0xFFFF),
        "request4": ka_cfg(4, 0xBEEF, 2, 3) + echo4(8, 0xBEEF, 2),
    }


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus")
    targets = {"fuzz_tx": tx_seeds(), "fuzz_rx": rx_seeds(), "fuzz_icmp": icmp_seeds(),
               "fuzz_cli": cli_seeds(), "fuzz_udp": udp_seeds(), "fuzz_config": config_seeds(),
               "fuzz_gro": gro_seeds(), "fuzz_privmsg": privmsg_seeds(),
               "fuzz_isatap_nd": isatap_nd_seeds(),
               "fuzz_import_ifupdown": import_ifupdown_seeds(),
               "fuzz_import_networkd": import_networkd_seeds(),
               "fuzz_http": http_seeds(), "fuzz_mss": mss_seeds(),
               "fuzz_keepalive": ka_seeds(), "fuzz_ptb6": ptb6_seeds()}
    for target, seeds in targets.items():
        # fuzz_tx covers two outer families and fou6, the others one.
        assert len(seeds) < (48 if target == "fuzz_tx" else 32), target
        d = os.path.join(out, target)
        os.makedirs(d, exist_ok=True)
        for name, data in sorted(seeds.items()):
            with open(os.path.join(d, name), "wb") as f:
                f.write(data)
        print("%-10s %2d seeds, %6d bytes" % (target, len(seeds), sum(map(len, seeds.values()))))


if __name__ == "__main__":
    main()
