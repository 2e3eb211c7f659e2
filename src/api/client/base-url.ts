/**
 * Which base URLs the client accepts, checked before anything is sent (and at start, so that a
 * mistake is refused at once rather than met at the first tool call): HTTPS, or HTTP only to this
 * machine (the sandbox), and for the API a path ending in /v1, where the service lives.
 * Kept apart from the transport so that checking a URL does not load the HTTP client.
 */
import { ConfigError } from './errors.js';

export const DEFAULT_BASE_URL = 'https://api.ynab.com/v1';

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** Checks a URL the token is sent to: HTTPS, or HTTP only to this machine (the sandbox). */
export function checkBaseUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`the base URL ${JSON.stringify(raw)} is not a valid URL; expected e.g. ${DEFAULT_BASE_URL}`);
  }
  if (url.protocol === 'https:') return url;
  if (url.protocol === 'http:' && (LOOPBACK.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname))) return url;
  throw new ConfigError(
    `refusing the base URL ${url.origin}: the token would travel unencrypted. Use https://, or http:// only to 127.0.0.1/localhost (the sandbox).`,
  );
}

/**
 * Checks the API's base URL: as checkBaseUrl, and its path must end in /v1. Without it every
 * request would reach the wrong path and come back 404, which reads as "no such budget/account".
 */
export function checkApiBaseUrl(raw: string): URL {
  const url = checkBaseUrl(raw);
  if (!/\/v1\/?$/.test(url.pathname)) {
    const suggestion = `${url.origin}${url.pathname.replace(/\/+$/, '')}/v1`;
    throw new ConfigError(`the base URL ${url.href} does not end in /v1, where the YNAB API lives; did you mean ${suggestion}?`);
  }
  return url;
}
