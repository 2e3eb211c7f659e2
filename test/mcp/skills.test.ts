/**
 * The method (the weekly ritual, closing a month, YNAB's four rules) as MCP Skills through the
 * SDK's skills client, which verifies every entry's digest and front matter, and as prompts with
 * the same steps for hosts that do not load skills.
 */
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { METHOD_TEXTS } from '../../src/mcp/skills/texts.js';
import { TOOL_DEFINITIONS } from '../../src/mcp/tools/definitions.js';
import { mcpHarness, type McpHarness } from '../helpers/mcp.js';

let h: McpHarness;
beforeAll(async () => {
  h = await mcpHarness();
});
afterAll(() => h.close());

it('serves the three method skills, each verified by the skills client and holding its steps', async () => {
  const skills = new SkillsClient(h.client);
  expect(skills.supported).toBe(true);
  const { skills: entries } = await skills.list();
  expect(entries.map((s) => s.frontmatter.name).sort()).toEqual(['month-close', 'weekly-ritual', 'ynab-four-rules']);
  for (const entry of entries) {
    const text = METHOD_TEXTS.find((t) => t.name === entry.frontmatter.name)!;
    expect(entry.frontmatter.description).toBe(text.description);
    const file = await skills.read(entry);
    expect(file.verified).toBe(true);
    expect(file.body!.trim()).toBe(text.body.trim());
  }
  // Listing and reading skills needs no token and asks YNAB nothing.
  expect(await h.state.started()).toBeUndefined();
});

it('gives the same steps as prompts, for hosts that do not load skills', async () => {
  const { prompts } = await h.client.listPrompts();
  for (const text of METHOD_TEXTS) {
    const listed = prompts.find((p) => p.name === text.prompt)!;
    expect(listed.description).toBe(text.description);
    expect(listed.arguments?.map((a) => a.name)).toEqual(['budget_id']);
    const res = await h.client.getPrompt({ name: text.prompt, arguments: { budget_id: 'last-used' } });
    const content = res.messages[0]!.content;
    expect(content.type === 'text' && content.text).toContain(text.body);
  }
});

it('names only tools this server has, and every tool each text relies on appears in its steps', () => {
  const names = new Set(TOOL_DEFINITIONS.map((t) => t.name));
  for (const text of METHOD_TEXTS) {
    for (const tool of text.tools) {
      expect(names.has(tool), `${text.name}: ${tool}`).toBe(true);
      expect(text.body, `${text.name} relies on ${tool}`).toContain(tool);
    }
    const mentioned = [...text.body.matchAll(/\b[a-z]+(?:_[a-z]+)+\b/g)]
      .map((m) => m[0])
      .filter((w) => !['ready_to_assign', 'since_date', 'change_id', 'transaction_ids', 'expected_count'].includes(w));
    for (const word of mentioned) expect(names.has(word), `${text.name} mentions ${word}`).toBe(true);
  }
});

/** The front matter of a SKILL.md as the file says it (YAML: a plain or a JSON-quoted scalar per key). */
function frontMatter(markdown: string): Record<string, string> {
  const block = /^---\n([\s\S]*?)\n---\n/.exec(markdown)![1]!;
  return Object.fromEntries(
    block.split('\n').map((line) => {
      const [, key, value] = /^(\w+): (.*)$/.exec(line)!;
      return [key!, value!.startsWith('"') ? (JSON.parse(value!) as string) : value!];
    }),
  );
}

it('lists each SKILL.md in resources/list, named and described as its front matter says', async () => {
  const { resources } = await h.client.listResources();
  const listed = resources.filter((r) => r.uri.startsWith('skill://'));
  expect(listed.map((r) => r.uri).sort()).toEqual(['month-close', 'weekly-ritual', 'ynab-four-rules'].map((n) => `skill://${n}/SKILL.md`));
  for (const r of listed) {
    const read = await h.client.readResource({ uri: r.uri });
    const text = (read.contents[0] as { text: string }).text;
    const fm = frontMatter(text);
    expect({ name: r.name, description: r.description, mimeType: r.mimeType, size: r.size }).toEqual({
      name: fm.name,
      description: fm.description,
      mimeType: 'text/markdown',
      size: Buffer.byteLength(text),
    });
  }
});
