/**
 * The method texts (texts.ts) served as MCP Skills (the SDK's `ext/skills`, SEP-2640) for hosts
 * that load skills: each a SKILL.md at `skill://<name>/SKILL.md`, listed by skills/list. The
 * entries (digests, sizes) are made on the first request that needs them, not at start, and one
 * extension serves every server this process builds (Streamable HTTP builds one per request).
 * Each SKILL.md is in resources/list too, named and described as its front matter says, so a client
 * that knows only resources finds it, and one that knows skills can match the two.
 */
import type { McpServer } from '@modelcontextprotocol/server';
import { skillEntry, SkillsExtension, type Skill, type SkillSource } from '@modelcontextprotocol/server/ext/skills';
import { METHOD_TEXTS, skillMarkdown } from './texts.js';

const BASE = 'skill://';

const uriOf = (name: string) => `${BASE}${name}/SKILL.md`;

let entries: Promise<Skill[]> | undefined;

function skills(): Promise<Skill[]> {
  entries ??= Promise.all(METHOD_TEXTS.map((text) => skillEntry(text.name, { 'SKILL.md': skillMarkdown(text) }, { baseUri: BASE })));
  return entries;
}

const SOURCE: SkillSource = {
  list: async () => ({ skills: await skills() }),
  get: async (uri) => (await skills()).find((skill) => skill.uri === uri),
  read: async (uri) => {
    const text = METHOD_TEXTS.find((t) => uriOf(t.name) === uri);
    return text ? { text: skillMarkdown(text), mimeType: 'text/markdown' } : undefined;
  },
  listResources: async () =>
    (await skills()).map((skill) => ({
      uri: skill.uri,
      name: skill.frontmatter.name,
      description: skill.frontmatter.description,
      mimeType: 'text/markdown',
      size: Buffer.byteLength(skillMarkdown(METHOD_TEXTS.find((t) => t.name === skill.frontmatter.name)!)),
    })),
};

let extension: SkillsExtension | undefined;

/** Serves the method skills on `server` (before it connects). */
export function registerSkills(server: McpServer): void {
  extension ??= new SkillsExtension({ source: SOURCE, baseUri: BASE });
  extension.attach(server);
}
