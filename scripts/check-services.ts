/**
 * Every test file that starts a system service declares it (`npm run check:services`, run by
 * .ci/run and test/run/services.test.ts). A static analysis of test/: which functions start
 * redis-server, Chromium, the keychain or openssl, directly (a child process of that program,
 * playwright's chromium, the keychain module) or through other test helpers, followed across
 * imports to a fixed point; then, in each test file, every call that starts one outside a named
 * function must be covered by the file's `// @module-tag <name>` line, or lie inside a test or
 * describe block given `{ tags: ['<name>'] }`. A start in a hook or at the top of a file needs the
 * module tag: vitest skips a file's hooks only when every test in it skips.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export type ServiceName = 'redis' | 'chromium' | 'keychain' | 'openssl';

export interface ServiceProblem {
  file: string;
  line: number;
  service: ServiceName;
  /** The chain of calls that starts it, e.g. `startDeployment → startRedis → spawn redis-server`. */
  via: string;
}

/** Programs whose child processes are a service. */
const PROGRAMS: Record<string, ServiceName> = { 'redis-server': 'redis', 'redis-cli': 'redis', openssl: 'openssl', chromium: 'chromium' };
const CHILD_PROCESS_CALLS = new Set(['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync']);
/** Functions of src/auth/keychain.ts that talk to the real Secret Service. */
const KEYCHAIN_CALLS = new Set(['probeKeychain', 'loadKeyring']);
/** A file that points D-Bus away tests the keychain's absence, not the keychain. */
const DBUS_AWAY = /DBUS_SESSION_BUS_ADDRESS\s*=[^=]/;

interface Imported {
  module: string;
  name: string;
}

/** What one function (or a file's code outside named functions) calls. */
interface Unit {
  key: string;
  label: string;
  /** Services started directly, with what started them. */
  direct: Map<ServiceName, string>;
  /** Calls to other functions: their keys, where the call is, and the tags of the test around it. */
  calls: { key: string; line: number; tags: Set<string> }[];
}

interface FileUnits {
  file: string;
  text: string;
  /** The file's code outside named functions. */
  top: Unit;
  /** Direct starts outside named functions, with their line and enclosing tags. */
  topStarts: { service: ServiceName; via: string; line: number; tags: Set<string> }[];
  units: Unit[];
}

function moduleKey(from: string, spec: string): string {
  if (!spec.startsWith('.')) return spec;
  return resolve(dirname(from), spec).replace(/\.(js|ts|mjs|mts)$/, '');
}

function importsOf(file: string, source: ts.SourceFile): Map<string, Imported> {
  const out = new Map<string, Imported>();
  for (const st of source.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier) || !st.importClause) continue;
    const module = moduleKey(file, st.moduleSpecifier.text);
    const clause = st.importClause;
    if (clause.name) out.set(clause.name.text, { module, name: 'default' });
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) out.set(bindings.name.text, { module, name: '*' });
    if (bindings && ts.isNamedImports(bindings)) {
      for (const el of bindings.elements) out.set(el.name.text, { module, name: (el.propertyName ?? el.name).text });
    }
  }
  return out;
}

/** The name a function-like node is known by in its file (`f`, `Class.method`), or null when anonymous. */
function namedFunction(n: ts.Node): string | null {
  if (ts.isFunctionDeclaration(n) && n.name) return n.name.text;
  if ((ts.isArrowFunction(n) || ts.isFunctionExpression(n)) && ts.isVariableDeclaration(n.parent) && ts.isIdentifier(n.parent.name)) return n.parent.name.text;
  if (ts.isMethodDeclaration(n) && ts.isIdentifier(n.name) && ts.isClassDeclaration(n.parent) && n.parent.name) return `${n.parent.name.text}.${n.name.text}`;
  return null;
}

function enclosingClass(n: ts.Node): string | null {
  for (let p: ts.Node | undefined = n.parent; p; p = p.parent) if (ts.isClassDeclaration(p) && p.name) return p.name.text;
  return null;
}

/** The tags a test or describe call gives its block: `it('…', { tags: ['redis'] }, …)`. */
function blockTags(call: ts.CallExpression, into: Set<string>): void {
  if (!/^(it|test|describe)(\.|$)/.test(call.expression.getText())) return;
  for (const arg of call.arguments) {
    if (!ts.isObjectLiteralExpression(arg)) continue;
    for (const prop of arg.properties) {
      if (ts.isPropertyAssignment(prop) && prop.name.getText() === 'tags' && ts.isArrayLiteralExpression(prop.initializer)) {
        for (const el of prop.initializer.elements) if (ts.isStringLiteralLike(el)) into.add(el.text);
      }
    }
  }
}

