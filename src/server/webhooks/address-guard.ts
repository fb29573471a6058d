import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';

/**
 * Addresses a webhook must not reach unless the operator allows it: where a request from the server could read
 * what only the server may (server-side request forgery). Every block of the IANA IPv4 and IPv6 Special-Purpose
 * Address Registries (RFC 6890 and its updates; docs/rules.md cites them) is refused, globally reachable or not:
 * a webhook has no business with documentation, benchmarking or relay addresses either. Cloud metadata services
 * answer on link-local addresses (169.254.169.254, fd00:ec2::254).
 */
const BLOCKED = (() => {
  const list = new BlockList();
  const v4: Array<[string, number]> = [
    ['0.0.0.0', 8], // "this network"
    ['10.0.0.0', 8], // private (RFC 1918)
    ['100.64.0.0', 10], // shared address space, carrier-grade NAT (RFC 6598)
    ['127.0.0.0', 8], // loopback
    ['169.254.0.0', 16], // link-local, cloud metadata
    ['172.16.0.0', 12], // private
    ['192.0.0.0', 24], // IETF protocol assignments
    ['192.0.2.0', 24], // documentation, TEST-NET-1 (RFC 5737)
    ['192.88.99.0', 24], // 6to4 relay anycast (RFC 7526)
    ['192.168.0.0', 16], // private
    ['198.18.0.0', 15], // benchmarking
    ['198.51.100.0', 24], // documentation, TEST-NET-2
    ['203.0.113.0', 24], // documentation, TEST-NET-3
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, and 255.255.255.255 limited broadcast
  ];
  for (const [network, prefix] of v4) list.addSubnet(network, prefix, 'ipv4');
  const v6: Array<[string, number]> = [
    ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d (RFC 4291)
    // IPv4-mapped ::ffff:0:0/96 is judged by its IPv4 address (below): node's BlockList also checks every IPv4
    // address against IPv6 rules in this form, so a rule for the whole block would refuse every IPv4 address.
    ['64:ff9b::', 96], // NAT64 of IPv4 addresses (RFC 6052; its IPv4 address is checked too)
    ['64:ff9b:1::', 48], // local-use NAT64 (RFC 8215)
    ['100::', 64], // discard-only (RFC 6666)
    ['100:0:0:1::', 64], // dummy prefix (RFC 9780)
    ['2001::', 23], // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID, AMT… (RFC 2928)
    ['2001:db8::', 32], // documentation (RFC 3849)
    ['3fff::', 20], // documentation (RFC 9637)
    ['5f00::', 16], // segment routing SIDs (RFC 9602)
    ['fc00::', 7], // unique local (fd00:ec2::254: EC2 metadata over IPv6)
    ['fe80::', 10], // link-local
    ['ff00::', 8], // multicast
  ];
  for (const [network, prefix] of v6) list.addSubnet(network, prefix, 'ipv6');
  return list;
})();

/** An IPv6 address as its eight 16-bit groups (a trailing dotted IPv4 part read as two); undefined if malformed. */
function groupsOf(address: string): number[] | undefined {
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1, 5).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const part = (half: string | undefined) =>
    half ? half.split(':').map((group) => Number.parseInt(group, 16)) : [];
  const head = part(halves[0]);
  const tail = part(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return undefined;
  const groups = [...head, ...Array.from({ length: halves.length === 2 ? missing : 0 }, () => 0), ...tail];
  return groups.every((group) => Number.isInteger(group) && group >= 0 && group <= 0xffff)
    ? groups
    : undefined;
}

