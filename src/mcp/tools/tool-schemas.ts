/**
 * The tools' JSON Schemas, converted from zod at build time. Converting 44 input and 44 output
 * schemas took most of the server's cold start; `npm run build` writes every tool as tools/list
 * shows it to dist/mcp/tool-schemas.json (scripts/tool-schemas.mjs, read by tool-schemas-file.ts).
 * A bundled server whose file is the one its build wrote lists tools from it alone (tools/cards.ts).
 * Otherwise, each entry carries a signature of its tool (name, title, description, argument and
 * output member names): an entry that no longer matches the tool, from a build that skipped the
 * step or a file changed since, is not used and the tool is converted at run time (sdkSchemas).
 * Run from src/ (tests), there is no file and everything is converted at run time.
 * A write is offered differently per `--writes` mode (with confirm_token and a preview hint where
 * the mode can hold it), so each tool has one entry per distinct form.
 */
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { deferredToolSchema, toolSchema } from './schema.js';
import { builtTools, JSON_SCHEMA_TARGET, type ToolSchemaEntry } from './tool-schemas-file.js';
import { WRITE_MODES } from '../../writes/pipeline/policy.js';
import { withConfirm, type ToolDefinition } from './definitions.js';

export { JSON_SCHEMA_TARGET, type ToolSchemaEntry } from './tool-schemas-file.js';

export function signatureOf(def: ToolDefinition): string {
  return JSON.stringify([def.name, def.title, def.description, Object.keys(def.input.shape), Object.keys(def.output.shape)]);
}

/** Every tool's forms (one per `--writes` mode that offers it differently), as tools/list shows them (for the build step and its test). */
export function convertToolSchemas(defs: readonly ToolDefinition[]): Record<string, ToolSchemaEntry[]> {
  const out: Record<string, ToolSchemaEntry[]> = {};
  for (const base of defs) {
    const forms = (out[base.name] = [] as ToolSchemaEntry[]);
    for (const def of new Set([base, ...WRITE_MODES.map((mode) => withConfirm(base, mode))])) {
      forms.push({
        form: def.form ?? 'plain',
        signature: signatureOf(def),
        title: def.title,
        description: def.description,
        toolset: def.toolset,
        access: def.access,
        kind: def.kind,
        kinds: def.kinds,
        annotations: def.annotations,
        input: toolSchema(def.input)['~standard'].jsonSchema.input({ target: JSON_SCHEMA_TARGET }),
        output: toolSchema(def.output)['~standard'].jsonSchema.output({ target: JSON_SCHEMA_TARGET }),
      });
    }
  }
  return out;
}

/** The build-time entry made for this very form of a tool, if any. */
export function builtEntry(def: ToolDefinition): ToolSchemaEntry | undefined {
  const all = builtTools();
  if (!all || !Object.hasOwn(all.tools, def.name)) return undefined;
  const forms = all.tools[def.name]!;
  if (all.trusted) return forms.find((entry) => entry.form === (def.form ?? 'plain'));
  const signature = signatureOf(def);
  return forms.find((entry) => entry.signature === signature);
}

/**
 * A tool's schemas as the SDK takes them: from the build's JSON Schemas where the build made them
 * for this very tool (the zod schemas then wait for the first call), else converted from zod.
 */
export function sdkSchemas(def: ToolDefinition): { input: StandardSchemaWithJSON; output: StandardSchemaWithJSON } {
  const entry = builtEntry(def);
  if (!entry) return { input: toolSchema(def.input), output: toolSchema(def.output) };
  return {
    input: deferredToolSchema(() => def.input, 'input', JSON_SCHEMA_TARGET, entry.input),
    output: deferredToolSchema(() => def.output, 'output', JSON_SCHEMA_TARGET, entry.output),
  };
}