/** The tags given to the test or describe blocks around a node. */
function tagsAround(n: ts.Node): Set<string> {
  const tags = new Set<string>();
  for (let p: ts.Node | undefined = n.parent; p; p = p.parent) if (ts.isCallExpression(p)) blockTags(p, tags);
  return tags;
}

/** What a call starts by itself, or null. */
function directStart(call: ts.CallExpression, imports: Map<string, Imported>): { service: ServiceName; via: string } | null {
  const callee = call.expression;
  const fn = ts.isIdentifier(callee)
    ? imports.get(callee.text)
    : ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression)
      ? imports.get(callee.expression.text)
      : undefined;
  const calledName = ts.isIdentifier(callee) ? fn?.name : ts.isPropertyAccessExpression(callee) ? callee.name.text : undefined;
  if (fn && /^(node:)?child_process$/.test(fn.module) && calledName && CHILD_PROCESS_CALLS.has(calledName)) {
    const first = call.arguments[0];
    const program = first && ts.isStringLiteralLike(first) ? first.text.split('/').pop()! : '';
    const service = PROGRAMS[program];
    return service ? { service, via: `${calledName} ${program}` } : null;
  }
  if (fn && /^playwright(-core)?$/.test(fn.module) && fn.name === 'chromium' && ts.isPropertyAccessExpression(callee)) {
    return /^launch/.test(callee.name.text) ? { service: 'chromium', via: `playwright chromium.${callee.name.text}` } : null;
  }
  if (fn && /src\/auth\/keychain$/.test(fn.module) && KEYCHAIN_CALLS.has(fn.name)) return { service: 'keychain', via: fn.name };
  return null;
}

/** The function a call reaches, as a key `module#name`, when it can be told from the source. */
function calleeKey(call: ts.CallExpression, file: string, imports: Map<string, Imported>, locals: Set<string>): string | null {
  const callee = call.expression;
  const mod = file.replace(/\.(ts|mts)$/, '');
  if (ts.isIdentifier(callee)) {
    const imp = imports.get(callee.text);
    if (imp) return `${imp.module}#${imp.name}`;
    return locals.has(callee.text) ? `${mod}#${callee.text}` : null;
  }
  if (!ts.isPropertyAccessExpression(callee)) return null;
  const method = callee.name.text;
  if (callee.expression.kind === ts.SyntaxKind.ThisKeyword) {
    const cls = enclosingClass(call);
    return cls ? `${mod}#${cls}.${method}` : null;
  }
  const imp = ts.isIdentifier(callee.expression) ? imports.get(callee.expression.text) : undefined;
  if (imp) return imp.name === '*' ? `${imp.module}#${method}` : `${imp.module}#${imp.name}.${method}`;
  if (ts.isIdentifier(callee.expression) && locals.has(`${callee.expression.text}.${method}`)) return `${mod}#${callee.expression.text}.${method}`;
  // An object whose type the source does not say (`new Site().prepare()`, `site.prepare()`): the
  // file's own method of that name, when only one class here has one.
  const owners = [...locals].filter((l) => l.endsWith(`.${method}`));
  return owners.length === 1 ? `${mod}#${owners[0]}` : null;
}

/** A function passed by name rather than called (`beforeAll(setUp)`) runs all the same. */
function passedKey(id: ts.Identifier, file: string, imports: Map<string, Imported>, locals: Set<string>): string | null {
  if (!ts.isCallExpression(id.parent) || !id.parent.arguments.includes(id)) return null;
  const imp = imports.get(id.text);
  if (imp) return `${imp.module}#${imp.name}`;
  return locals.has(id.text) ? `${file.replace(/\.(ts|mts)$/, '')}#${id.text}` : null;
}

