/**
 * The answer vocabulary's money writer (issue 43): a figure under its concept's name, in integer
 * milliunits, with the budget's formatted text beside it (`total`, `total_formatted`), compact
 * answers too. needs_attention and review_transactions write every figure with it.
 */
import { formatMilliunits } from '../../api/money.js';
import type { CurrencyFormat } from '../../api/schemas/common.js';
import type { Money } from '../core/format.js';

export const quotable =
  (format: CurrencyFormat | null): Money =>
  (name, milliunits) => ({ [name]: milliunits, [`${name}_formatted`]: formatMilliunits(milliunits, format) });