function ipv4Of(high: number, low: number): string {
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/**
 * The IPv4 addresses an IPv6 address carries, by the forms that reach them: IPv4-mapped and IPv4-compatible
 * (`::ffff:10.0.0.1`, `::10.0.0.1`), NAT64 (`64:ff9b::/96`), 6to4 (`2002:AABB:CCDD::/48`, RFC 3056) and Teredo
 * (`2001:0::/32`: the server's address, and the client's stored inverted, RFC 4380).
 */
function embeddedIPv4(address: string): string[] {
  const groups = groupsOf(address);
  if (!groups) return [];
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const last = ipv4Of(g6, g7);
  if (g0 === 0 && g1 === 0 && g2 === 0 && g3 === 0 && g4 === 0 && (g5 === 0xffff || g5 === 0)) return [last];
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return [last];
  if (g0 === 0x2002) return [ipv4Of(g1, g2)];
  if (g0 === 0x2001 && g1 === 0) return [ipv4Of(g2, g3), ipv4Of(g6 ^ 0xffff, g7 ^ 0xffff)];
  return [];
}

/** This host's own addresses, as its interfaces have them now: a webhook to one of them reaches this machine. */
export function ownAddresses(): Set<string> {
  const addresses = new Set<string>();
  for (const entries of Object.values(networkInterfaces())) {
    for (const entry of entries ?? []) addresses.add(entry.address.toLowerCase().replace(/%.*$/, ''));
  }
  return addresses;
}

/**
 * Whether an IP address is not a public destination: loopback, private, link-local, metadata, any other block of
 * the IANA special-purpose registries, an IPv6 form embedding such an IPv4 address, or one of this host's own
 * addresses (its LAN address reaches the service as loopback does).
 */
export function isBlockedAddress(address: string, own: ReadonlySet<string> = ownAddresses()): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  if (family === 4) return BLOCKED.check(address, 'ipv4') || own.has(address);
  const bare = address.toLowerCase().replace(/%.*$/, '');
  for (const inner of embeddedIPv4(bare)) if (BLOCKED.check(inner, 'ipv4') || own.has(inner)) return true;
  if (own.has(bare)) return true;
  const groups = groupsOf(bare);
  if (groups && [...own].some((mine) => isIP(mine) === 6 && groupsOf(mine)?.join(':') === groups.join(':')))
    return true;
  return BLOCKED.check(bare, 'ipv6');
}

/** A refused destination: the host and the address it resolved to. */
export class BlockedAddressError extends Error {
  readonly code = 'EREFUSEDTARGET';
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(
      `${host} resolves to ${address}, a loopback, private, link-local, metadata, reserved or own address; start the service with --allow-private-webhooks to allow it`,
    );
    this.name = 'BlockedAddressError';
  }
}

/**
 * A DNS lookup for outgoing sockets that refuses blocked addresses: the address checked is the address the
 * socket then connects to, so a name that resolves to a public address at registration and to a private one
 * at delivery (DNS rebinding) is still refused.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, '', 4);
        return;
      }
      const list = addresses as LookupAddress[];
      const blocked = allowPrivate ? undefined : list.find((entry) => isBlockedAddress(entry.address));
      if (blocked) {
        callback(new BlockedAddressError(hostname, blocked.address) as NodeJS.ErrnoException, '', 4);
        return;
      }
      if ((options as { all?: boolean }).all) {
        (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, list);
        return;
      }
      const first = list[0];
      if (!first) callback(new Error(`${hostname} resolved to no address`) as NodeJS.ErrnoException, '', 4);
      else callback(null, first.address, first.family);
    });
  };
}

/**
 * Checks a webhook URL at registration: http or https, no credentials, and a host whose every address is
 * public (unless private targets are allowed). Resolves to undefined when acceptable, else the reason.
 */
export async function checkWebhookUrl(url: string, allowPrivate: boolean): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be an absolute http or https URL';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'must be an http or https URL';
  if (parsed.username || parsed.password) return 'must not carry credentials';
  if (allowPrivate) return undefined;
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  const addresses: string[] = isIP(host)
    ? [host]
    : await new Promise((resolve) =>
        dnsLookup(host, { all: true }, (error, found) =>
          resolve(error ? [] : found.map((entry) => entry.address)),
        ),
      );
  if (addresses.length === 0) return `${host} does not resolve`;
  const blocked = addresses.find((address) => isBlockedAddress(address));
  return blocked === undefined
    ? undefined
    : `${host} resolves to ${blocked}, a loopback, private, link-local, metadata, reserved or own address of this host (allowed only with --allow-private-webhooks)`;
}