function analyseFile(file: string, text: string): FileUnits {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const imports = importsOf(file, source);
  const mod = file.replace(/\.(ts|mts)$/, '');
  const locals = new Set<string>();
  const collect = (n: ts.Node): void => {
    const name = namedFunction(n);
    if (name) locals.add(name);
    ts.forEachChild(n, collect);
  };
  collect(source);
  const top: Unit = { key: `${mod}#<top>`, label: relative(process.cwd(), file), direct: new Map(), calls: [] };
  const result: FileUnits = { file, text, top, topStarts: [], units: [top] };
  const walk = (n: ts.Node, unit: Unit): void => {
    const name = namedFunction(n);
    if (name) {
      unit = { key: `${mod}#${name}`, label: name, direct: new Map(), calls: [] };
      result.units.push(unit);
    }
    if (ts.isCallExpression(n)) {
      const line = source.getLineAndCharacterOfPosition(n.getStart()).line + 1;
      const start = directStart(n, imports);
      if (start && unit === top) result.topStarts.push({ ...start, line, tags: tagsAround(n) });
      else if (start && !unit.direct.has(start.service)) unit.direct.set(start.service, start.via);
      const key = calleeKey(n, file, imports, locals);
      if (key) unit.calls.push({ key, line, tags: unit === top ? tagsAround(n) : new Set() });
    }
    const passed = ts.isIdentifier(n) ? passedKey(n, file, imports, locals) : null;
    if (passed) {
      const line = source.getLineAndCharacterOfPosition(n.getStart()).line + 1;
      unit.calls.push({ key: passed, line, tags: unit === top ? tagsAround(n) : new Set() });
    }
    ts.forEachChild(n, (c) => walk(c, unit));
  };
  walk(source, top);
  return result;
}

/** For every function, the services it starts and by which chain of calls, to a fixed point. */
function startsByFunction(files: FileUnits[]): Map<string, Map<ServiceName, string>> {
  const units = files.flatMap((f) => f.units.filter((u) => u !== f.top));
  const starts = new Map<string, Map<ServiceName, string>>(units.map((u) => [u.key, new Map(u.direct)]));
  for (let changed = true; changed;) {
    changed = false;
    for (const u of units) {
      const mine = starts.get(u.key)!;
      for (const call of u.calls) {
        for (const [service, via] of starts.get(call.key) ?? []) {
          if (mine.has(service)) continue;
          mine.set(service, `${call.key.split('#')[1]} → ${via}`);
          changed = true;
        }
      }
    }
  }
  return starts;
}

function moduleTags(text: string): Set<string> {
  return new Set([...text.matchAll(/^\/\/\s*@module-tag\s+([\w-]+)/gm)].map((m) => m[1]!));
}

/** The problems of a set of files (paths absolute, texts given): test files are those ending .test.ts. */
export function serviceProblems(files: { path: string; text: string }[], root: string): ServiceProblem[] {
  const analysed = files.map((f) => analyseFile(f.path, f.text));
  const starts = startsByFunction(analysed);
  const problems: ServiceProblem[] = [];
  for (const f of analysed.filter((x) => /\.test\.(ts|mts)$/.test(x.file))) {
    const declared = moduleTags(f.text);
    const dbusAway = DBUS_AWAY.test(f.text);
    const seen = new Set<ServiceName>();
    const found = [
      ...f.topStarts,
      ...f.top.calls.flatMap((c) =>
        [...(starts.get(c.key) ?? [])].map(([service, via]) => ({ service, via: `${c.key.split('#')[1]} → ${via}`, line: c.line, tags: c.tags })),
      ),
    ];
    for (const s of found) {
      if (declared.has(s.service) || s.tags.has(s.service) || seen.has(s.service)) continue;
      if (s.service === 'keychain' && dbusAway) continue;
      seen.add(s.service);
      problems.push({ file: relative(root, f.file), line: s.line, service: s.service, via: s.via });
    }
  }
  return problems.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === '__toolsnaps__' ? [] : tsFiles(path);
    return /\.(ts|mts)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The problems of a repository's test/ folder. */
export function repositoryServiceProblems(root: string): ServiceProblem[] {
  const files = tsFiles(join(root, 'test')).map((path) => ({ path, text: readFileSync(path, 'utf8') }));
  return serviceProblems(files, root);
}

export function describeProblem(p: ServiceProblem): string {
  return `${p.file}:${p.line}: starts ${p.service} (${p.via}) without a "// @module-tag ${p.service}" line (see test/helpers/services.ts)`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  // The repository here, or the one named (the check's own test feeds it one).
  const problems = repositoryServiceProblems(resolve(process.argv[2] ?? process.cwd()));
  for (const p of problems) console.error(describeProblem(p));
  if (problems.length) process.exit(1);
  console.log('services: every test file that starts redis, Chromium, the keychain or openssl declares it');
}
