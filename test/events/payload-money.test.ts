/**
 * The payload fields the alerts tool gives with their text (src/shared/event-money.ts) are exactly
 * the payload schemas' money fields (described "in milliunits"), so a new money field cannot reach
 * a model as a bare number.
 */
import { describe, expect, it } from 'vitest';
import { EVENT_NAMES, payloadOf } from '../../src/events/catalog.js';
import { EVENT_MONEY_FIELDS } from '../../src/shared/event-money.js';

describe('money in event payloads', () => {
  it('every money field of every payload is listed for its text, and nothing else is', () => {
    const money = new Set<string>();
    for (const name of EVENT_NAMES)
      for (const [key, field] of Object.entries(payloadOf(name).shape))
        if ((field as { description?: string }).description?.endsWith('in milliunits')) money.add(key);
    expect([...money].sort()).toEqual([...EVENT_MONEY_FIELDS].sort());
  });
});
