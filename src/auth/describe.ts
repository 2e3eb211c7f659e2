/**
 * Short human descriptions shared by login, logout and status: where secrets went, sizes, time
 * spans. None of them takes a secret.
 */
import type { OpenedSecretStore } from './secret-store.js';

/** `reasonShown`: why there is no keychain was said already (the store's warning): not again. */
export function whereStored(store: Pick<OpenedSecretStore, 'kind' | 'location' | 'probe'>, reasonShown = false): string {
  if (store.kind === 'keychain') return `the OS keychain (${store.location})`;
  const why = reasonShown ? 'see the warning above' : (store.probe.reason ?? 'unavailable');
  return `the file ${store.location} (readable only by you, mode 0600; no OS keychain: ${why})`;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

/** "in 1 h 59 min" / "3 min ago". */
export function relativeTime(at: number, now: number): string {
  const ms = at - now;
  const minutes = Math.round(Math.abs(ms) / 60_000);
  const span = minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes} min`;
  return ms >= 0 ? `in ${span}` : `${span} ago`;
}
