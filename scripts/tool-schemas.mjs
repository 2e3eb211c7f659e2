// Build step after tsc: writes <dist>/mcp/tool-schemas.json, every tool's JSON Schemas converted
// once here instead of at each server start (see src/mcp/tools/tool-schemas.ts). Plain JavaScript over
// the compiled output, so it needs nothing but node. Usage: node scripts/tool-schemas.mjs [DIST]
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const dist = resolve(process.argv[2] ?? join(import.meta.dirname, '..', 'dist'));
const load = (path) => import(pathToFileURL(join(dist, path)).href);
const { TOOL_DEFINITIONS } = await load('mcp/tools/definitions.js');
const { convertToolSchemas } = await load('mcp/tools/tool-schemas.js');
writeFileSync(join(dist, 'mcp', 'tool-schemas.json'), JSON.stringify(convertToolSchemas(TOOL_DEFINITIONS)));
