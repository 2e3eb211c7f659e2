/**
 * Command-line parsing shared by the commands: node's parseArgs plus checked numbers, with
 * errors that say which flag was wrong and what it expects.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

export class UsageError extends Error {}

export function parseFlags<T extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: T) {
  try {
    return parseArgs({ args: argv, options, strict: true, allowPositionals: false }).values;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

export function intFlag(value: string | undefined, flag: string, min: number, max: number): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${flag} must be a whole number between ${min} and ${max}, got ${JSON.stringify(value)}`);
  const n = Number(value);
  if (n < min || n > max) throw new UsageError(`--${flag} must be between ${min} and ${max}, got ${n}`);
  return n;
}
