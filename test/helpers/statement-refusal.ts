/** The message of the StatementError `read` throws (the statement readers' refusals); fails the test when it reads instead. */
import { expect } from 'vitest';
import { StatementError } from '../../src/statements/index.js';

export function refusalOf(read: () => unknown): string {
  try {
    read();
  } catch (e) {
    expect(e).toBeInstanceOf(StatementError);
    return (e as Error).message;
  }
  throw new Error('expected a StatementError');
}
