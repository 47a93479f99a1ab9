/**
 * Which webhook targets the server may connect to (docs/contributors/decisions.md §6): "targets resolving to link-local
 * or cloud-metadata addresses are refused; loopback and private networks are refused unless the server
 * is configured to allow them".
 *
 * The check sits where the connection is made: the undici Agent of the dispatcher gets `guardedLookup`
 * as its `connect.lookup`, so the addresses checked are the addresses connected to, and a name that
 * resolves to something else a moment later (DNS rebinding) cannot slip between check and connect.
 * Node does not call `lookup` for an IP literal, so `refusalOfUrl` checks literals (and names) before
 * the request is made. A name with any refused address is refused as a whole.
 *
 * Refused always: link-local (169.254.0.0/16, fe80::/10) with the cloud metadata services on it, the
 * metadata addresses elsewhere (fd00:ec2::254, AWS; 100.100.100.200, Alibaba Cloud) and names
 * (metadata.google.internal, …), and what is no host at all: multicast, broadcast and reserved
 * ranges. Refused unless allowed: loopback, "this network" (0.0.0.0/8, ::, which reach the local
 * host), private (10/8, 172.16/12, 192.168/16, fc00::/7), shared address space (100.64/10) and the
 * IETF and benchmarking ranges (192.0.0/24, 198.18/15), and every address of this host's own network
 * interfaces (issue 17: its LAN or public address reaches the server's own services as surely as
 * loopback does). IPv4 addresses written as IPv6 (::ffff:a.b.c.d, the NAT64 prefix 64:ff9b::/96, the
 * deprecated ::a.b.c.d) are judged as the IPv4 address they carry.
 *
 * A refusal is final: the policy will refuse the target again, so the dispatcher marks such a delivery
 * failed at once instead of retrying it (issue 17).
 */
import { lookup as systemLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { BlockList, isIP, type IPVersion, type LookupFunction } from 'node:net';
import { networkInterfaces } from 'node:os';
import { ServerError, ServerErrorCode } from '../errors.js';

export interface TargetPolicy {
  /** loopback, private networks and this host's own addresses are allowed (the local desktop setup) */
  allowPrivateTargets: boolean;
  /** the addresses of this host's interfaces; default: os.networkInterfaces(), looked at afresh */
  ownAddresses?: () => readonly string[];
}

/** Resolves a name to every address (dns.lookup with `all: true`, by default). */
export type ResolveHost = (hostname: string) => Promise<LookupAddress[]>;

/**
 * Error code of a refused target (the dispatcher logs the message as the attempt's error): a
 * ServerError of the catalogue (errors.ts, issue 35), which Node's lookup passes on as it is.
 */
export const TARGET_REFUSED = ServerErrorCode.WEBHOOK_TARGET_REFUSED;

function targetRefused(message: string): ServerError {
  return new ServerError(TARGET_REFUSED, message);
}

/** Host names of cloud metadata services (compared without a trailing dot, case-insensitively). */
const METADATA_NAMES = new Set([
  'metadata',
  'metadata.google.internal',
  'metadata.goog',
  'metadata.azure.com',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.tencentyun.com',
  'metadata.platformequinix.com',
]);

function blockList(ipv4: ReadonlyArray<[string, number]>, ipv6: ReadonlyArray<[string, number]>): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ipv4) list.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix] of ipv6) list.addSubnet(network, prefix, 'ipv6');
  return list;
}

const LINK_LOCAL = blockList([['169.254.0.0', 16]], [['fe80::', 10]]);

const METADATA = blockList(
  [
    ['169.254.169.254', 32],
    ['100.100.100.200', 32],
  ],
  [['fd00:ec2::254', 128]],
);

const NOT_A_HOST = blockList(
  [
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ],
  [['ff00::', 8]],
);

const LOOPBACK = blockList(
  [
    ['127.0.0.0', 8],
    ['0.0.0.0', 8],
  ],
  [
    ['::1', 128],
    ['::', 128],
  ],
);

const PRIVATE = blockList(
  [
    ['10.0.0.0', 8],
    ['172.16.0.0', 12],
    ['192.168.0.0', 16],
    ['100.64.0.0', 10],
    ['192.0.0.0', 24],
    ['198.18.0.0', 15],
  ],
  [['fc00::', 7]],
);

/**
 * Why the server must not connect to `address` (an IPv4 or IPv6 literal, without brackets), or null
 * when it may.
 */
export function refusalOfAddress(address: string, policy: TargetPolicy): string | null {
  const family = isIP(address);
  if (family === 0) return `${address} is not an IP address`;
  const embedded = family === 6 ? embeddedIpv4(address) : null;
  const [checked, type]: [string, IPVersion] =
    embedded === null ? [address, family === 4 ? 'ipv4' : 'ipv6'] : [embedded, 'ipv4'];
  const named = embedded === null ? address : `${address} (${embedded})`;
  if (METADATA.check(checked, type)) return `${named} is a cloud metadata address`;
  if (LINK_LOCAL.check(checked, type)) return `${named} is a link-local address`;
  if (NOT_A_HOST.check(checked, type)) return `${named} is a multicast or reserved address`;
  if (policy.allowPrivateTargets) return null;
  if (LOOPBACK.check(checked, type)) return `${named} is a loopback address`;
  if (ownAddressList(policy.ownAddresses ?? interfaceAddresses).check(checked, type)) {
    return `${named} is an address of this server`;
  }
  if (PRIVATE.check(checked, type)) return `${named} is a private-network address`;
  return null;
}

