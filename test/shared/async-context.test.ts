import { describe, expect, it } from 'vitest';
import { contextSlot } from '../../src/shared/async-context.js';

describe('context slots on one storage', () => {
  it('each slot keeps its own value through awaits, timers and nested runs of other slots', async () => {
    const user = contextSlot<string>('user');
    const count = contextSlot<number>('count');
    expect(user.getStore()).toBeUndefined();
    const seen = await user.run('ann', async () => {
      await new Promise((r) => setTimeout(r, 1));
      const inner = await count.run(3, async () => {
        await Promise.resolve();
        return [user.getStore(), count.getStore()];
      });
      const later = await new Promise<[string | undefined, number | undefined]>((r) => setImmediate(() => r([user.getStore(), count.getStore()])));
      return { inner, later };
    });
    expect(seen.inner).toEqual(['ann', 3]);
    // The inner run set only its own slot, and only for what it started.
    expect(seen.later).toEqual(['ann', undefined]);
    expect(user.getStore()).toBeUndefined();
  });

  it('a slot run again inside itself shadows it there, and two slots of one name are two slots', () => {
    const a = contextSlot<string>('same');
    const b = contextSlot<string>('same');
    const got = a.run('outer', () => [a.run('inner', () => a.getStore()), a.getStore(), b.getStore()]);
    expect(got).toEqual(['inner', 'outer', undefined]);
  });

  it('concurrent runs do not see each other', async () => {
    const slot = contextSlot<number>('n');
    const results = await Promise.all(
      [1, 2, 3].map((n) =>
        slot.run(n, async () => {
          await new Promise((r) => setTimeout(r, 4 - n));
          return slot.getStore();
        }),
      ),
    );
    expect(results).toEqual([1, 2, 3]);
  });
});
