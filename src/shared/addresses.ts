/**
 * Which hosts and addresses hosted mode treats as this machine or a private network:
 *  - redirect URIs: plain http is accepted only to a loopback host (a desktop or command-line
 *    client listening on the user's own computer), as the MCP authorization specification asks;
 *  - client metadata documents: fetched only from public addresses (no request of ours may reach
 *    the deployment's own network because a client id names it).
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** A URL's hostname (IPv6 in brackets, as URL gives it) that names this machine. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/**
 * Special-use ranges (RFC 6890 and its successors) that a public service never lives at: this
 * host, loopback, private networks, carrier-grade NAT, link-local (cloud metadata services at
 * 169.254.169.254), documentation and benchmarking ranges, multicast, reserved. IPv4-mapped IPv6
 * addresses are checked as their IPv4 address (BlockList does that).
 */
const NOT_PUBLIC = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  NOT_PUBLIC.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64: reaches any IPv4 address, private ones included
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4: likewise
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  NOT_PUBLIC.addSubnet(net, bits, 'ipv6');
}

/** True for an IP address that is not a public unicast address. */
export function isSpecialUseAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return NOT_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The addresses `hostname` resolves to (itself when it is an IP address), or an error when it
 * cannot be resolved within `timeoutMs`.
 */
export async function resolveHost(hostname: string, timeoutMs: number): Promise<string[]> {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return [host];
  let timer: NodeJS.Timeout | undefined;
  try {
    const answers = await Promise.race([
      lookup(host, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`resolving ${host} took longer than ${timeoutMs / 1000} s`)), timeoutMs);
      }),
    ]);
    return answers.map((a) => a.address);
  } finally {
    clearTimeout(timer);
  }
}
