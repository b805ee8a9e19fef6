import { lookup as dnsLookup, type LookupAddress, type LookupOneOptions } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Ranges a webhook may never reach unless private networks are allowed (ipaddr.js range names). */
const PUBLIC_RANGES = new Set(['unicast']);

export class ForbiddenAddressError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly range: string,
  ) {
    super(`Refused: ${host} resolves to ${address} (${range}); private networks are not allowed as webhook targets`);
  }
}

/** The ipaddr.js range of an address (IPv4-mapped IPv6 is judged as the IPv4 address it carries). */
export function addressRange(address: string): string {
  return ipaddr.process(address).range();
}

/**
 * A DNS lookup for sockets that refuses loopback, private, link-local, CGNAT, multicast,
 * unique-local and other non-public addresses. Because the check runs on the address the socket
 * then connects to, a name cannot resolve to a public address for the check and a private one
 * for the connection.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...(options as LookupOneOptions), all: false }, (err, address, family) => {
      if (err) return callback(err, '', 0);
      const resolved = address as unknown as string;
      if (!allowPrivate) {
        const range = addressRange(resolved);
        if (!PUBLIC_RANGES.has(range)) return callback(new ForbiddenAddressError(hostname, resolved, range), '', 0);
      }
      callback(null, resolved, family);
    });
  };
}

/** Literal IP hosts skip DNS, so they are checked here before any socket is opened. */
export function checkLiteralHost(hostname: string, allowPrivate: boolean): void {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (allowPrivate || !ipaddr.isValid(host)) return;
  const range = addressRange(host);
  if (!PUBLIC_RANGES.has(range)) throw new ForbiddenAddressError(hostname, host, range);
}

export type { LookupAddress };
