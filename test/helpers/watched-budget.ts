/**
 * What the hosted alerts tests do to a watched budget from outside the server: call the sandbox's
 * API as the user (what they do in YNAB), overspend a category from the API's own figures, read an
 * instance's metrics, and wait for a condition.
 */

export type SandboxApi = (method: string, path: string, body?: unknown) => Promise<any>;

/** Calls the sandbox's API with the user's token; the answer's `data`. */
export function sandboxApi(baseUrl: string, token: () => string): SandboxApi {
  return async (method, path, body) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${token()}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { data: any }).data;
  };
}

/** Overspends a category not overspent yet (nor in `taken`), from the API's own figures; returns its id. */
export async function overspendOne(api: SandboxApi, budgetId: string, taken: Set<string>): Promise<string> {
  const month = (await api('GET', `/budgets/${budgetId}/months/current`)).month;
  const groups = (await api('GET', `/budgets/${budgetId}/categories`)).category_groups as any[];
  const internal = new Set(groups.filter((g) => /Internal Master|Credit Card Payments/.test(g.name)).flatMap((g) => g.categories.map((c: any) => c.id)));
  const category = (month.categories as any[]).find((c) => !c.deleted && !c.hidden && !internal.has(c.id) && c.balance >= 0 && !taken.has(c.id))!;
  const accounts = (await api('GET', `/budgets/${budgetId}/accounts`)).accounts as any[];
  const checking = accounts.find((a) => a.type === 'checking' && !a.closed && !a.deleted && a.on_budget);
  const date = new Date().toISOString().slice(0, 10);
  await api('POST', `/budgets/${budgetId}/transactions`, {
    transaction: { account_id: checking.id, category_id: category.id, amount: -(category.balance + 3_000), date, approved: true, cleared: 'cleared' },
  });
  taken.add(category.id);
  return category.id;
}

/** The sum of the metric lines that `matches` in an instance's /metrics, and the whole text. */
export async function metricSum(url: string, token: string, matches: (line: string) => boolean): Promise<{ value: number; text: string }> {
  const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
  const value = text
    .split('\n')
    .filter(matches)
    .reduce((n, l) => n + Number(l.split(' ').pop()), 0);
  return { value, text };
}

/** Waits until `check` holds, asking every `everyMs`; throws `what` after `ms`. */
export async function until(check: () => Promise<boolean>, ms: number, what = 'timed out waiting', everyMs = 250): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(what);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
