/**
 * The built views (one self-contained HTML file each, made by `npm run build`), read from disk
 * the first time a host asks for one and kept: starting the server reads nothing (hosts start it
 * to negotiate, and cold start is measured).
 *
 * Where they are: next to the compiled server (dist/views beside dist/mcp), wherever dist is put
 * (the npm package, an MCPB bundle); when the server runs from source (tests, `tsx src/cli.ts`),
 * in the repository's dist/views.
 */
import { readFile } from 'node:fs/promises';

const PLACES = [new URL('../../views/', import.meta.url), new URL('../../../dist/views/', import.meta.url)];

const cache = new Map<string, Promise<string>>();

/** A view that is not built: the message says how to build it. */
export class ViewNotBuiltError extends Error {}

async function load(name: string): Promise<string> {
  for (const dir of PLACES) {
    try {
      return await readFile(new URL(`${name}.html`, dir), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
  }
  throw new ViewNotBuiltError(`the view "${name}" is not built (no ${name}.html in dist/views); run "npm run build"`);
}

export function viewHtml(name: string): Promise<string> {
  let html = cache.get(name);
  if (!html) {
    html = load(name);
    cache.set(name, html);
    // A failed read is tried again next time (e.g. after a build).
    html.catch(() => cache.delete(name));
  }
  return html;
}
