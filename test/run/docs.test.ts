/**
 * The documentation stays whole and true to the code: the README's toolset and size tables and
 * docs/tools.md's per-tool table are what `npm run docs` writes from the tool definitions
 * (scripts/docs-tables.ts), and the README and docs/ keep the rules of scripts/check-docs.ts
 * (the README within 400 lines, no dead link or anchor, no path that does not exist, no document
 * left unlinked, every dependency explained).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anchors, docProblems, MAX_README_LINES } from '../../scripts/check-docs.js';
import { fillCounts, fillTables, GENERATED, generatedDocs, generatedTables } from '../../scripts/docs-tables.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { listed } from '../helpers/tools-list.js';

describe('generated tables', () => {
  let tables: Record<string, string>;
  beforeAll(async () => {
    tables = await generatedTables();
  });

  it('are what npm run docs writes from the tool definitions', async () => {
    for (const [file, { current, generated }] of Object.entries(await generatedDocs()))
      expect(current, `${file} differs from the tables the tool definitions give: run npm run docs`).toBe(generated);
  });

  it('show every tool, and the budgets the definitions test holds the lists to', () => {
    expect(tables.tools!.split('\n')).toHaveLength(2 + 73);
    expect(tables['definition-sizes']).toMatch(/\| default \(a few tools and `call_api`\) \| 24 \| [\d,]+ \| [\d,]+ \| [\d,]+ \| [\d,]+ \| 30,000 \|/);
    expect(tables['definition-sizes']).toMatch(/\| `core` \| 13 \|.* \| 15,000 \|/);
  });

  it('put back a table edited by hand, and refuse a file that lost its markers', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const edited = readme.replace(/\| default \(a few tools and `call_api`\) \| 24 \| [\d,]+/, '| default (a few tools and `call_api`) | 57 | 1');
    expect(edited).not.toBe(readme);
    expect(fillTables('README.md', edited, tables)).toBe(fillTables('README.md', readme, tables));
    expect(() => fillTables('README.md', readme.replace('<!-- /generated:definition-sizes -->', ''), tables)).toThrow(
      /README\.md: needs exactly one <!-- generated:definition-sizes -->/,
    );
    expect(Object.values(GENERATED).flat().sort()).toEqual(Object.keys(tables).sort());
  });
});

describe("the README's counts", () => {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const count = (name: string) => Number(new RegExp(`<!-- count:${name} -->(\\d+)`).exec(readme)?.[1]);
  /** The tools a bullet of "What the tools do" names, from its bold title to the next bullet (toolsets are named there too). */
  const bullet = (title: string, tools: Set<string>) => {
    const start = readme.indexOf(`- **${title}**`);
    return [...readme.slice(start, readme.indexOf('\n- ', start + 1)).matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!).filter((n) => tools.has(n));
  };

  it("are what the server lists: the API operations of YNAB's spec, and the insight and task tools the README names", async () => {
    const spec = readFileSync(join(REPO_ROOT, 'test', 'fixtures', 'ynab-api', 'openapi.yaml'), 'utf8');
    const operations = spec.match(/^\s+operationId:/gm)!.length;
    expect([count('api-tools'), count('api-operations')]).toEqual([operations, operations]);
    const names = new Set(((await listed('all')) as { name: string }[]).map((t) => t.name));
    const insights = new Set(bullet('Insight tools', names));
    const tasks = new Set([...bullet('Task-shaped writes', names), ...bullet('House rules', names)]);
    expect([count('insight-tools'), count('task-tools')]).toEqual([insights.size, tasks.size]);
    expect(count('api-tools') + count('insight-tools') + count('task-tools')).toBe(names.size);
  });

  it('are rewritten by npm run docs when they go stale, so the generated-docs test fails on drift', () => {
    const stale = readme.replace(/(<!-- count:insight-tools -->)\d+/, '$19');
    expect(stale).not.toBe(readme);
    expect(fillCounts('README.md', stale)).toBe(readme);
    expect(() => fillCounts('README.md', '<!-- count:nonsense -->3')).toThrow(/no count named nonsense/);
  });
});

