/**
 * The SSRF guard's address policy: which IP addresses an outbound request (webhook delivery, chat
 * notification, `http_pull` connector) may connect to. Loopback, private (RFC 1918, CGNAT, ULA),
 * link-local (including the cloud metadata address 169.254.169.254), unspecified, multicast and
 * reserved ranges are refused unless `OUTBOUND_ALLOWLIST` names the host or a CIDR holding the
 * address; outside production loopback is allowed (CONTRACT.md).
 */
import { BlockList, isIP } from 'node:net';

export interface OutboundPolicy {
  /** Loopback (127.0.0.0/8, ::1) allowed: development and test. */
  allowLoopback: boolean;
  /** Host names allowed whatever they resolve to (lowercase). */
  allowHosts: ReadonlySet<string>;
  /** Networks allowed although they are refused by default. */
  allowNetworks: BlockList;
}

const refused = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network", unspecified
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const)
  refused.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 96], // unspecified and IPv4-compatible (::a.b.c.d, deprecated: reaches the IPv4 address)
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT, RFC 6145)
  ['2002::', 16], // 6to4: embeds any IPv4 address, private ones included
  ['64:ff9b::', 96], // NAT64: reaches any IPv4 address, private ones included
  ['fc00::', 7], // unique local (fd00:ec2::254 is a metadata address)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const)
  refused.addSubnet(net, prefix, 'ipv6');

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** `::ffff:10.0.0.1` is 10.0.0.1: IPv4-mapped addresses are judged as the IPv4 address they carry. */
function normalise(address: string): { address: string; family: 'ipv4' | 'ipv6' } | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1], family: 'ipv4' };
  const version = isIP(address);
  if (version === 4) return { address, family: 'ipv4' };
  if (version === 6) return { address, family: 'ipv6' };
  return null;
}

/** Why `address` may not be reached, or null when it may. `host` is the name it was resolved from. */
export function refusalReason(policy: OutboundPolicy, address: string, host?: string): string | null {
  if (host && policy.allowHosts.has(host.toLowerCase())) return null;
  const ip = normalise(address);
  if (!ip) return `${address} is not an IP address`;
  if (policy.allowNetworks.check(ip.address, ip.family)) return null;
  if (loopback.check(ip.address, ip.family)) return policy.allowLoopback ? null : `${address} is a loopback address`;
  if (refused.check(ip.address, ip.family)) return `${address} is a private, link-local or reserved address`;
  return null;
}

/**
 * Parses an allowlist: comma-separated host names, IP addresses and CIDRs (`10.1.0.0/16`, `fd00::/8`).
 * Throws on a malformed CIDR so that a bad setting stops start-up.
 */
export function parseAllowlist(entries: readonly string[]): { hosts: Set<string>; networks: BlockList } {
  const hosts = new Set<string>();
  const networks = new BlockList();
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    const [net, prefix] = entry.split('/');
    const version = isIP(net);
    if (version) {
      const bits = prefix === undefined ? (version === 4 ? 32 : 128) : Number(prefix);
      if (!Number.isInteger(bits) || bits < 0 || bits > (version === 4 ? 32 : 128)) throw new Error(`${raw} is not a valid CIDR`);
      networks.addSubnet(net, bits, version === 4 ? 'ipv4' : 'ipv6');
    } else if (prefix !== undefined || !/^[a-z0-9.-]+$/.test(entry)) {
      throw new Error(`${raw} is neither a host name nor an IP address or CIDR`);
    } else {
      hosts.add(entry);
    }
  }
  return { hosts, networks };
}

export function outboundPolicy(options: { allowLoopback: boolean; allowlist?: readonly string[] }): OutboundPolicy {
  const { hosts, networks } = parseAllowlist(options.allowlist ?? []);
  return { allowLoopback: options.allowLoopback, allowHosts: hosts, allowNetworks: networks };
}

/** The policy of the settings: OUTBOUND_ALLOWLIST, and loopback outside production. */
export function outboundPolicyFromConfig(config: { NODE_ENV: string; OUTBOUND_ALLOWLIST?: readonly string[] }): OutboundPolicy {
  return outboundPolicy({ allowLoopback: config.NODE_ENV !== 'production', allowlist: config.OUTBOUND_ALLOWLIST });
}
