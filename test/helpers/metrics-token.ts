/**
 * The file a hosted instance reads its /metrics token from (--metrics-token-file): the token and a
 * newline, readable by the owner only, as an operator would write it.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes `token` to `dir`/metrics-token and returns the file's path. */
export function metricsTokenFile(dir: string, token: string): string {
  const file = join(dir, 'metrics-token');
  writeFileSync(file, `${token}\n`);
  chmodSync(file, 0o600);
  return file;
}
