/**
 * The build's tool file, dist/mcp/tool-schemas.json (scripts/tool-schemas.mjs): every tool as
 * tools/list shows it, in each form a `--writes` mode offers, with its JSON Schemas converted once
 * at build time (tool-schemas.ts). Read here with nothing else loaded, so that a bundled server can
 * answer tools/list without loading a single definition (tools/cards.ts).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Access } from '../../api/operations/types.js';
import type { WriteKind } from '../../writes/pipeline/policy.js';
import type { ToolAnnotations } from './definitions.js';
import type { McpToolset } from './toolsets.js';

type Json = Record<string, unknown>;

/** The JSON Schema draft the SDK converts to (its JSON_SCHEMA_CONVERSION_TARGET), and the build converts to. */
export const JSON_SCHEMA_TARGET = 'draft-2020-12';

/** One form of one tool, as the build wrote it. */
export interface ToolSchemaEntry {
  /** `confirm`: the form with confirm_token (definitions.ts withConfirm). */
  form: 'plain' | 'confirm';
  signature: string;
  title: string;
  description: string;
  toolset: McpToolset;
  access: Access;
  kind: 'api' | 'insight' | 'task';
  kinds: readonly WriteKind[];
  annotations: ToolAnnotations;
  input: Json;
  output: Json;
}

/**
 * The SHA-256 of the tool-schemas.json the bundle was built beside, set by scripts/bundle.mjs
 * (esbuild `define`): the build writes that file from the very definitions it then bundles, so a
 * file with this digest fits every tool as it is. Not set outside the bundle.
 */
declare const __TOOL_SCHEMAS_SHA256__: string | undefined;
const BUNDLED_DIGEST = typeof __TOOL_SCHEMAS_SHA256__ === 'string' ? __TOOL_SCHEMAS_SHA256__ : undefined;

export interface BuiltTools {
  tools: Record<string, ToolSchemaEntry[]>;
  /** Made by the same build as the running bundle. */
  trusted: boolean;
}

let built: BuiltTools | null | undefined;

/** The build's file, or null where there is none (run from src/, or a build that skipped the step). */
export function builtTools(): BuiltTools | null {
  if (built === undefined) {
    try {
      const text = readFileSync(new URL('../tool-schemas.json', import.meta.url), 'utf8');
      const trusted = BUNDLED_DIGEST !== undefined && createHash('sha256').update(text).digest('hex') === BUNDLED_DIGEST;
      built = { tools: JSON.parse(text) as Record<string, ToolSchemaEntry[]>, trusted };
    } catch {
      built = null;
    }
  }
  return built;
}
