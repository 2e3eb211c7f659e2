/**
 * The method texts (skills/texts.ts) as prompts, for hosts that do not load MCP Skills: the same
 * steps, with the live lines every prompt here has (the budget, when its copy is held; the tools
 * this server does not offer now) and the confirm flow.
 */
import type { GetPromptResult, McpServer } from '@modelcontextprotocol/server';
import * as z from 'zod';
import { availability, budgetArg, budgetPhrase, CONFIRM, held, message } from './prompts.js';
import { METHOD_TEXTS, type MethodText } from '../skills/texts.js';
import type { ServerState } from '../state/state.js';

function methodPrompt(state: ServerState, text: MethodText) {
  return async ({ budget_id }: { budget_id?: string }): Promise<GetPromptResult> => {
    const b = budgetPhrase(budget_id, await held(state, budget_id ?? state.config.defaultBudget));
    return message([
      `Walk me through this with my YNAB budget${b.text}, one step at a time.`,
      b.note,
      '',
      ...text.body.split('\n'),
      '',
      CONFIRM,
      availability(state, text.tools),
    ]);
  };
}

export function registerMethodPrompts(server: McpServer, state: ServerState): void {
  const argsSchema = z.object({ budget_id: budgetArg(state) });
  for (const text of METHOD_TEXTS)
    server.registerPrompt(text.prompt, { title: text.title, description: text.description, argsSchema }, methodPrompt(state, text));
}
