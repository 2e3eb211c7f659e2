/**
 * Signed session ids for 2025-era clients over Streamable HTTP. That era declares the client's
 * capabilities once, at `initialize`, and the SDK serves its HTTP requests statelessly (a fresh
 * server per request, which never saw the initialize). So what the server acts on is written into
 * the `Mcp-Session-Id` it answers the initialize with, and the client hands it back on every
 * request: nothing is remembered anywhere, and any instance holding the key can read it.
 *
 *   y1.<base64url(JSON claims)>.<base64url(HMAC-SHA-256)>
 *
 * The MAC covers the claims and a subject: in hosted mode the signed-in user, so one user's id is
 * worthless to another. An id that does not verify (forged, altered, another user's, signed with
 * another key) is read as no id at all: the request is served as any stateless one is.
 *
 * The claims are only what a client declared about itself (which views it can show, its protocol
 * version); they grant nothing a client could not get by declaring the same at initialize. The
 * signature keeps the server from acting on what it did not hear from that client.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface SessionClaims {
  /** The protocol version the initialize settled on, when known. */
  protocolVersion?: string;
  /** MCP Apps: the view MIME types the client announced that this server serves. */
  uiMimeTypes?: string[];
}

const PREFIX = 'y1';
/** Longer ids are not ours: nothing is hashed for them. */
const MAX_ID_LENGTH = 1024;
const DOMAIN = 'ynab-mcp/http-session/v1';

function b64(buf: Buffer | string): string {
  return Buffer.from(buf).toString('base64url');
}

export class SessionIds {
  constructor(private readonly key: Buffer) {
    if (key.length < 32) throw new RangeError('a session key must be at least 32 bytes');
  }

  private mac(payload: string, subject: string): Buffer {
    // Length-prefixed, so no subject and payload can be shifted into one another.
    return createHmac('sha256', this.key).update(`${DOMAIN}\n${subject.length}:${subject}\n${payload}`).digest();
  }

  /** A new id for these claims, bound to `subject` ('' when there is nobody to bind to). */
  mint(claims: SessionClaims, subject = ''): string {
    // The nonce makes every id unique, as the specification asks of session ids.
    const payload = b64(JSON.stringify({ ...claims, n: randomBytes(9).toString('base64url') }));
    return `${PREFIX}.${payload}.${b64(this.mac(payload, subject))}`;
  }

  /** The claims of an id this key signed for `subject`, or undefined for anything else. */
  read(id: string | null | undefined, subject = ''): SessionClaims | undefined {
    if (!id || id.length > MAX_ID_LENGTH) return undefined;
    const parts = id.split('.');
    if (parts.length !== 3 || parts[0] !== PREFIX) return undefined;
    const [, payload, tag] = parts as [string, string, string];
    const given = Buffer.from(tag, 'base64url');
    const expected = this.mac(payload, subject);
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    let raw: unknown;
    try {
      raw = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    } catch {
      return undefined;
    }
    if (!raw || typeof raw !== 'object') return undefined;
    const { protocolVersion, uiMimeTypes } = raw as Record<string, unknown>;
    const claims: SessionClaims = {};
    if (typeof protocolVersion === 'string') claims.protocolVersion = protocolVersion;
    if (Array.isArray(uiMimeTypes) && uiMimeTypes.every((m) => typeof m === 'string')) claims.uiMimeTypes = uiMimeTypes as string[];
    return claims;
  }
}
