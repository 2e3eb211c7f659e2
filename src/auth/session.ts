/**
 * What the server runs with once credentials are found: a token provider, what kind of token it
 * is and where it came from (never the token itself), and whose data it is.
 */
import type { TokenProvider } from '../api/client/client.js';

/** Where the token came from and what kind it is: shown by ynab://status, never the token. */
export interface TokenInfo {
  source: 'env' | 'keychain' | 'file' | 'sandbox' | 'hosted';
  kind: 'personal' | 'oauth';
  /** The grant's scope when known (OAuth grants carry it). */
  scope?: 'full' | 'read-only';
  expiresAt?: string | null;
}

export interface Connection {
  credentials: TokenProvider;
  info: TokenInfo;
  /** Stable name of whose data this is, for saved replicas (survives OAuth refreshes). */
  identity?: () => Promise<string>;
  baseUrl?: string;
}

export class NoTokenError extends Error {}
