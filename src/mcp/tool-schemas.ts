/**
 * The tools' JSON Schemas, converted from zod at build time. Converting 44 input and 44 output
 * schemas took most of the server's cold start; `npm run build` writes them to
 * dist/mcp/tool-schemas.json (scripts/tool-schemas.mjs) and the server hands them to the SDK
 * instead of converting (sdkSchemas; the zod schemas are then made on a tool's first call). Each
 * entry carries a signature of its tool
 * (name, title, description, argument and output member names): an entry that no longer matches
 * the tool, from a build that skipped the step, is not used and the tool is converted at run time
 * as before. Run from src/ (tests), there is no file and everything is converted at run time.
 * A write is offered differently per `--writes` mode (with confirm_token and a preview hint where
 * the mode can hold it), so each tool has one entry per distinct form: the default mode's forms
 * converted at run time cost a quarter of the cold start.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import { deferredToolSchema, toolSchema } from './schema.js';
import { WRITE_MODES } from '../writes/policy.js';
import { withConfirm, type ToolDefinition } from './tools/definitions.js';

/** The JSON Schema draft the SDK converts to (its JSON_SCHEMA_CONVERSION_TARGET). */
export const JSON_SCHEMA_TARGET = 'draft-2020-12';

type Json = Record<string, unknown>;

export interface ToolSchemaEntry {
  /** `confirm`: the form with confirm_token (definitions.ts withConfirm). */
  form: 'plain' | 'confirm';
  signature: string;
  input: Json;
  output: Json;
}

export function signatureOf(def: ToolDefinition): string {
  return JSON.stringify([def.name, def.title, def.description, Object.keys(def.input.shape), Object.keys(def.output.shape)]);
}

/** Every tool's forms (one per `--writes` mode that offers it differently), schemas converted as tools/list would (for the build step and its test). */
export function convertToolSchemas(defs: readonly ToolDefinition[]): Record<string, ToolSchemaEntry[]> {
  const out: Record<string, ToolSchemaEntry[]> = {};
  for (const base of defs) {
    const forms = (out[base.name] = [] as ToolSchemaEntry[]);
    for (const def of new Set([base, ...WRITE_MODES.map((mode) => withConfirm(base, mode))])) {
      forms.push({
        form: def.form ?? 'plain',
        signature: signatureOf(def),
        input: toolSchema(def.input)['~standard'].jsonSchema.input({ target: JSON_SCHEMA_TARGET }),
        output: toolSchema(def.output)['~standard'].jsonSchema.output({ target: JSON_SCHEMA_TARGET }),
      });
    }
  }
  return out;
}

/**
 * The SHA-256 of the tool-schemas.json the bundle was built beside, set by scripts/bundle.mjs
 * (esbuild `define`): the build writes that file from the very definitions it then bundles, so a
 * file with this digest fits every tool without comparing signatures, which would make every
 * tool's zod schemas first. Not set outside the bundle.
 */
declare const __TOOL_SCHEMAS_SHA256__: string | undefined;
const BUNDLED_DIGEST = typeof __TOOL_SCHEMAS_SHA256__ === 'string' ? __TOOL_SCHEMAS_SHA256__ : undefined;

interface Built {
  tools: Record<string, ToolSchemaEntry[]>;
  /** Made by the same build as the running bundle. */
  trusted: boolean;
}

let built: Built | null | undefined;

function builtSchemas(): Built | null {
  if (built === undefined) {
    try {
      const text = readFileSync(new URL('./tool-schemas.json', import.meta.url), 'utf8');
      const trusted = BUNDLED_DIGEST !== undefined && createHash('sha256').update(text).digest('hex') === BUNDLED_DIGEST;
      built = { tools: JSON.parse(text) as Record<string, ToolSchemaEntry[]>, trusted };
    } catch {
      built = null;
    }
  }
  return built;
}

/** The build-time entry made for this very form of a tool, if any. */
export function builtEntry(def: ToolDefinition): ToolSchemaEntry | undefined {
  const all = builtSchemas();
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
