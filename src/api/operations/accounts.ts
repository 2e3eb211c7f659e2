/** Accounts. See index.ts for the table as a whole. */
import { moneyClaim, everyRow } from './claims.js';
import * as B from '../schemas/bodies.js';
import * as R from '../schemas/responses.js';
import type { Operation } from './types.js';
import { MONEY_NOTE } from './shared.js';

export const ACCOUNTS_OPERATIONS = [
  {
    id: 'getAccounts',
    method: 'GET',
    scope: 'budget',
    path: '/accounts',
    params: [],
    query: ['last_knowledge_of_server'],
    status: 200,
    data: R.AccountsData,
    member: 'accounts',
    delta: true,
    access: 'read',
    read: { replica: true, cache: 'budget' },
    output: { kind: 'account', list: true, totals: 'accounts' },
    toolset: 'accounts',
    tool: {
      name: 'list_accounts',
      claims: [
        moneyClaim(),
        {
          says: 'working, cleared and uncleared balances',
          check: everyRow('accounts', 'with all three balances', (a) =>
            [a.balance, a.cleared_balance, a.uncleared_balance].every((b) => typeof b === 'number'),
          ),
        },
      ],
      title: 'List accounts',
      description: `Use for balances or to find an account: working, cleared and uncleared balances. ${MONEY_NOTE}`,
    },
  },
  {
    id: 'createAccount',
    method: 'POST',
    scope: 'budget',
    path: '/accounts',
    params: [],
    query: [],
    body: B.PostAccountWrapper,
    bodyMembers: ['account'],
    status: 201,
    data: R.AccountData,
    member: 'account',
    delta: false,
    access: 'write',
    write: { makes: 'create', exactlyOnce: 'identity' },
    output: { kind: 'account' },
    toolset: 'accounts',
    tool: {
      name: 'create_account',
      title: 'Create account',
      description: 'Use when the user opened an account: creates it with a starting balance.',
    },
  },
  {
    id: 'getAccountById',
    method: 'GET',
    scope: 'budget',
    path: '/accounts/{account_id}',
    params: ['account_id'],
    query: [],
    status: 200,
    data: R.AccountData,
    member: 'account',
    delta: false,
    access: 'read',
    read: { replica: true, cache: 'budget' },
    output: { kind: 'account' },
    toolset: 'accounts',
    tool: {
      name: 'get_account',
      claims: [moneyClaim({ account_id: 'Everyday Checking' })],
      title: 'Get account',
      description: `Use for one account's balances. ${MONEY_NOTE}`,
    },
  },
] as const satisfies readonly Operation[];
