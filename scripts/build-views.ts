/**
 * Builds the MCP Apps views (`npm run build:views`, part of `npm run build`): each views/<name>.ts
 * of the views table, bundled by esbuild with views/style.css, becomes one self-contained HTML
 * file, dist/views/<name>.html, beside the compiled server (so the npm package and an MCPB bundle
 * built from dist carry them). Nothing is fetched by a view: script and style are inline, and the
 * page's own content-security policy closes the network even where a host's would not.
 * Each view must stay within 300 KB; the build prints raw and gzipped sizes and fails above it.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build, transform } from 'esbuild';
import { VIEWS } from '../src/mcp/views/table.js';
import { viewBundling } from './view-bundling.js';

const ROOT = join(import.meta.dirname, '..');
export const VIEW_LIMIT_BYTES = 300 * 1024;

/** Inline script and style may not close their element early. */
const inline = (code: string, tag: 'script' | 'style') => code.replace(new RegExp(`</(${tag})`, 'gi'), '<\\/$1');

const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'none'; base-uri 'none'; form-action 'none'";

export interface BuiltView {
  name: string;
  file: string;
  bytes: number;
  gzipBytes: number;
}

export async function buildViews(outDir = join(ROOT, 'dist', 'views')): Promise<BuiltView[]> {
  mkdirSync(outDir, { recursive: true });
  const css = await transform(readFileSync(join(ROOT, 'views', 'style.css'), 'utf8'), { loader: 'css', minify: true });
  const built: BuiltView[] = [];
  for (const view of VIEWS) {
    const out = await build({
      entryPoints: [join(ROOT, 'views', `${view.name}.ts`)],
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      charset: 'utf8',
      legalComments: 'none',
      // ext-apps' App within the size limit without changing what it runs (view-bundling.ts).
      plugins: [viewBundling],
      write: false,
      logLevel: 'silent',
    });
    const html =
      '<!doctype html><html lang="en"><head><meta charset="utf-8">' +
      `<meta http-equiv="Content-Security-Policy" content="${CSP}">` +
      '<meta name="viewport" content="width=device-width,initial-scale=1"><meta name="color-scheme" content="light dark">' +
      `<title>${view.title}</title><style>${inline(css.code, 'style')}</style></head>` +
      `<body><main id="app"></main><script>${inline(out.outputFiles[0]!.text, 'script')}</script></body></html>\n`;
    const file = join(outDir, `${view.name}.html`);
    const bytes = Buffer.byteLength(html);
    if (bytes > VIEW_LIMIT_BYTES) throw new Error(`the view "${view.name}" is ${bytes} bytes, over the limit of ${VIEW_LIMIT_BYTES}`);
    // Written whole or not at all: a server reading it meanwhile sees the old file or the new one.
    writeFileSync(`${file}.tmp`, html);
    renameSync(`${file}.tmp`, file);
    built.push({ name: view.name, file, bytes, gzipBytes: gzipSync(html).length });
  }
  return built;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const built = await buildViews(process.argv[2]);
  for (const v of built) process.stderr.write(`views: ${v.name}.html ${(v.bytes / 1024).toFixed(1)} KB, ${(v.gzipBytes / 1024).toFixed(1)} KB gzipped\n`);
}
