/**
 * apply_rules' arguments and handler (a row in src/mcp/tools/tasks.ts): the house rules applied to
 * the transactions already there, an account's, a date range's, or all. Its work (apply-rules-run.ts)
 * loads with the first call, not when the server starts.
 */
import * as z from 'zod';
import { IsoDate } from '../../api/schemas/common.js';
import { NameOrId } from '../../shared/arg-schemas.js';
import { taskWrite } from '../pipeline/task.js';

const INPUT = {
  account_id: NameOrId.optional(),
  since_date: IsoDate.optional().describe('YYYY-MM-DD.'),
  until_date: IsoDate.optional().describe('YYYY-MM-DD.'),
  include_reconciled: z.boolean().optional().describe('Change reconciled ones too.'),
};

export const APPLY_RULES = taskWrite({ input: INPUT, plan: async (ctx, a) => (await import('./apply-rules-run.js')).planApply(ctx, a) });
