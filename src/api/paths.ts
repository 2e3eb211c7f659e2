/**
 * Builds and matches v1 URLs from the operations table, in either era (/plans or /budgets).
 */
import { checkPathParam } from './argument-check.js';
import { OPERATIONS, type Era, type Operation } from './operations/index.js';

export interface PathMatch {
  op: Operation;
  era: Era;
  /** Path parameters, decoded; `budget_id` is present for budget-scoped operations. */
  params: Record<string, string>;
}

/** A parameter as one path segment: refused when it cannot be one (see argument-check.ts). */
function segment(name: string, value: string): string {
  checkPathParam(name, value);
  return encodeURIComponent(value);
}

/** The path below /v1 for an operation, with parameters URI-encoded. */
export function buildPath(op: Operation, era: Era, params: Record<string, string>): string {
  const fill = (template: string) =>
    template.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = params[name];
      if (value === undefined) throw new Error(`missing path parameter ${name} for ${op.id}`);
      return segment(name, value);
    });
  switch (op.scope) {
    case 'root':
      return fill(op.path);
    case 'list':
      return `/${era}`;
    case 'budget': {
      const budget = params.budget_id;
      if (budget === undefined) throw new Error(`missing path parameter budget_id for ${op.id}`);
      return `/${era}/${segment('budget_id', budget)}${fill(op.path)}`;
    }
  }
}

interface CompiledRoute {
  op: Operation;
  segments: string[];
}

function compile(op: Operation): CompiledRoute {
  const rest = op.path.split('/').filter(Boolean);
  const segments = op.scope === 'root' ? rest : op.scope === 'list' ? ['{era}'] : ['{era}', '{budget_id}', ...rest];
  return { op, segments };
}

const ROUTES: CompiledRoute[] = OPERATIONS.map((op) => compile(op as Operation));

function matchSegments(route: CompiledRoute, parts: string[]): { era?: Era; params: Record<string, string> } | undefined {
  if (route.segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  let era: Era | undefined;
  for (let i = 0; i < parts.length; i++) {
    const seg = route.segments[i]!;
    const part = parts[i]!;
    if (seg === '{era}') {
      if (part !== 'plans' && part !== 'budgets') return undefined;
      era = part;
    } else if (seg.startsWith('{')) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(part);
      } catch {
        return undefined;
      }
      params[seg.slice(1, -1)] = decoded;
    } else if (seg !== part) {
      return undefined;
    }
  }
  return { era, params };
}

/** Literal segments beat parameters (`/transactions/import` before `/transactions/{id}`). */
function specificity(route: CompiledRoute): number {
  return route.segments.filter((s) => !s.startsWith('{')).length;
}

const ROUTES_BY_SPECIFICITY = [...ROUTES].sort((a, b) => specificity(b) - specificity(a));

export type MatchResult = { kind: 'match'; match: PathMatch } | { kind: 'method_not_allowed'; allowed: string[] } | { kind: 'none' };

/** Matches a path below /v1 (e.g. `/budgets/last-used/accounts`) and a method to an operation. */
export function matchPath(method: string, pathBelowV1: string): MatchResult {
  const parts = pathBelowV1.split('/').filter(Boolean);
  const allowed: string[] = [];
  for (const route of ROUTES_BY_SPECIFICITY) {
    const m = matchSegments(route, parts);
    if (!m) continue;
    if (route.op.method === method) return { kind: 'match', match: { op: route.op, era: m.era ?? 'plans', params: m.params } };
    allowed.push(route.op.method);
  }
  return allowed.length ? { kind: 'method_not_allowed', allowed: [...new Set(allowed)] } : { kind: 'none' };
}
