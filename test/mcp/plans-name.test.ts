/**
 * YNAB now calls budgets "plans" (its app, and the API's /v1/plans paths): list_budgets, the tool a
 * model reads first to find a budget, says so, through a real MCP client's tools/list.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { mcpHarness, type McpHarness } from '../helpers/mcp.js';

let h: McpHarness;
beforeAll(async () => {
  h = await mcpHarness();
});
afterAll(() => h.close());

it("list_budgets' description says that YNAB calls budgets plans", async () => {
  const { tools } = await h.client.listTools();
  const description = tools.find((t) => t.name === 'list_budgets')!.description!;
  expect(description).toMatch(/YNAB (now )?calls (them|budgets) plans/);
  expect(description).toMatch(/budget_id/);
});
