/**
 * Running state over a list that grows at its end (a history): what is computed over it before each
 * request is brought up to date with the items added since, and rebuilt only when the list was
 * replaced. It relies on the history's rules (kernel.messages): the same array only grows, any
 * other change is a new array, and no message changes in place. Another array is compared with the
 * last by identity, and the state is rolled back to the first difference (or rebuilt).
 */

/** How to build a state from items, one item at a time. */
export interface IncrementalSpec<T, S> {
  /** A state for no items. */
  init(): S;
  /** Adds the item at `index` (every item before it has been added). */
  add(state: S, item: T, index: number): void;
  /** Rolls the state back to its first `length` items, if it can; without it a change rebuilds. */
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
  /** Times the state was rebuilt from the first item. */
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

  /** Records that the state already describes `items` (made by the caller from the last list). */
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
