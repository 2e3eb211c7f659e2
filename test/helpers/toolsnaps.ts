/**
 * Tool schema snapshots (test/mcp/__toolsnaps__): one JSON file per tool, compared with what
 * tools/list gives. A missing snapshot is a failure like a changed one, everywhere (CI included):
 * snapshots are written only on request, with UPDATE_TOOLSNAPS=1, and then reviewed and committed.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export class ToolsnapError extends Error {
  override name = 'ToolsnapError';
}

/** The saved snapshot at `file`, to compare `current` with; with `update`, `current` is saved first. */
export function savedToolsnap(file: string, current: string, update = process.env.UPDATE_TOOLSNAPS === '1'): string {
  if (update) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, current);
  } else if (!existsSync(file)) {
    throw new ToolsnapError(`no snapshot at ${file}: run the tests with UPDATE_TOOLSNAPS=1 to write it, then review and commit it`);
  }
  return readFileSync(file, 'utf8');
}
