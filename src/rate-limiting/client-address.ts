import ipaddr from 'ipaddr.js';

/**
 * The key a client address is counted under: an IPv4 address as it is, an IPv6 address by its /64
 * (one subscriber's usual allocation, so hopping addresses inside it buys nothing). An IPv4-mapped
 * IPv6 address counts as the IPv4 address it carries.
 */
export function clientAddressKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${(address as ipaddr.IPv6).parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(':')}::/64`;
}
