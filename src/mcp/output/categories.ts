/**
 * Compact category lists (get_month, list_categories) show the categories someone budgets with:
 * hidden categories, internal ones (Ready to Assign's inflow category, whose activity is the
 * month's income), and categories whose every figure is zero are left out, and counted, unless
 * asked for. A budget with forty categories then reads in a few kilobytes.
 */
import type { OutputFacts } from '../../api/operations/index.js';

type Category = {
  hidden?: boolean;
  internal?: boolean;
  name?: string;
  budgeted?: number;
  activity?: number;
  balance?: number;
  goal_under_funded?: number | null;
  deleted?: boolean;
};

type Group = { hidden?: boolean; deleted?: boolean; categories: Category[] };

/** The `data` of a category list: a month's categories, or the groups with theirs. */
interface CategoryData {
  month?: { categories?: Category[] };
  category_groups?: Group[];
  [member: string]: unknown;
}

/** Whether a compact list shows the category. Uncategorized stays while it holds money. */
function shown(c: Category): boolean {
  if (c.deleted || c.hidden) return false;
  const zero = !c.budgeted && !c.activity && !c.balance && !c.goal_under_funded;
  if (zero) return false;
  return !c.internal || c.name === 'Uncategorized';
}

/** The data with categories left out of a category list (the operation's `output.categories`), and how many were. */
export function leaveOutCategories(list: OutputFacts['categories'], data: CategoryData): { data: CategoryData; leftOut: number } {
  if (list === 'month' && data.month) {
    const all = data.month.categories ?? [];
    const kept = all.filter(shown);
    return { data: { ...data, month: { ...data.month, categories: kept } }, leftOut: all.filter((c) => !c.deleted).length - kept.length };
  }
  if (list === 'groups' && Array.isArray(data.category_groups)) {
    let leftOut = 0;
    const groups = [];
    for (const g of data.category_groups) {
      if (g.deleted) continue;
      const live = g.categories.filter((c) => !c.deleted);
      const kept = g.hidden ? [] : live.filter(shown);
      leftOut += live.length - kept.length;
      if (kept.length) groups.push({ ...g, categories: kept });
    }
    return { data: { ...data, category_groups: groups }, leftOut };
  }
  return { data, leftOut: 0 };
}
