/**
 * The hosted change-event bus: a stream belongs to the user whose request opened it, and a
 * user's event reaches that user's streams only. Subscriptions are made as the SDK makes them:
 * inside the request's (async) handling.
 */
import { describe, expect, it } from 'vitest';
import { UserScopedBus } from '../../src/transport/scoped-bus.js';

describe('UserScopedBus', () => {
  it("delivers a user's event to the streams that user opened, and to no one else's", async () => {
    const bus = new UserScopedBus();
    const heard: string[] = [];
    // Opened after an await inside the request, as the SDK's listen router does.
    const open = (user: string, stream: string) =>
      bus.run(user, async () => {
        await Promise.resolve();
        bus.subscribe(() => heard.push(stream));
      });
    await Promise.all([open('alice', 'alice-1'), open('alice', 'alice-2'), open('bob', 'bob-1')]);
    bus.publishTo('alice', { kind: 'tools_list_changed' });
    expect(heard.sort()).toEqual(['alice-1', 'alice-2']);
    heard.length = 0;
    bus.publishTo('bob', { kind: 'tools_list_changed' });
    expect(heard).toEqual(['bob-1']);
    heard.length = 0;
    bus.publishTo('carol', { kind: 'tools_list_changed' });
    expect(heard).toEqual([]);
    // publish (the SDK's own notify) still reaches everyone.
    bus.publish({ kind: 'tools_list_changed' });
    expect(heard.sort()).toEqual(['alice-1', 'alice-2', 'bob-1']);
  });

  it('a closed stream hears nothing, and a throwing listener does not stop the others', async () => {
    const errors: Error[] = [];
    const bus = new UserScopedBus((e) => errors.push(e));
    const heard: string[] = [];
    const stop = bus.run('alice', () => bus.subscribe(() => heard.push('gone')));
    bus.run('alice', () =>
      bus.subscribe(() => {
        throw new Error('broken stream');
      }),
    );
    bus.run('alice', () => bus.subscribe(() => heard.push('kept')));
    stop();
    bus.publishTo('alice', { kind: 'tools_list_changed' });
    expect(heard).toEqual(['kept']);
    expect(errors.map((e) => e.message)).toEqual(['broken stream']);
  });
});
