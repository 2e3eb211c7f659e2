/**
 * Accounts: list (delta-capable), one account, and creation with a starting balance.
 */
import type * as B from '../../api/schemas/bodies.js';
import { createAccount } from '../domain/accounts.js';
import { badRequest } from '../errors.js';
import * as V from '../store/views.js';
import { requireAccount, sinceKnowledge, visible } from './common.js';
import type { Handler } from './context.js';

export const accountHandlers: Record<string, Handler> = {
  getAccounts: (ctx) => {
    const b = ctx.budget;
    b.derived();
    const since = sinceKnowledge(ctx);
    const accounts = [...b.rec.accounts.values()].filter((a) => visible(b.knowledgeOf(`account:${a.id}`, a.knowledge), a.deleted, since));
    return { data: { accounts: accounts.map((a) => V.account(b, a)), server_knowledge: b.knowledge } };
  },

  getAccountById: (ctx) => ({ data: { account: V.account(ctx.budget, requireAccount(ctx.budget, ctx.params.account_id!)) } }),

  createAccount: (ctx) => {
    const b = ctx.budget;
    const { account: input } = ctx.body as { account: B.SaveAccount };
    const name = input.name.trim();
    if (!name) throw badRequest('account.name must not be blank');
    const created = b.change(() => createAccount(b, { name, type: input.type, balance: input.balance, date: b.today() }));
    return { status: 201, data: { account: V.account(b, created) } };
  },
};