/** Every address of this host's network interfaces (they come and go: DHCP, VPNs, Wi-Fi). */
function interfaceAddresses(): string[] {
  return Object.values(networkInterfaces()).flatMap((entries) =>
    (entries ?? []).map((entry) => entry.address.split('%', 1)[0]!),
  );
}

function ownAddressList(addresses: () => readonly string[]): BlockList {
  const list = new BlockList();
  for (const address of addresses()) {
    const family = isIP(address);
    if (family === 0) continue;
    const embedded = family === 6 ? embeddedIpv4(address) : null;
    if (embedded !== null) list.addAddress(embedded, 'ipv4');
    else list.addAddress(address, family === 4 ? 'ipv4' : 'ipv6');
  }
  return list;
}

/**
 * Why the server must not post to `url`, judged before any name is resolved: the scheme, metadata
 * host names, and IP literals (which Node connects to without calling `lookup`). Null when the URL
 * may be tried; its host's addresses are then checked by `guardedLookup` at connect time.
 */
export function refusalOfUrl(url: URL, policy: TargetPolicy): string | null {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `${url.protocol} is not http or https`;
  // The WHATWG parser has already turned 0x7f.1, 2130706433 and the like into dotted IPv4.
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const name = host.toLowerCase().replace(/\.$/, '');
  if (METADATA_NAMES.has(name)) return `${host} is a cloud metadata host`;
  if (isIP(host) !== 0) return refusalOfAddress(host, policy);
  return null;
}

/**
 * A `lookup` for net.connect/tls.connect that resolves with `resolve` and refuses (with a ServerError,
 * SERVER_WEBHOOK_TARGET_REFUSED) a name any of whose addresses is refused. It answers in both shapes
 * Node asks for: every address (`all: true`, as connections with autoSelectFamily do) or the first one.
 */
export function guardedLookup(
  policy: TargetPolicy,
  resolve: ResolveHost = resolveWithSystem,
): LookupFunction {
  return (hostname: string, options: LookupOptions, callback) => {
    const name = hostname.toLowerCase().replace(/\.$/, '');
    if (METADATA_NAMES.has(name)) {
      callback(targetRefused(`${hostname} is a cloud metadata host`), '', 0);
      return;
    }
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    resolve(hostname).then(
      (found) => {
        // Every address is judged, not only those of the family asked for.
        const refusal = found
          .map((entry) => refusalOfAddress(entry.address, policy))
          .find((reason) => reason !== null);
        const wanted = found.filter((entry) => family === 0 || entry.family === family);
        const addresses = wanted.length > 0 ? wanted : found;
        const first = addresses[0];
        if (refusal !== undefined) {
          callback(targetRefused(`${hostname}: ${refusal}`), '', 0);
        } else if (first === undefined) {
          const error: NodeJS.ErrnoException = new Error(`${hostname} has no address`);
          error.code = 'ENOTFOUND';
          callback(error, '', 0);
        } else if (options.all === true) {
          callback(null, addresses);
        } else {
          callback(null, first.address, first.family);
        }
      },
      (error: unknown) => {
        callback(error as NodeJS.ErrnoException, '', 0);
      },
    );
  };
}

function resolveWithSystem(hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    systemLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error === null) resolve(addresses);
      else reject(error);
    });
  });
}

/**
 * The IPv4 address an IPv6 address carries, in dotted form, for the forms that reach IPv4 hosts:
 * IPv4-mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, and IPv4-compatible ::/96 (beyond :: and ::1).
 */
function embeddedIpv4(address: string): string | null {
  const words = ipv6Words(address);
  if (words === null) return null;
  const high = words.slice(0, 6);
  const isMapped = high.slice(0, 5).every((word) => word === 0) && high[5] === 0xffff;
  const isNat64 = words[0] === 0x64 && words[1] === 0xff9b && high.slice(2).every((word) => word === 0);
  const isCompatible = high.every((word) => word === 0) && (words[6] !== 0 || words[7]! > 1);
  if (!isMapped && !isNat64 && !isCompatible) return null;
  const low = words[6]! * 0x10000 + words[7]!;
  return [low >>> 24, (low >>> 16) & 0xff, (low >>> 8) & 0xff, low & 0xff].join('.');
}

/** The eight 16-bit words of a valid IPv6 literal (with or without a dotted IPv4 tail and zone). */
function ipv6Words(address: string): number[] | null {
  let text = address.split('%', 1)[0]!.toLowerCase();
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail !== null) {
    const bytes = tail[1]!.split('.').map(Number);
    const hex = [(bytes[0]! << 8) | bytes[1]!, (bytes[2]! << 8) | bytes[3]!].map((word) => word.toString(16));
    text = `${text.slice(0, tail.index)}${hex.join(':')}`;
  }
  const [head, rest] = text.split('::', 2) as [string, string | undefined];
  const parse = (part: string): number[] =>
    part === '' ? [] : part.split(':').map((word) => parseInt(word, 16));
  const first = parse(head);
  const last = rest === undefined ? [] : parse(rest);
  const missing = 8 - first.length - last.length;
  if (rest === undefined ? missing !== 0 : missing < 0) return null;
  const words = [...first, ...new Array<number>(missing).fill(0), ...last];
  return words.length === 8 && words.every((word) => Number.isInteger(word) && word >= 0 && word <= 0xffff)
    ? words
    : null;
}
