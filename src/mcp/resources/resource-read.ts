/**
 * Reading a resource (resources.ts): a budget resource is the answer of the read tool it mirrors,
 * built by the same code (tool-answer.ts), and the status resource is ynab://status. Loaded with
 * the first read: it imports the definitions and everything that answers them.
 */
import { ProtocolError, ProtocolErrorCode, ResourceNotFoundError, type ReadResourceResult } from '@modelcontextprotocol/server';
import { ApiError, InvalidArgumentError, scrub } from '../../api/client/errors.js';
import { answer } from '../answer/tool-answer.js';
import { describeError } from '../answer/errors.js';
import { ArgumentError } from '../../shared/argument-error.js';
import { MAX_LIMIT } from '../../shared/paging.js';
import { sanitize } from '../output/sanitize.js';
import { ANSWER_MIME_TYPE as MIME, answerText } from '../output/untrusted.js';
import type { ServerState } from '../state/state.js';
import { serverStatus } from '../state/status.js';
import { apiTool, TOOL_DEFINITIONS, type ToolDefinition } from '../tools/definitions.js';

function tool(name: string): ToolDefinition {
  const def = apiTool(name) ?? TOOL_DEFINITIONS.find((t) => t.name === name);
  if (!def) throw new Error(`resources: no tool named ${name}`);
  return def;
}

async function scrubber(state: ServerState): Promise<(text: string) => string> {
  const stack = await state.started();
  return stack ? (text) => stack.client.scrub(text) : (text) => scrub(text);
}

/** Points a reader at the rest of a list the resource could not hold, through the tool it mirrors. */
function restNotice(def: ToolDefinition, args: Record<string, unknown>, structured: Record<string, unknown>): Record<string, unknown> {
  if (structured.has_more !== true) return structured;
  const { limit: _limit, ...rest } = args;
  const notice = `This resource holds ${structured.returned} of ${structured.count} items. For the rest, call ${def.name} with ${JSON.stringify({ ...rest, cursor: structured.next_cursor })}.`;
  return { ...structured, notices: [...((structured.notices as string[] | undefined) ?? []), notice] };
}

/** Reads a resource as the tool it mirrors answers; an unknown id or month is a not-found error. */
export async function readAsTool(state: ServerState, uri: string, name: string, args: Record<string, unknown>): Promise<ReadResourceResult> {
  const def = tool(name);
  // Resources cannot pass a cursor: they hold as much as one answer can, and say how to get more.
  const full = def.kind === 'api' && def.paged ? { ...args, limit: MAX_LIMIT } : args;
  const parsed = def.input.safeParse(full);
  if (!parsed.success) {
    const why = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ResourceNotFoundError(uri, `Resource not found: ${uri} (${why})`);
  }
  try {
    const { structured } = await answer(def, parsed.data as Record<string, unknown>, state);
    return { contents: [{ uri, mimeType: MIME, text: answerText(restNotice(def, full, structured)) }] };
  } catch (e) {
    const scrub = await scrubber(state);
    if (e instanceof ApiError && e.status === 404) {
      throw new ResourceNotFoundError(uri, scrub(`Resource not found: ${uri} (${e.detail || e.errorName}). resources/list and the list tools give valid ids.`));
    }
    if (e instanceof InvalidArgumentError) throw new ProtocolError(ProtocolErrorCode.InvalidParams, scrub(describeError(e, uri, false)));
    // A name in the URI that names nothing (or several things): not found, with the candidates.
    if (e instanceof ArgumentError) throw new ResourceNotFoundError(uri, scrub(`Resource not found: ${uri} (${e.message})`));
    if (!(e instanceof Error) || e.constructor === Error || e instanceof TypeError || e instanceof RangeError) {
      process.stderr.write(`ynab-mcp: reading ${uri} failed: ${scrub((e as Error)?.stack ?? String(e))}\n`);
    }
    throw new ProtocolError(ProtocolErrorCode.InternalError, scrub(describeError(e, uri, false)));
  }
}

/** ynab://status: the server's status, as the status tool would say it. */
export async function readStatus(state: ServerState, uri: string): Promise<ReadResourceResult> {
  return { contents: [{ uri, mimeType: MIME, text: answerText(sanitize(await serverStatus(state), await scrubber(state))) }] };
}
