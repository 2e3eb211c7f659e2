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

// Hosted mode's packages of many files, each in one file of its own: resolving, reading and
// compiling them one by one was most of an instance's start before it could listen (bench:
// hosted, time to ready): @redis/client about 480 CommonJS files (a module per command), 0.2 s;
// oidc-provider with Koa and jose about 230 modules, 0.15 s. The names the server imports from
// each are listed here (a name missing fails the server at its start); the main build below takes
// the package from this file. What a package leaves to be installed (optional peers) stays so.
const OWN_FILES = [
  {
    name: '@redis/client',
    file: 'redis-client.js',
    imports: '{ createClient, createCluster, RESP_TYPES }',
    external: ['@node-rs/xxhash', '@opentelemetry/api'],
  },
  { name: 'oidc-provider', file: 'oidc-provider.js', imports: '{ default, errors }', external: [] },
  // Hosted mode's metrics and JSON log: about 60 and 35 CommonJS files (prom-client loads the
  // OpenTelemetry API's 40 for its exemplars).
  { name: 'prom-client', file: 'prom-client.js', imports: '{ collectDefaultMetrics, Counter, Gauge, Histogram, Registry }', external: [] },
  { name: 'pino', file: 'pino.js', imports: '{ default }', external: [] },
];
// What every build here shares: ES modules for Node 20, npm packages bundled unless said otherwise.
const NODE_ESM = { bundle: true, format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning' };
// CommonJS bundled as a module: its require() of Node's modules and of the peers, made here.
const REQUIRE_BANNER = { js: "import { createRequire } from 'node:module';\nconst require = createRequire(import.meta.url);" };

for (const own of OWN_FILES) {
  await build({
    ...NODE_ESM,
    stdin: { contents: `export ${own.imports} from '${own.name}';`, resolveDir: join(import.meta.dirname, '..'), loader: 'js' },
    outfile: join(out, own.file),
    external: own.external,
    banner: REQUIRE_BANNER,
  });
}

// Packages that share modules, each specifier in a file of its own, built together so that what
// they share is one module, split out: zod (whose registry holds the schemas' descriptions, read
// by the SDK's JSON Schema conversion) and the MCP SDK's server and client (`tools`, `call`) with
// their core. Left to Node they were about 115 files resolved and compiled before a server could
// answer (60 of them zod's locales), in every server's start.
const SHARED_FILES = [
  { name: 'zod', file: 'zod.js' },
  { name: '@modelcontextprotocol/server', file: 'mcp-server.js' },
  { name: '@modelcontextprotocol/server/stdio', file: 'mcp-server-stdio.js' },
  { name: '@modelcontextprotocol/server/ext/skills', file: 'mcp-server-skills.js' },
  { name: '@modelcontextprotocol/client', file: 'mcp-client.js' },
];
const sharedEntries = {
  name: 'shared-entries',
  setup(b) {
    b.onResolve({ filter: /^shared:/ }, (args) => ({ path: args.path.slice('shared:'.length), namespace: 'shared' }));
    b.onLoad({ filter: /.*/, namespace: 'shared' }, async (args) => {
      const hasDefault = 'default' in (await import(args.path));
      const contents = `export * from '${args.path}';${hasDefault ? `\nexport { default } from '${args.path}';` : ''}`;
      return { contents, resolveDir: join(import.meta.dirname, '..'), loader: 'js' };
    });
  },
};
await build({
  ...NODE_ESM,
  entryPoints: SHARED_FILES.map((f) => ({ in: `shared:${f.name}`, out: f.file.replace(/\.js$/, '') })),
  outdir: out,
  splitting: true,
  chunkNames: 'shared-[hash]',
  plugins: [sharedEntries],
  banner: REQUIRE_BANNER,
});

const ownFiles = {
  name: 'packages-in-own-files',
  setup(b) {
    for (const own of [...OWN_FILES, ...SHARED_FILES]) {
      const exact = new RegExp(`^${own.name.replace(/[/.]/g, '\\$&')}$`);
      b.onResolve({ filter: exact }, () => ({ path: `./${own.file}`, external: true }));
    }
  },
};

await build({
  ...NODE_ESM,
  entryPoints: [join(dist, 'cli.js')],
  outdir: out,
  splitting: true,
  packages: 'external',
  entryNames: '[name]',
  chunkNames: '[name]-[hash]',
  plugins: [ownFiles, ownUrl],
  define: { __TOOL_SCHEMAS_SHA256__: JSON.stringify(schemasDigest) },
});

// The command stays dist/cli.js (package.json's bin, the docs, the hosts' configurations).
writeFileSync(join(dist, 'cli.js'), "#!/usr/bin/env node\n// The bundled command line (scripts/bundle.mjs).\nimport './bundle/cli.js';\n");
