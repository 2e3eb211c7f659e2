/**
 * `ynab-mcp logout`: removes everything stored for the profile (tokens, OAuth client, expiry,
 * scope) from the keychain and the fallback file, and the budget replicas saved for that sign-in.
 * Says what was removed (names, never values) on stderr.
 */
import { storedIdentity } from '../auth/credentials.js';
import { formatBytes } from '../auth/describe.js';
import { removeProfileInfo } from '../auth/profile-info.js';
import { otherReplicaIdentities, removeReplicas } from '../auth/replica-files.js';
import { openSecretStore } from '../auth/secret-store.js';
import { accessTokenFromEnv } from '../auth/token-source.js';
import { configDir, stateDir } from '../paths.js';
import { parseFlags, warningLine } from '../shared/cli-flags.js';

export const LOGOUT_USAGE = `Usage: ynab-mcp logout [--profile NAME]

Removes the stored sign-in of the profile (default "default") from the OS keychain and the
fallback file, and the budget replicas saved for it. YNAB_ACCESS_TOKEN, if set, is not affected.

Environment: YNAB_MCP_KEYCHAIN=off looks only at the file.
`;

const log = (line: string) => process.stderr.write(`${line}\n`);

export async function logoutCommand(argv: string[]): Promise<void> {
  const flags = parseFlags(argv, { profile: { type: 'string' }, help: { type: 'boolean', short: 'h' } });
  if (flags.help) {
    process.stdout.write(LOGOUT_USAGE);
    return;
  }
  const state = stateDir();
  const store = await openSecretStore({ configDir: configDir(), profile: flags.profile, warn: (m) => log(warningLine(m)) });
  const identity = await storedIdentity(store);
  // The replica encryption key shares the default profile's entries but protects every profile's
  // (and YNAB_ACCESS_TOKEN's) replicas: keep it while any of those remain.
  const replicaKey = await store.get('replica_key');

  const removed = await store.clear();
  await removeProfileInfo(configDir(), store.profile);
  const replicas = identity === null ? null : await removeReplicas(state, identity);
  let keptKey = false;
  if (replicaKey !== null && (await otherReplicaIdentities(state, identity)).length > 0) {
    await store.set('replica_key', replicaKey);
    keptKey = true;
  }
  const names = removed.filter((n) => !(keptKey && n === 'replica_key'));

  if (names.length > 0)
    log(
      `Removed from ${store.kind === 'keychain' ? `the OS keychain (${store.location})` : `the file ${store.location}`} for profile "${store.profile}": ${names.join(', ')}.`,
    );
  else log(`Nothing was stored for profile "${store.profile}".`);
  if (replicas && replicas.budgets.length > 0) {
    log(`Removed the saved replicas of ${replicas.budgets.length} budget(s), ${formatBytes(replicas.totalBytes)} (${replicas.directory}).`);
  }
  if (keptKey) log('Kept the replica encryption key: other sign-ins still have saved replicas.');
  if (accessTokenFromEnv(process.env) !== null) log('YNAB_ACCESS_TOKEN is still set; ynab-mcp keeps using it until it is unset.');
}
