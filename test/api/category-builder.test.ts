/**
 * The category builder writes its companions in one literal (for speed on the hosted tail): it
 * must give what the base fields followed by money() and nullableMoney() give, key for key and in
 * the same order, for any category and currency format.
 */
import { expect, it } from 'vitest';
import { USD_FORMAT } from '../../src/api/money.js';
import { money, nullableMoney } from '../../src/api/read/companions.js';
import { category, categoryBase } from '../../src/api/read/entities.js';
import type { CategoryBase } from '../../src/api/schemas/entities.js';
import type { CurrencyFormat } from '../../src/api/schemas/common.js';

const USD = USD_FORMAT;
const EUR: CurrencyFormat = { ...USD, iso_code: 'EUR', decimal_separator: ',', group_separator: '.', symbol_first: false, currency_symbol: '€' };
const JPY: CurrencyFormat = { ...USD, iso_code: 'JPY', decimal_digits: 0, currency_symbol: '¥' };

const plain: CategoryBase = {
  id: 'c1',
  category_group_id: 'g1',
  name: 'Groceries',
  hidden: false,
  internal: false,
  budgeted: 400_000,
  activity: -123_455,
  balance: 276_545,
  deleted: false,
} as CategoryBase;
const withGoal: CategoryBase = {
  ...plain,
  category_group_name: 'Everyday',
  note: 'weekly shop',
  goal_type: 'NEED',
  goal_target: 1_234_567,
  goal_under_funded: 0,
  goal_overall_funded: -5,
  goal_overall_left: null,
  goal_percentage_complete: 42,
} as CategoryBase;

it.each([
  ['a plain category, USD', plain, USD],
  ['a category with a target, EUR', withGoal, EUR],
  ['a category with a target, JPY', withGoal, JPY],
  ['a category with a target, no format', withGoal, null],
])('%s: the same keys, order and values as base + money + nullableMoney', (_, c, format) => {
  const base = categoryBase(c);
  const spread = {
    ...base,
    ...money(format, base, 'balance', 'activity', 'budgeted'),
    ...nullableMoney(format, base, 'goal_target', 'goal_under_funded', 'goal_overall_funded', 'goal_overall_left'),
  };
  const built = category({ currencyFormat: format } as Parameters<typeof category>[0], c);
  expect(Object.keys(built)).toEqual(Object.keys(spread));
  expect(built).toStrictEqual(spread);
});
