import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Addresses a webhook must not reach unless the operator allows it: where a request from the server could read
 * what only the server may (server-side request forgery). IANA special-purpose registries (RFC 6890 and its
 * updates) name them; cloud metadata services answer on link-local addresses (169.254.169.254, fd00:ec2::254).
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
    ['192.168.0.0', 16], // private
    ['198.18.0.0', 15], // benchmarking
    ['224.0.0.0', 4], // multicast
    ['240.0.0.0', 4], // reserved, broadcast
  ];
  for (const [network, prefix] of v4) list.addSubnet(network, prefix, 'ipv4');
  const v6: Array<[string, number]> = [
    ['::', 128], // unspecified
    ['::1', 128], // loopback
    ['fc00::', 7], // unique local (fd00:ec2::254: EC2 metadata over IPv6)
    ['fe80::', 10], // link-local
    ['ff00::', 8], // multicast
    ['64:ff9b::', 96], // NAT64 of IPv4 addresses (checked as IPv4 below too)
  ];
  for (const [network, prefix] of v6) list.addSubnet(network, prefix, 'ipv6');
  return list;
})();

/** The IPv4 address inside an IPv4-mapped or NAT64 IPv6 address (`::ffff:10.0.0.1`), else undefined. */
function embeddedIPv4(address: string): string | undefined {
  const match = /^(?:::ffff:|64:ff9b::)(?:0:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (match) return match[1];
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const high = Number.parseInt(hex[1] as string, 16);
  const low = Number.parseInt(hex[2] as string, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

/** Whether an IP address is loopback, private, link-local, metadata or otherwise not a public destination. */
export function isBlockedAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family === 6) {
    const inner = embeddedIPv4(address);
    if (inner !== undefined && BLOCKED.check(inner, 'ipv4')) return true;
    return BLOCKED.check(address, 'ipv6');
  }
  return true;
}

/** A refused destination: the host and the address it resolved to. */
export class BlockedAddressError extends Error {
  readonly code = 'EREFUSEDTARGET';
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(
      `${host} resolves to ${address}, a loopback, private, link-local or metadata address; start the service with --allow-private-webhooks to allow it`,
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
  const blocked = addresses.find(isBlockedAddress);
  return blocked === undefined
    ? undefined
    : `${host} resolves to ${blocked}, a loopback, private, link-local or metadata address (allowed only with --allow-private-webhooks)`;
}
