/**
 * Runs a tool: the shared answer (arguments → the service or the write pipeline → the one output
 * builder, see ../tool-answer.ts) → a result with structured content and its JSON text mirror,
 * inside a data boundary when it holds budget text (output/untrusted.ts). Every failure becomes
 * an isError result with a specific message; nothing is thrown to the SDK.
 */
import type { CallToolResult, InputRequiredResult } from '@modelcontextprotocol/server';
import { scrub as scrubText } from '../../api/client/scrub.js';
import { answer, type Answer } from '../answer/tool-answer.js';
import { configuredBudgetOf, describeError } from '../answer/errors.js';
import { NO_CONFIRM, type ConfirmInput } from '../../writes/pipeline/gate.js';
import { escapeText } from '../output/sanitize.js';
import { answerText } from '../output/untrusted.js';
import type { ServerState } from '../state/state.js';
import { rehearsalNotice } from '../state/config.js';
import type { ToolDefinition } from './definitions.js';

/** Errors may quote what the service or the caller sent back: escaped like any answer. */
function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: escapeText(message) }], isError: true };
}

export interface RunOptions {
  /** The result's `_meta`, from the answer (what a view needs beside the result: ../views/view-meta.ts). */
  resultMeta?: (answer: Answer) => Record<string, unknown>;
  /** What the request says about confirming a held write (../dialog.ts). */
  confirm?: ConfirmInput;
  /** The client asking (../caller.ts): needs_attention answers with the alerts new to it. */
  caller?: string;
}

export async function runTool(
  def: ToolDefinition,
  args: Record<string, unknown>,
  state: ServerState,
  opts: RunOptions = {},
): Promise<CallToolResult | InputRequiredResult> {
  const write = def.access === 'write';
  // Before the service exists (no token yet, a bad base URL) there are no tokens to know, but
  // URL credentials are still removed.
  let scrub = (text: string) => scrubText(text);
  try {
    if (write && state.readOnly) {
      return errorResult(state.readOnlyRefusal(def.name));
    }
    const service = await state.service();
    scrub = (text) => service.client.scrub(text);
    const answered = await answer(def, args, state, opts.confirm ?? NO_CONFIRM, opts.caller);
    // A held write asks the user in the client's dialog; the SDK runs this call again with the answer.
    if (answered.input) return answered.input;
    const { structured } = answered;
    return {
      content: [{ type: 'text', text: answerText(structured) }],
      structuredContent: structured,
      ...(opts.resultMeta ? { _meta: opts.resultMeta(answered) } : {}),
    };
  } catch (e) {
    if (!(e instanceof Error) || e.constructor === Error || e instanceof TypeError || e instanceof RangeError) {
      process.stderr.write(`ynab-mcp: ${def.name} failed: ${scrub((e as Error)?.stack ?? String(e))}\n`);
    }
    const message = describeError(e, def.name, write, await configuredBudgetOf(state, def, args));
    // A rehearsal's errors say so too: nothing in them happened in YNAB either.
    return errorResult(scrub(state.config.rehearsal ? `${message} (${rehearsalNotice(state.config.rehearsal)})` : message));
  }
}
