/**
 * `ynab-mcp status [--json]`: the sign-in (source, kind, scope, expiry), the keychain, the
 * token's request quota on this machine and the saved replicas. Never a secret (not even one
 * inside a configured URL). Reading it
 * changes nothing and asks YNAB nothing. `--json` prints one JSON object on stdout.
 */
import { scrub } from '../api/client/scrub.js';
import { formatBytes, relativeTime } from '../auth/describe.js';
import { statusReport, type StatusReport } from '../auth/status-report.js';
import { configDir, stateDir } from '../paths.js';
import { NO_KEYCHAIN } from '../auth/secret-store.js';
import { parseFlags, warningLine } from '../shared/cli-flags.js';

export const STATUS_USAGE = `Usage: ynab-mcp status [--json] [--profile NAME]

Shows where the token comes from (YNAB_ACCESS_TOKEN, the OS keychain or the file), its kind,
scope and expiry, whether the keychain works (and why not), the requests left this hour, and the
budget replicas saved on this machine. Never shows a secret.

  --json           one JSON object on stdout
  --profile NAME   which stored sign-in to show (default "default")
`;

const SOURCE: Record<StatusReport['token']['source'], string> = {
  env: 'YNAB_ACCESS_TOKEN (environment)',
  keychain: 'the OS keychain',
  file: 'the secrets file',
  none: 'none',
};

export function formatStatus(r: StatusReport, now: number): string {
  const lines: string[] = [`Profile:   ${r.profile}`];
  const t = r.token;
  if (t.source === 'none') {
    lines.push('Token:     none. Run "ynab-mcp login" (or set YNAB_ACCESS_TOKEN).');
  } else {
    const kind = t.kind === 'oauth' ? (t.refreshable ? 'OAuth grant (refreshing)' : 'OAuth implicit grant (no refresh token)') : 'personal access token';
    lines.push(`Token:     ${kind} from ${SOURCE[t.source]}`);
    if (t.scope) lines.push(`Scope:     ${t.scope === 'read-only' ? 'read-only (the server works as --read-only)' : 'full'}`);
    if (t.expires_at) {
      const at = Date.parse(t.expires_at);
      const what = !t.expired
        ? relativeTime(at, now)
        : t.refreshable
          ? `expired ${relativeTime(at, now)}; refreshed at the next use`
          : `expired ${relativeTime(at, now)}; run "ynab-mcp login --oauth" again`;
      lines.push(`Expires:   ${t.expires_at} (${what})`);
    }
    if (t.oauth_client_id) lines.push(`OAuth:     client ${t.oauth_client_id} at ${t.oauth_app_url ?? 'https://app.ynab.com'}`);
  }
  lines.push(`API:       ${t.base_url}`);
  lines.push(
    `Stored in: ${r.store.kind === 'keychain' ? `OS keychain (${r.store.location})` : `file ${r.store.location}`}${r.store.names.length ? `: ${r.store.names.join(', ')}` : ': nothing'}`,
  );
  if (r.store.overridden_by_env) lines.push('           (not used while YNAB_ACCESS_TOKEN is set)');
  lines.push(`Keychain:  ${r.keychain.label}: ${r.keychain.available ? 'available' : `not used (${r.keychain.reason ?? 'unavailable'})`}`);
  if (r.quota) {
    const q = r.quota;
    let line = `Quota:     ${q.used} of ${q.limit} requests used in the last hour on this machine; ${q.remaining} left (${q.read_remaining} for reads)`;
    if (q.blocked_until) line += `; blocked after a 429 until ${q.blocked_until}`;
    else if (q.next_slot_at) line += `; next request possible at ${q.next_slot_at}`;
    lines.push(line);
  }
  if (r.replicas) {
    const p = r.replicas;
    lines.push(p.budgets === 0 ? `Replicas:  none saved yet (${p.directory})` : `Replicas:  ${p.budgets} budget(s), ${formatBytes(p.bytes)} in ${p.directory}`);
    for (const f of p.files) lines.push(`           ${f.budget_id}  ${formatBytes(f.bytes)}  modified ${f.modified}`);
  }
  if (r.replica_key.problem) lines.push(`Key:       the replica key file ${r.replica_key.location}: ${r.replica_key.problem}`);
  return `${lines.join('\n')}\n`;
}

export async function statusCommand(argv: string[]): Promise<void> {
  const flags = parseFlags(argv, { json: { type: 'boolean' }, profile: { type: 'string' }, help: { type: 'boolean', short: 'h' } });
  if (flags.help) {
    process.stdout.write(STATUS_USAGE);
    return;
  }
  const report = await statusReport({
    configDir: configDir(),
    stateDir: stateDir(),
    profile: flags.profile,
    // The keychain's absence is a line of the report itself: not a warning as well.
    warn: (m) => void (m.startsWith(NO_KEYCHAIN) || process.stderr.write(`${warningLine(m)}\n`)),
  });
  // A base URL configured with credentials in it is shown without them.
  process.stdout.write(scrub(flags.json ? `${JSON.stringify(report)}\n` : formatStatus(report, Date.now())));
}
