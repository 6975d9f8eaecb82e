/**
 * Running state over a list that grows at its end: a message history, or the messages of one
 * request after another. What plugins and the kernel compute over the whole history before each
 * request (token totals, tool names by id, marker counts, the API form of the messages) is kept
 * from one call to the next and brought up to date with the items added since; it is computed in
 * full again only when the list was replaced (compaction, a context strategy's rewrite, a resume).
 *
 * This relies on how the kernel treats its history: `kernel.messages` grows in place (the loop
 * pushes each new message), anything else replaces the array (`kernel.messages = next`), and no
 * message is changed in place once it is in the history. So:
 * - the same array as last time, at least as long and with the same object where the last call
 *   ended, has only new items at its end (checked in constant time);
 * - another array is compared with the previous one item by item, by identity (no hashing, no
 *   allocation), and the state is rolled back to the first item that differs, or built from the
 *   start when it cannot be rolled back.
 */

/** How to build a state from items, one item at a time. */
export interface IncrementalSpec<T, S> {
  /** A state for no items. */
  init(): S;
  /** Adds the item at `index` (every item before it has been added). */
  add(state: S, item: T, index: number): void;
  /**
   * Rolls the state back to its first `length` items, if this state can (a list of per-item
   * values can; a map built from every item usually cannot). Without it, any change before the
   * end rebuilds the state from the first item.
   */
  truncate?(state: S, length: number): void;
}

/** Length of the longest common prefix of `a` (its first `aLength` items) and `b`, by identity. */
export function sharedPrefixLength<T>(a: readonly T[], aLength: number, b: readonly T[]): number {
  const n = Math.min(aLength, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

/** A running state over a growing list (see the module comment). */
export class Incremental<T, S> {
  private items: readonly T[] | undefined;
  private length = 0;
  private last: T | undefined;
  private current: S;
  /** How many times the state was built from the first item (for tests and diagnostics). */
  rebuilds = 0;

  constructor(private readonly spec: IncrementalSpec<T, S>) {
    this.current = spec.init();
  }

  /** The state for `items`, brought up to date with what changed since the last call. */
  update(items: readonly T[]): S {
    let from = this.length;
    if (items !== this.items) {
      from = this.items ? sharedPrefixLength(this.items, this.length, items) : 0;
    } else if (items.length < this.length || (this.length > 0 && items[this.length - 1] !== this.last)) {
      // The same array, shortened or changed in place: nothing known about it can be trusted.
      from = 0;
    }
    if (from < this.length) {
      if (from > 0 && this.spec.truncate) {
        this.spec.truncate(this.current, from);
      } else {
        this.current = this.spec.init();
        this.rebuilds++;
        from = 0;
      }
    }
    for (let i = from; i < items.length; i++) this.spec.add(this.current, items[i]!, i);
    this.items = items;
    this.length = items.length;
    this.last = items.length ? items[items.length - 1] : undefined;
    return this.current;
  }

  /**
   * Records that the current state already describes `items`: for a caller that produced `items`
   * itself from the list it last updated with (replacing some items by equivalent ones), so the
   * next call on `items` does not compare or rebuild.
   */
  adopt(items: readonly T[]): void {
    this.items = items;
    this.length = items.length;
    this.last = items.length ? items[items.length - 1] : undefined;
  }

  /** Forgets everything: the next call builds the state from the first item. */
  reset(): void {
    this.items = undefined;
    this.length = 0;
    this.last = undefined;
    this.current = this.spec.init();
  }
}
