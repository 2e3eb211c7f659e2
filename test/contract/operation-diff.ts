/**
 * Operation-level comparison for the OpenAPI contract test: one entry of OPERATIONS against the
 * spec's operation at the same method + path (/plans era), or against the /budgets-era spec.
 */
import type * as z from 'zod';
import { memberName, type Operation } from '../../src/api/operations/index.js';
import { QUERY_PARAMS, type QueryName } from '../../src/api/query.js';
import { diffShapes, type HttpMethod, type NameIndex, ourShape, type Shape, type Spec, type SpecOperation } from './openapi-shapes.js';

export type Era = 'plans' | 'budgets';

/** The spec path of an operation: `/plans/{plan_id}` + path for `budget`, `/plans` for `list`, path for `root`. */
export function specPath(op: Operation, era: Era): string {
  if (op.scope === 'root') return op.path;
  const list = era === 'plans' ? '/plans' : '/budgets';
  if (op.scope === 'list') return `${list}${op.path}`;
  return `${list}/${era === 'plans' ? '{plan_id}' : '{budget_id}'}${op.path}`;
}

export const operationKey = (method: string, path: string): string => `${method.toUpperCase()} ${path}`;

const label = (op: Operation, era: Era): string => `${op.id} (${operationKey(op.method, specPath(op, era))})`;

export function findSpecOperation(spec: Spec, op: Operation, era: Era): SpecOperation | undefined {
  const method = op.method.toLowerCase() as HttpMethod;
  const path = specPath(op, era);
  return spec.operations().find((s) => s.method === method && s.path === path);
}

/** Lines for the values of one set missing from the other. */
export function setDiff(what: string, specValues: Iterable<string>, ourValues: Iterable<string>): string[] {
  const a = new Set(specValues);
  const b = new Set(ourValues);
  return [
    ...[...a]
      .filter((v) => !b.has(v))
      .sort()
      .map((v) => `${what}: "${v}" in spec, missing from ours`),
    ...[...b]
      .filter((v) => !a.has(v))
      .sort()
      .map((v) => `${what}: "${v}" in ours, not in spec`),
  ];
}

/** The shape of `data` inside the envelope of the success response for `status` (or the first 2xx). */
function successData(spec: Spec, found: SpecOperation, status: number): Shape | undefined {
  const envelope = found.success.get(status) ?? [...found.success.values()][0];
  if (envelope === undefined) return undefined;
  const shape = spec.shape(envelope);
  return shape.kind === 'object' ? shape.properties?.get('data') : undefined;
}

/** Every difference between one of our operations and the spec's (/plans era). */
export function operationDiff(spec: Spec, op: Operation, names: NameIndex): string[] {
  const at = label(op, 'plans');
  const found = findSpecOperation(spec, op, 'plans');
  if (!found) return [`${at}: no such operation in spec ${spec.version}`];
  const out: string[] = [];

  if (found.operationId !== op.id) out.push(`${at}: operationId is ${String(found.operationId)} in spec, ${op.id} in ours`);

  const specParams = found.pathParams.filter((p) => p !== 'plan_id');
  if (JSON.stringify(specParams) !== JSON.stringify(op.params)) {
    out.push(`${at}: path parameters are ${JSON.stringify(specParams)} in spec, ${JSON.stringify(op.params)} in ours`);
  }

  out.push(...setDiff(`${at} query parameter`, found.query.keys(), op.query));
  for (const name of op.query) {
    const specParam = found.query.get(name);
    if (!specParam) continue;
    const ours = ourShape(QUERY_PARAMS[name as QueryName].schema as z.ZodType, 'input', names);
    out.push(...diffShapes(specParam, ours, `${op.id}?${name}`, { mode: 'response' }));
  }

  const statuses = [...found.success.keys()];
  if (!statuses.includes(op.status)) out.push(`${at}: success status is ${statuses.join(' / ') || 'none'} in spec, ${op.status} in ours`);
  if (new Set([...found.success.values()].map((v) => JSON.stringify(v))).size > 1) {
    out.push(`${at}: the spec's success responses (${statuses.join(', ')}) have different schemas`);
  }

  const specData = successData(spec, found, op.status);
  if (!specData) out.push(`${at}: the spec's success response has no data object`);
  else out.push(...diffShapes(specData, ourShape(op.data, 'output', names), `${op.id}.data`, { mode: 'response' }));
  if (!op.data.shape[op.member]) out.push(`${at}: member ${op.member} is not a member of our data schema`);

  if (found.requestBody === undefined && op.body) out.push(`${at}: ours takes a request body, the spec declares none`);
  if (found.requestBody !== undefined && !op.body) out.push(`${at}: the spec declares a request body, ours takes none`);
  if (found.requestBody !== undefined && op.body) {
    const specBody = spec.shape(found.requestBody);
    out.push(...setDiff(`${at} bodyMembers`, specBody.properties?.keys() ?? [], op.bodyMembers ?? []));
    out.push(...diffShapes(specBody, ourShape(op.body as z.ZodType, 'input', names), `${op.id}.body`, { mode: 'body' }));
  }
  return out;
}

