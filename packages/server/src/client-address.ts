/**
 * Who a limit counts a client as (issue 17: sign-in failures per source address, connections per
 * client address). An IPv4 address counts as itself, also when the socket shows it IPv4-mapped
 * (`::ffff:192.0.2.1`). An IPv6 address counts by its /64 network: a host, or a subscriber, is commonly
 * given a whole /64 (RFC 6177) and could otherwise take a fresh address for every attempt.
 */
import { isIP } from 'node:net';

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** The key of the client at `ip` (the socket's remote address). */
export function clientAddress(ip: string): string {
  const bare = ip.split('%', 1)[0]!;
  const mapped = MAPPED_IPV4.exec(bare);
  if (mapped !== null) return mapped[1]!;
  if (isIP(bare) !== 6) return bare;
  return `${ipv6Groups(bare).slice(0, 4).join(':')}::/64`;
}

/** Whether `ip` is a loopback address (127.0.0.0/8, ::1, or 127/8 IPv4-mapped). */
export function isLoopbackAddress(ip: string): boolean {
  const address = clientAddress(ip);
  return address.startsWith('127.') || ipIsIpv6Loopback(ip.split('%', 1)[0]!);
}

function ipIsIpv6Loopback(ip: string): boolean {
  return isIP(ip) === 6 && ipv6Groups(ip).join(':') === '0:0:0:0:0:0:0:1';
}

/** The eight 16-bit groups of an IPv6 address, in lower-case hex without leading zeros. */
function ipv6Groups(ip: string): string[] {
  let text = ip.toLowerCase();
  // A dotted IPv4 tail (64:ff9b::192.0.2.1) is the last two groups.
  const tail = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
  if (tail !== null) {
    const [a, b, c, d] = tail.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::', 2);
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const missing = 8 - headGroups.length - restGroups.length;
  const groups =
    rest === undefined ? headGroups : [...headGroups, ...Array<string>(missing).fill('0'), ...restGroups];
  return groups.map((group) => Number.parseInt(group, 16).toString(16));
}
