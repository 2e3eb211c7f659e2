/**
 * What the undo journal (undo-journal.ts) and the confirm tokens (confirm-tokens.ts) share: records in the
 * state store under the current identity, sealed with the replicas' key (they hold budget data),
 * each kind with its own magic, on an injectable clock.
 */
import type { StateStore } from '../../storage/store.js';
import { Sealer, type KeySource } from '../../sync/seal.js';

export abstract class SealedRecords {
  protected readonly sealer: Sealer;

  constructor(
    protected readonly store: StateStore,
    keys: KeySource,
    protected readonly identity: () => Promise<string>,
    protected readonly now: () => number,
    magic: Buffer,
  ) {
    this.sealer = new Sealer(keys, magic);
  }
}
