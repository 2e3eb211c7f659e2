/**
 * `serve --rehearse`: undo_change of an applied rehearsal. The apply is a change of the real
 * budget's undo journal (apply_rehearsal runs on `state.applyState`), not of the copy's; so an
 * undo_change whose change_id the copy's journal does not hold, and the real budget's does, runs on
 * the real budget's state. Change ids are unique across journals (time and random bytes), so the
 * journal that holds the id is the one that owns it. The copy's journal is asked first: an undo of
 * a rehearsal change never opens the real budget's state.
 */
import type { ServerState } from '../state/state.js';

export async function undoStateOf(state: ServerState, args: Record<string, unknown>): Promise<ServerState> {
  const real = state.applyState;
  const copy = state.config.rehearsal;
  const id = args.change_id;
  if (!real || !copy || typeof id !== 'string') return state;
  if (await (await state.ready()).changes.get(copy.budget.id, id)) return state;
  // A real state that cannot start (no token now) holds no change to undo: the copy's answer says so.
  const held = await real
    .ready()
    .then((stack) => stack.changes.get(copy.budget.id, id))
    .catch(() => undefined);
  return held ? real : state;
}
