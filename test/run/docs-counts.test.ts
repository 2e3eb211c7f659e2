/**
 * The counts docs/ states about the code are checked as the README's are (issue 59 item 7): each
 * is `<!-- count:NAME -->N`, which `npm run docs` writes (scripts/docs-tables.ts COUNTS), and one
 * written by hand is refused (scripts/check-docs.ts). docs/views.md said five views and five
 * `ui://` resources where there were six: here its counts are recomputed from what a client that
 * shows views gets from the server.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countProblems } from '../../scripts/check-docs.js';
import { fillCounts, generatedDocs } from '../../scripts/docs-tables.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { mcpHarness, type McpHarness } from '../helpers/mcp.js';
import { UI_CAPABILITIES } from '../helpers/views.js';

const read = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');
const counts = (text: string, name: string) => [...text.matchAll(new RegExp(`<!-- count:${name} -->(\\d+)`, 'g'))].map((m) => Number(m[1]));

describe('docs/views.md', () => {
  let h: McpHarness;
  beforeAll(async () => {
    h = await mcpHarness({ clientCapabilities: UI_CAPABILITIES });
  });
  afterAll(() => h?.close());

  it('counts the views a client that shows them gets: the tools with a view, the ui:// resources, the rows of its size table', async () => {
    const { tools } = await h.client.listTools();
    const viewTools = tools.filter((t) => (t._meta as { ui?: { resourceUri?: string } } | undefined)?.ui?.resourceUri);
    const { resources } = await h.client.listResources();
    const views = resources.filter((r) => r.uri.startsWith('ui://')).map((r) => r.uri.replace('ui://ynab/', ''));
    expect(viewTools).toHaveLength(views.length);
    const doc = read('docs/views.md');
    // Each time it says how many: the tools shown as views, the tools with _meta.ui, the ui:// resources.
    expect(counts(doc, 'views')).toEqual([views.length, views.length, views.length]);
    const size = doc.slice(doc.indexOf('## Size'));
    const rows = [...size.matchAll(/^\| ([a-z-]+) \| [\d.]+ kB \| [\d.]+ kB \|$/gm)].map((m) => m[1]);
    expect(rows.sort()).toEqual(views.sort());
  });
});

describe('the counts in docs/', () => {
  it('are what npm run docs writes, and a stale one is rewritten, so the generated-docs test fails on drift', async () => {
    const docs = await generatedDocs();
    const marked = Object.keys(docs).filter((f) => f.startsWith('docs/') && /<!-- count:[a-z-]+ -->\d/.test(docs[f]!.current));
    expect(marked.sort()).toEqual(['docs/adding-a-tool.md', 'docs/alerts.md', 'docs/hosted.md', 'docs/sandbox.md', 'docs/tools.md', 'docs/views.md']);
    for (const f of marked) expect(docs[f]!.generated, `${f}: run npm run docs`).toBe(docs[f]!.current);
    const views = read('docs/views.md');
    const stale = views.replace(/(<!-- count:views -->)\d+/, '$15');
    expect(stale).not.toBe(views);
    expect(fillCounts('docs/views.md', stale)).toBe(views);
  });

  it('are refused when written by hand: views, ui:// resources, event types, operations', () => {
    const hand = [
      'Hosts show five tools’ answers as views, and list the five `ui://ynab/…` resources.',
      'events/list gives the nine event types; the sandbox implements all 44 operations.',
    ].join('\n');
    expect(countProblems('docs/views.md', hand)).toEqual([
      expect.stringMatching(/^docs\/views\.md:1 states "five tools" by hand: write <!-- count:NAME -->N/),
      expect.stringMatching(/^docs\/views\.md:1 states "five code resources" by hand/),
      expect.stringMatching(/^docs\/views\.md:2 states "nine event types" by hand/),
      expect.stringMatching(/^docs\/views\.md:2 states "44 operations" by hand/),
    ]);
    expect(countProblems('docs/tools.md', 'views get `_meta` on the\n<!-- count:views -->6 view tools')).toEqual([
      "docs/tools.md:2 starts with a count's marker, which Markdown reads as HTML: put a word before it",
    ]);
    // Marked, they pass; a size in MB is the README's rule only.
    expect(countProblems('docs/views.md', 'the <!-- count:views -->6 `ui://ynab/…` resources, 3 MB')).toEqual([]);
  });
});