describe('the README and docs/', () => {
  it('keep the rules: a short README, no dead links, anchors or paths, nothing unlinked, every dependency explained', () => {
    expect(docProblems(REPO_ROOT)).toEqual([]);
  });

  it("state hosted mode's sign-in rules where an operator reads them: the redirect URIs a client may register, and the default scope", () => {
    const hosted = readFileSync(join(REPO_ROOT, 'docs/hosted.md'), 'utf8');
    for (const text of [readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'), hosted]) {
      expect(text).toMatch(/redirect\s+URIs,?\s+(?:must\s+be|with)\s+`https`,\s+or\s+plain\s+`http`\s+to\s+a\s+loopback\s+address/);
      expect(text).toMatch(/anything\s+else\s+is\s+`invalid_redirect_uri`/);
      expect(text).toMatch(/without\s+`scope`|asks\s+for\s+no\s+scope/);
      expect(text).toMatch(/default(?:\s+scope)?,\s+`ynab`/);
    }
  });

  it('anchors are GitHub’s', () => {
    const md = '# A\n## Hosted mode: many users, for web and mobile assistants\n### `--data FILE` is durable\n```sh\n# not a heading\n```\n## A\n';
    expect([...anchors(md)]).toEqual(['a', 'hosted-mode-many-users-for-web-and-mobile-assistants', '--data-file-is-durable', 'a-1']);
  });

  describe('find what breaks them', () => {
    let root: string;
    beforeAll(() => {
      root = mkdtempSync(join(tmpdir(), 'docs-check-'));
      for (const f of ['README.md', 'package.json', 'docs', 'src', 'test', 'scripts', 'views', 'bench', 'assets', 'compose.yaml', 'Dockerfile', 'deploy'])
        cpSync(join(REPO_ROOT, f), join(root, f), { recursive: true });
      // What the README's install section links to.
      for (const f of ['CHANGELOG.md', 'server.json']) cpSync(join(REPO_ROOT, f), join(root, f));
    });
    afterAll(() => rmSync(root, { recursive: true, force: true }));

    const edit = (file: string, change: (text: string) => string) => {
      const path = join(root, file);
      const before = readFileSync(path, 'utf8');
      writeFileSync(path, change(before));
      return () => writeFileSync(path, before);
    };

    it('a README over the limit', () => {
      const undo = edit('README.md', (t) => t + '\nmore\n'.repeat(MAX_README_LINES));
      expect(docProblems(root)).toEqual([expect.stringMatching(/^README\.md has \d+ lines, over 400/)]);
      undo();
    });

    it('a count written by hand, and a measured size of the bundle', () => {
      const undo = edit('README.md', (t) =>
        t.replace(/<!-- count:insight-tools -->\d+ insight tools/, 'seven insight tools').replace('(at most 8 MB', '(about 6 MB'),
      );
      expect(docProblems(root)).toEqual([
        expect.stringMatching(/^README\.md:\d+ states "seven insight tools" by hand: write <!-- count:NAME -->N/),
        expect.stringMatching(/^README\.md:\d+ says 6 MB: the bundle's size goes stale; state its limit, 8 MB$/),
      ]);
      undo();
    });

    it('a link to a file or a heading that does not exist, and a path that does not', () => {
      const undo = edit('docs/writes.md', (t) => `${t}\n[gone](nowhere.md) [moved](tools.md#no-such-heading) \`src/writes/nowhere.ts\`\n`);
      expect(docProblems(root)).toEqual([
        expect.stringMatching(/^docs\/writes\.md:\d+ links to nowhere\.md: no file docs\/nowhere\.md$/),
        expect.stringMatching(/^docs\/writes\.md:\d+ links to tools\.md#no-such-heading: docs\/tools\.md has no heading #no-such-heading$/),
        expect.stringMatching(/^docs\/writes\.md:\d+ names src\/writes\/nowhere\.ts, which does not exist$/),
      ]);
      undo();
    });

    it('a document nothing links to, and a dependency nobody explains', () => {
      writeFileSync(join(root, 'docs', 'orphan.md'), '# Orphan\n');
      const undo = edit('package.json', (t) => t.replace('"dependencies": {', '"dependencies": {\n    "left-pad": "1.3.0",'));
      expect(docProblems(root)).toEqual([
        'docs/orphan.md is not linked from the README, nor from a document it links to',
        'docs/dependencies.md does not say why left-pad is a dependency',
      ]);
      undo();
      rmSync(join(root, 'docs', 'orphan.md'));
      expect(docProblems(root)).toEqual([]);
    });
  });
});
