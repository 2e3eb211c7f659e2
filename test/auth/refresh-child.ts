/**
 * One of the two processes of the cross-process refresh test (refresh.test.ts). It resolves the
 * stored (expired) grant as `serve` does, says "ready", waits for "go" on stdin so that both
 * processes start at the same moment, makes 25 concurrent calls, and prints one JSON line:
 * how many calls succeeded, the error messages of the others, and how many refreshes it did.
 * Environment: YNAB_MCP_CONFIG_DIR, YNAB_MCP_STATE_DIR, YNAB_MCP_KEYCHAIN=off.
 */
import { resolveConnection } from '../../src/auth/connection.js';
import type { OAuthTokenProvider } from '../../src/auth/oauth-provider.js';
import { configDir, stateDir } from '../../src/paths.js';
import { createStack } from '../../src/stack/stack.js';

const connection = await resolveConnection({ configDir: configDir(), stateDir: stateDir(), warn: (l) => process.stderr.write(`${l}\n`) });
const stack = createStack({ credentials: connection.credentials, baseUrl: connection.baseUrl, stateDir: stateDir(), persist: false });
process.stdout.write('ready\n');
await new Promise<void>((resolve) => {
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    if (chunk.includes('go')) resolve();
  });
});
const results = await Promise.allSettled(Array.from({ length: 25 }, () => stack.client.call('getUser')));
await stack.close();
process.stdout.write(
  `${JSON.stringify({
    ok: results.filter((r) => r.status === 'fulfilled').length,
    errors: results.flatMap((r) => (r.status === 'rejected' ? [String((r.reason as Error).message)] : [])),
    refreshes: (connection.credentials as OAuthTokenProvider).refreshes,
  })}\n`,
);
process.exit(0);
