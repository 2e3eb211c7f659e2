/**
 * How a bank's description is read against the budget's names when a statement is matched
 * (statement-match.ts bankTextNames): the name's words in the description, the last word cut
 * short as banks cut descriptions, and no match on a prefix inside the text.
 */
import { describe, expect, it } from 'vitest';
import { bankTextNames } from '../../src/writes/statement/statement-match.js';

describe('a bank description names a payee or account', () => {
  it.each([
    ['Rainy Day Savings', 'ONLINE TRANSFER TO RAINY DAY SAV'],
    ['Home Equity Line', 'ONLINE TRANSFER TO HOME EQUITY L'],
    ['Fred Meyer', 'FRED MEYER #8376'],
    ['Wallet', 'ONLINE TRANSFER TO WALLET'],
    ['Acme Corp Payroll', 'ACME CORP PAYROLL PPD ID 9700'],
  ])('%s in "%s"', (name, text) => expect(bankTextNames(name, text)).toBe(true));

  it.each([
    ['Costco', 'COST SHOP 12'],
    ["Lowe's", 'SHELL OIL L'],
    ['Rainy Day Savings', 'ONLINE TRANSFER TO RAINY'],
    ['Whole Foods Market', 'TRADER JOES #552'],
  ])('not %s in "%s"', (name, text) => expect(bankTextNames(name, text)).toBe(false));
});
