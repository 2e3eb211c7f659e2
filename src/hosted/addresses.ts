/**
 * Which hosts hosted mode treats as this machine: redirect URIs may be plain http only to a
 * loopback host (a desktop or command-line client listening on the user's own computer), as the
 * MCP authorization specification asks.
 */
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
