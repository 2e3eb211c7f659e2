/**
 * How the views bundle ext-apps' `App` within a view's 300 KB (scripts/build-views.ts). Plainly
 * bundled, `App` is 664 KB, for two reasons that are about bundling, not about what it runs:
 *
 *  - ext-apps' files import zod's whole namespace (`import { z } from "zod/v4"`), and a bundler
 *    cannot leave out any part of a namespace object: every locale (264 KB) and zod's JSON Schema
 *    conversion come along. Here such an import gets a module holding only the `z` members that
 *    file uses, read from the installed file itself, each imported by name from the same zod;
 *  - the MCP SDK's packages declare no `sideEffects`, so the client's modules a view never reaches
 *    (Client, OAuth, the JSON Schema validators) stay in. Here the SDK's client and core packages,
 *    and the chunks inside them, are bundled as side-effect free.
 *
 * With both, `App` is about 245 KB (64 KB gzipped). The render tests (test/views/render.test.ts)
 * run the built views against ext-apps' host side in Chromium.
 */
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Plugin } from 'esbuild';
import * as zod from 'zod';

const EXT_APPS_DIST = /@modelcontextprotocol[\\/]ext-apps[\\/]dist[\\/]/;
const SDK_DIST = /@modelcontextprotocol[\\/](client|core)[\\/]dist[\\/]/;
const ZOD_IMPORT = /import\s*\{\s*z(?:\s+as\s+([A-Za-z_$][\w$]*))?\s*\}\s*from\s*["']zod\/v4["']\s*;?/g;
const PASS = 'view-bundling';

/** The zod members `file` uses through its `z` imports; fails when one is used other than as `z.member`. */
export function zodMembers(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const locals = [...text.matchAll(ZOD_IMPORT)].map((m) => m[1] ?? 'z');
  const rest = text.replace(ZOD_IMPORT, '');
  const members = new Set<string>();
  for (const local of locals) {
    const name = local.replace(/\$/g, '\\$');
    const uses = [...rest.matchAll(new RegExp(`(?<![\\w$.])${name}(?![\\w$])(\\.([A-Za-z_$][\\w$]*))?`, 'g'))];
    const bare = uses.filter((u) => u[2] === undefined);
    if (bare.length) throw new Error(`${file} uses zod's namespace (${local}) other than as ${local}.member: the view bundling would change what it runs`);
    for (const u of uses) members.add(u[2]!);
  }
  const missing = [...members].filter((m) => !(m in zod));
  if (missing.length) throw new Error(`${file} uses z.${missing.join(', z.')}, which zod does not export`);
  return [...members].sort();
}

export const viewBundling: Plugin = {
  name: PASS,
  setup(build) {
    build.onResolve({ filter: /^zod\/v4$/ }, (a) => (EXT_APPS_DIST.test(a.importer) ? { path: a.importer, namespace: 'zod-members' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'zod-members' }, (a) => {
      const members = zodMembers(a.path);
      return {
        contents: `import { ${members.map((m, i) => `${m} as m${i}`).join(', ')} } from 'zod';\nexport const z = { ${members.map((m, i) => `${m}: m${i}`).join(', ')} };\n`,
        resolveDir: dirname(a.path),
        loader: 'js',
      };
    });
    build.onResolve({ filter: /^(@modelcontextprotocol\/(client|core)(\/.*)?|\.\.?\/.*)$/ }, async (a) => {
      if (a.pluginData === PASS) return undefined;
      if (a.path.startsWith('.') && !SDK_DIST.test(a.importer)) return undefined;
      const r = await build.resolve(a.path, { kind: a.kind, resolveDir: a.resolveDir, importer: a.importer, pluginData: PASS });
      return r.errors.length ? undefined : { path: r.path, namespace: r.namespace, external: r.external, suffix: r.suffix, sideEffects: false };
    });
  },
};
