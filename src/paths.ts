/**
 * Where the project keeps files on this machine. State (request ledger, replicas, locks)
 * and configuration (the fallback secrets file) live in the platform's usual places, or
 * wherever YNAB_MCP_STATE_DIR / YNAB_MCP_CONFIG_DIR point. How files are written there (private
 * directories, no links followed) is src/storage/safe-fs.ts.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import { privateDir } from './storage/safe-fs.js';

const APP = 'ynab-mcp';

type Env = Record<string, string | undefined>;

/** Directory for machine-local state shared by every ynab-mcp process of this user. */
export function stateDir(env: Env = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.YNAB_MCP_STATE_DIR) return env.YNAB_MCP_STATE_DIR;
  const home = env.HOME || env.USERPROFILE || homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', APP, 'state');
  if (platform === 'win32') return join(env.LOCALAPPDATA || join(home, 'AppData', 'Local'), APP, 'state');
  return join(env.XDG_STATE_HOME || join(home, '.local', 'state'), APP);
}

/** Directory for user configuration (and the 0600 secrets file when no keychain exists). */
export function configDir(env: Env = process.env, platform: NodeJS.Platform = process.platform): string {
  if (env.YNAB_MCP_CONFIG_DIR) return env.YNAB_MCP_CONFIG_DIR;
  const home = env.HOME || env.USERPROFILE || homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', APP);
  if (platform === 'win32') return join(env.APPDATA || join(home, 'AppData', 'Roaming'), APP);
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), APP);
}

/**
 * Makes `dir` a private directory (0700) and returns it: created if missing, tightened (with a
 * warning) if open to others, refused if another user owns it (src/storage/safe-fs.ts).
 */
export function ensurePrivateDir(dir: string, warn: (message: string) => void = (m) => void process.stderr.write(`${m}\n`)): string {
  return privateDir(dir, dir, warn);
}
