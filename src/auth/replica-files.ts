/**
 * The saved replicas of one sign-in, as `status` shows them and `logout` removes them:
 * `<stateDir>/replicas/<identity>/<budget>.replica` (the file store's layout, see
 * src/storage/keys.ts), plus the directory's aliases file; `logout` removes the sign-in's write
 * journals, undo journals and confirm tokens (`<stateDir>/{journal,changes,confirm}/<identity>/`) too. Only names, sizes and times are read; the
 * content stays encrypted.
 */
import { lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { noticeLink, type Warn } from '../storage/safe-fs.js';

const stderr: Warn = (m) => void process.stderr.write(`${m}\n`);

export interface ReplicaFileInfo {
  budgetId: string;
  bytes: number;
  modified: string;
}

export interface ReplicaSet {
  directory: string;
  budgets: ReplicaFileInfo[];
  /** All files of the directory, replicas and bookkeeping. */
  totalBytes: number;
}

export function replicasRoot(stateDir: string): string {
  return join(stateDir, 'replicas');
}

export function replicaDir(stateDir: string, identity: string): string {
  return join(replicasRoot(stateDir), identity);
}

/**
 * What is saved for `identity`; an empty set when nothing is. A link where a file belongs is not
 * a saved copy: it is never followed nor counted, and `warn` hears of it once per file.
 */
export async function listReplicas(stateDir: string, identity: string, warn: Warn = stderr): Promise<ReplicaSet> {
  const directory = replicaDir(stateDir, identity);
  const set: ReplicaSet = { directory, budgets: [], totalBytes: 0 };
  let names: string[];
  try {
    names = await readdir(directory);
  } catch {
    return set;
  }
  for (const name of names.sort()) {
    const path = join(directory, name);
    let info;
    try {
      info = await lstat(path);
    } catch {
      continue; // removed meanwhile by a running server
    }
    if (info.isSymbolicLink()) {
      if (name.endsWith('.replica')) noticeLink(warn, path, 'it is not a saved copy');
      continue;
    }
    if (!info.isFile()) continue;
    set.totalBytes += info.size;
    if (name.endsWith('.replica')) {
      set.budgets.push({ budgetId: name.slice(0, -'.replica'.length), bytes: info.size, modified: info.mtime.toISOString() });
    }
  }
  return set;
}

/** Identities other than `except` that have saved replicas (other profiles, a YNAB_ACCESS_TOKEN). */
export async function otherReplicaIdentities(stateDir: string, except: string | null): Promise<string[]> {
  try {
    const entries = await readdir(replicasRoot(stateDir), { withFileTypes: true });
    return entries.filter((e) => e.isDirectory() && e.name !== except).map((e) => e.name);
  } catch {
    return [];
  }
}

export async function removeReplicas(stateDir: string, identity: string): Promise<ReplicaSet> {
  const set = await listReplicas(stateDir, identity);
  // rm does not follow links: a link planted here is removed, never what it points at.
  await rm(set.directory, { recursive: true, force: true });
  // The write journal, the undo journal and outstanding confirm tokens are the sign-in's too.
  for (const kind of ['journal', 'changes', 'confirm']) await rm(join(stateDir, kind, identity), { recursive: true, force: true });
  return set;
}