/**
 * Differences against the /budgets-era spec, for an operation it has: the operationId must be
 * `legacyId ?? id`, and the `data` member names must be ours after `legacyMembers` renames.
 * Where the era answered otherwise (`legacy`), the success status, the query parameters and the
 * entity each `data` member lists must be the era's (given `names`, the entity check runs).
 * An operation absent from that spec must not carry a legacyId or legacy answers.
 */
export function legacyDiff(legacy: Spec, op: Operation, names?: NameIndex): string[] {
  const at = label(op, 'budgets');
  const found = findSpecOperation(legacy, op, 'budgets');
  if (!found) {
    if (op.legacy) return [`${at}: declares legacy answers, but is not an operation of spec ${legacy.version}`];
    return op.legacyId ? [`${at}: has legacyId ${op.legacyId}, but is not an operation of spec ${legacy.version}`] : [];
  }
  const out: string[] = [];
  const expectedId = op.legacyId ?? op.id;
  if (found.operationId !== expectedId) {
    out.push(`${at}: operationId is ${String(found.operationId)} in spec ${legacy.version}, ${expectedId} in ours (legacyId ?? id)`);
  }
  const specData = successData(legacy, found, op.status);
  if (!specData?.properties) return [...out, `${at}: the spec's success response has no data object`];
  const ourMembers = Object.keys(op.data.shape).map((m) => memberName(op, m, 'budgets'));
  out.push(...setDiff(`${at} data member`, specData.properties.keys(), ourMembers));
  for (const key of Object.keys(op.legacyMembers ?? {})) {
    if (!op.data.shape[key]) out.push(`${at}: legacyMembers renames ${key}, which is not a member of our data schema`);
  }
  const status = op.legacy?.status ?? op.status;
  const statuses = [...found.success.keys()];
  if (!statuses.includes(status))
    out.push(`${at}: success status is ${statuses.join(' / ')} in spec ${legacy.version}, ${status} in ours (legacy.status ?? status)`);
  out.push(...setDiff(`${at} query parameter`, [...found.query.keys()], op.legacy?.query ?? op.query));
  if (names) {
    // The entity each list member holds (HybridTransaction, TransactionDetail...), by component name.
    const ours = ourShape(op.legacy?.data ?? op.data, 'output', names);
    for (const [member, specShape] of specData.properties) {
      const theirs = (specShape.items ?? specShape).names ?? [];
      const mine = (ours.properties?.get(memberOf(op, member)) ?? {}) as Shape;
      const mineNames = (mine.items ?? mine).names ?? [];
      for (const name of theirs) {
        const current = name.replace(/^Budget/, 'Plan');
        if (!mineNames.includes(current))
          out.push(`${at} data.${member}: is ${name} in spec ${legacy.version}, ${mineNames.join('/') || 'unnamed'} in ours (legacy.data ?? data)`);
      }
    }
  }
  return out;
}

/** Our (plans-era) name of a /budgets-era data member. */
function memberOf(op: Operation, wire: string): string {
  return Object.entries(op.legacyMembers ?? {}).find(([, old]) => old === wire)?.[0] ?? wire;
}
