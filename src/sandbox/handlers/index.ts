/**
 * Every operation's handler, keyed by operation id. A test checks that each operation in the
 * operations table has exactly one handler.
 */
import { accountHandlers } from './accounts.js';
import { budgetHandlers } from './budgets.js';
import { categoryHandlers } from './categories.js';
import type { Handler } from './context.js';
import { monthHandlers } from './months.js';
import { payeeHandlers } from './payees.js';
import { scheduledHandlers } from './scheduled.js';
import { transactionReadHandlers } from './transactions-read.js';
import { transactionWriteHandlers } from './transactions-write.js';

export const HANDLERS: Readonly<Record<string, Handler>> = {
  ...budgetHandlers,
  ...accountHandlers,
  ...categoryHandlers,
  ...payeeHandlers,
  ...monthHandlers,
  ...transactionReadHandlers,
  ...transactionWriteHandlers,
  ...scheduledHandlers,
};
