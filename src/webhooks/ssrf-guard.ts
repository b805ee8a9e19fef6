import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Ranges a webhook may never reach unless private networks are allowed (ipaddr.js range names). */
const PUBLIC_RANGES = new Set(['unicast']);

/** Global unicast IPv6 (RFC 4291 §2.4): anything outside it is reserved, deprecated or local. */
const IPV6_GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

export class ForbiddenAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(`Refused: ${host} resolves to ${address} (${range}); private networks are not allowed as webhook targets`);
  }
}

/**
 * The range of an address as ipaddr.js names it (IPv4-mapped IPv6 is judged as the IPv4 address
 * it carries). IPv6 outside 2000::/3 that ipaddr.js still calls "unicast", such as the deprecated
 * IPv4-compatible form `::127.0.0.1` (which URL parsing turns into `::7f00:1`), is "nonGlobal".
 */
export function addressRange(address: string): string {
  const parsed = ipaddr.process(address);
  const range = parsed.range();
  if (range === 'unicast' && parsed.kind() === 'ipv6' && !parsed.match(IPV6_GLOBAL_UNICAST)) return 'nonGlobal';
  return range;
}

/** Throws ForbiddenAddressError unless `address` is a public unicast address. */
function assertPublic(host: string, address: string): void {
  const range = addressRange(address);
  if (!PUBLIC_RANGES.has(range)) throw new ForbiddenAddressError(host, address, range);
}

/** Resolves every address of a name, as `dns.lookup(name, { all: true })` does. */
export type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A DNS lookup for sockets that refuses loopback, private, link-local, CGNAT, multicast,
 * unique-local and other non-public addresses. Every address the name resolves to is checked and
 * one non-public address refuses the name, so the socket (which may try several addresses, as
 * `autoSelectFamily` does) can reach none of them. Because the check runs on the addresses the
 * socket then connects to, a name cannot resolve to a public address for the check and a private
 * one for the connection.
 *
 * Sockets call it in both forms: `{ all: true }` expects an array of `{ address, family }`, the
 * classic form one address and its family.
 */
export function guardedLookup(allowPrivate: boolean, resolve: Resolver = dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (!err && addresses.length === 0)
        err = Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND', hostname });
      if (err) return callback(err, options.all ? [] : '', 0);
      if (!allowPrivate) {
        try {
          for (const { address } of addresses) assertPublic(hostname, address);
        } catch (refusal) {
          return callback(refusal as ForbiddenAddressError, options.all ? [] : '', 0);
        }
      }
      if (options.all) return callback(null, addresses);
      callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/** Literal IP hosts skip DNS, so they are checked here before any socket is opened. */
export function checkLiteralHost(hostname: string, allowPrivate: boolean): void {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (allowPrivate || !ipaddr.isValid(host)) return;
  assertPublic(hostname, host);
}

export type { LookupAddress };
