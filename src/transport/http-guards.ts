/**
 * The checks a request passes before it reaches the MCP handler: who it claims to be addressed to
 * (Host, against DNS rebinding), which page sent it (Origin, against cross-site requests from a
 * browser) and whether it carries the bearer token. Pure functions, so each is tested directly.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { networkInterfaces } from 'node:os';
import { localhostAllowedOrigins, validateOriginHeader } from '@modelcontextprotocol/server';

/** Hostnames that reach this machine only; binding them needs no token. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Whether binding `host` keeps the server reachable from this machine only. */
export function isLoopbackHost(host: string): boolean {
  const h = unbracket(host.trim().toLowerCase());
  if (h === 'localhost') return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h) || h === '0:0:0:0:0:0:0:1';
  return false;
}

/** 0.0.0.0 and :: listen on every interface. */
export function isWildcardHost(host: string): boolean {
  const h = unbracket(host.trim());
  return h === '0.0.0.0' || h === '::' || h === '0:0:0:0:0:0:0:0';
}

/** A hostname as it appears in a Host header: lower case, IPv6 in brackets. */
export function hostForHeader(host: string): string {
  const h = unbracket(host.trim().toLowerCase());
  return isIP(h) === 6 ? `[${h}]` : h;
}

/**
 * The addresses other machines can reach this one at, for a server bound to a wildcard: IPv4 for
 * 0.0.0.0, IPv4 and IPv6 for :: (dual stack). Link-local IPv6 addresses are left out: they need a
 * zone id, which a Host header cannot carry.
 */
export function machineAddresses(boundHost: string, interfaces = networkInterfaces()): string[] {
  const v6 = unbracket(boundHost.trim()) !== '0.0.0.0';
  const out: string[] = [];
  for (const list of Object.values(interfaces)) {
    for (const a of list ?? []) {
      if (a.internal) continue;
      if (a.family === 'IPv4' || (v6 && a.family === 'IPv6' && !/^fe[89ab]/i.test(a.address))) out.push(a.address);
    }
  }
  return out;
}

interface HostRule {
  hostname: string;
  /** Undefined: any port. */
  port?: number;
}

// A Host value is a hostname (or bracketed IPv6 literal) with an optional port and nothing else:
// anything with a path, user info or stray characters is refused rather than guessed at.
const HOST_VALUE = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/;

function parseHost(value: string): HostRule | undefined {
  const m = HOST_VALUE.exec(value.trim().toLowerCase());
  if (!m) return undefined;
  return { hostname: m[1]!, port: m[2] === undefined ? undefined : Number(m[2]) };
}

/**
 * Allowed Host headers: the loopback names on the bound port, the bound host itself (a specific
 * address or name the user chose), for a wildcard bind the machine's own addresses (`addresses`),
 * and `extra` entries, each `name` (any port) or `name:port`. The SDK's own helper ignores ports;
 * this one pins loopback names to the bound port so a page served by another local process cannot
 * claim to address this one. Addresses as Host values are safe to accept: a DNS rebinding attack
 * needs the attacker's own hostname in Host.
 */
export function hostAllowList(boundHost: string, port: number, extra: readonly string[] = [], addresses: readonly string[] = []): HostRule[] {
  const rules: HostRule[] = LOOPBACK_NAMES.map((hostname) => ({ hostname, port }));
  if (!isWildcardHost(boundHost) && !isLoopbackHost(boundHost)) rules.push({ hostname: hostForHeader(boundHost), port });
  for (const a of addresses) rules.push({ hostname: hostForHeader(a), port });
  for (const entry of extra) {
    const rule = parseHost(entry);
    if (!rule) throw new RangeError(`allowed host ${JSON.stringify(entry)} is not a hostname or hostname:port`);
    rules.push(rule);
  }
  return rules;
}

export function hostAllowed(header: string | undefined, rules: readonly HostRule[]): boolean {
  if (!header) return false;
  const host = parseHost(header);
  if (!host) return false;
  // No port in Host means the scheme's default, and the scheme is the client's: behind a TLS
  // terminator a request for https://host/ arrives as plain HTTP with `Host: host`. So a portless
  // Host matches a rule for either default port (80 or 443), or one without a port.
  const portMatches = (r: HostRule) => r.port === undefined || (host.port === undefined ? r.port === 80 || r.port === 443 : r.port === host.port);
  return rules.some((r) => r.hostname === host.hostname && portMatches(r));
}

/**
 * Allowed Origin hostnames, in the SDK's convention (hostname only, any port: a local web tool on
 * another port, such as the Inspector, is a legitimate caller). `extra` entries may be full origins
 * ("https://app.example.com"), bare hostnames, or `scheme://*` for browser extensions.
 */
export function originAllowList(extra: readonly string[] = []): string[] {
  return [
    ...localhostAllowedOrigins(),
    ...extra.map((entry) => {
      const e = entry.trim();
      if (/^[a-z][a-z0-9+.-]*:\/\/\*$/i.test(e)) return e.toLowerCase();
      if (e.includes('://')) {
        try {
          return new URL(e).hostname;
        } catch {
          throw new RangeError(`allowed origin ${JSON.stringify(entry)} is not a URL or hostname`);
        }
      }
      return hostForHeader(e);
    }),
  ];
}

/** Requests without Origin (non-browser clients) pass; a present one must be allowed. */
export function originCheck(header: string | undefined, allowList: string[]): { ok: true } | { ok: false; message: string } {
  const result = validateOriginHeader(header, allowList);
  return result.ok ? { ok: true } : { ok: false, message: result.message };
}

/**
 * Hosted mode's Origin rule: a request without Origin (a non-browser client) passes; one with an
 * Origin passes only when it is one of `allowed`, exactly (scheme, host and port), as browsers send it.
 */
export function exactOriginCheck(header: string | undefined, allowed: readonly string[]): { ok: true } | { ok: false; message: string } {
  if (header === undefined || header === '') return { ok: true };
  if (allowed.includes(header.toLowerCase())) return { ok: true };
  return { ok: false, message: `the Origin ${JSON.stringify(header)} is not allowed here (the server's operator can add it with --allowed-origins)` };
}

/** The token of an `Authorization: Bearer <token>` header, if that is what it is. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = header === undefined ? null : /^Bearer +(\S+) *$/i.exec(header);
  return m?.[1];
}

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/**
 * Constant-time token comparison. Both sides are hashed first so the compared buffers always have
 * the same length (timingSafeEqual requires it) and the time taken says nothing about the length
 * or any prefix of the expected token.
 */
export function tokenMatches(expected: string, presented: string | undefined): boolean {
  const same = timingSafeEqual(digest(expected), digest(presented ?? ''));
  return same && presented !== undefined;
}
