// Build step after tsc: bundles the compiled server into <dist>/bundle/ (esbuild: one module for
// the command line and one chunk per part loaded on demand, npm packages left as imports), and
// makes <dist>/cli.js load it. A cold start reads a few files instead of about 150: resolving and
// reading each ES module cost more of `serve`'s start than running its code (bench: footprint).
// Every module keeps its own `import.meta.url` (rewritten to the URL its tsc output has), so files
// found beside a module (package.json, mcp/tool-schemas.json, views/) are found as before.
// Plain JavaScript over the compiled output, so it needs nothing but node and esbuild.
// Usage: node scripts/bundle.mjs [DIST]
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { build } from 'esbuild';

const dist = resolve(process.argv[2] ?? join(import.meta.dirname, '..', 'dist'));
const out = join(dist, 'bundle');

/** Gives each compiled module the import.meta.url its own file has, from inside a bundle file. */
const ownUrl = {
  name: 'own-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.js$/ }, (args) => {
      if (!args.path.startsWith(dist + sep)) return undefined;
      const source = readFileSync(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return { contents: source, loader: 'js' };
      // Bundle files sit one level below dist (dist/bundle/*.js), so '../' is dist itself.
      const fromDist = relative(dist, args.path).split(sep).join('/');
      const url = `new URL(${JSON.stringify(`../${fromDist}`)}, import.meta.url).href`;
      return { contents: source.replace(/\bimport\.meta\.url\b/g, url), loader: 'js' };
    });
  },
};

// The digest of the tool schemas written by the step before (scripts/tool-schemas.mjs) from the
// very modules bundled here: a server finding that file unchanged uses it without comparing each
// tool's signature (src/mcp/tools/tool-schemas.ts).
const schemas = readFileSync(join(dist, 'mcp', 'tool-schemas.json'));
const schemasDigest = createHash('sha256').update(schemas).digest('hex');

// Hosted mode's Redis client in one file of its own: @redis/client is about 480 CommonJS files
// (a module per command), and resolving, reading and compiling them one by one was 0.2 s of an
// instance's start before it could listen (bench: hosted, time to ready). The names the server
// imports from it are listed here; the main build below takes `@redis/client` from this file.
// Its optional peers stay packages, required where they are installed, as the package does.
const REDIS_CLIENT = ['createClient', 'createCluster', 'RESP_TYPES'];
await build({
  stdin: { contents: `export { ${REDIS_CLIENT.join(', ')} } from '@redis/client';`, resolveDir: join(import.meta.dirname, '..'), loader: 'js' },
  outfile: join(out, 'redis-client.js'),
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: ['@node-rs/xxhash', '@opentelemetry/api'],
  // CommonJS bundled as a module: its require() of Node's modules and of the peers, made here.
  banner: { js: "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);" },
  logLevel: 'warning',
});
const bundledRedis = {
  name: 'bundled-redis-client',
  setup(b) {
    b.onResolve({ filter: /^@redis\/client$/ }, () => ({ path: './redis-client.js', external: true }));
  },
};

await build({
  entryPoints: [join(dist, 'cli.js')],
  outdir: out,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  entryNames: '[name]',
  chunkNames: '[name]-[hash]',
  plugins: [bundledRedis, ownUrl],
  define: { __TOOL_SCHEMAS_SHA256__: JSON.stringify(schemasDigest) },
  logLevel: 'warning',
});

// The command stays dist/cli.js (package.json's bin, the docs, the hosts' configurations).
writeFileSync(join(dist, 'cli.js'), "#!/usr/bin/env node\n// The bundled command line (scripts/bundle.mjs).\nimport './bundle/cli.js';\n");
