/**
 * The CLI on a real pseudo-terminal (util-linux's `script`), as a person typing a command sees it:
 * stdin, stdout and stderr are the terminal, and `script` copies what it shows to its stdout.
 */
import { spawn, spawnSync } from 'node:child_process';
import { childEnv, cliArgs, REPO_ROOT } from './cli.js';

/** Whether `script` can run here (Linux with util-linux). */
export const HAS_SCRIPT = process.platform === 'linux' && spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0;

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/**
 * Runs the CLI with `args` on a terminal until it has shown `until` (then kills it), and returns
 * what the terminal showed (lines end in \r\n there).
 */
export async function onTerminal(args: string[], env: Record<string, string | undefined>, until: RegExp, ms = 30_000): Promise<string> {
  const command = [process.execPath, ...cliArgs(), ...args].map(quote).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { cwd: REPO_ROOT, env: childEnv(env), stdio: ['pipe', 'pipe', 'pipe'], detached: true });
  let shown = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (shown += chunk));
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${until} within ${ms} ms; the terminal showed: ${shown}`)), ms);
      child.stdout.on('data', () => {
        if (until.test(shown)) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.on('close', () => {
        clearTimeout(timer);
        if (until.test(shown)) resolve();
        else reject(new Error(`script exited; the terminal showed: ${shown}`));
      });
    });
  } finally {
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
  }
  return shown;
}
