/**
 * A memo of what a replay computes again and again, bounded by size: two generations of entries,
 * the younger holding up to `limit` units (characters, say) of what `sizeOf` counts. When the
 * younger is full it becomes the older and the older is dropped; an entry read from the older moves
 * to the younger. So the entries in use stay, and the memo never holds much more than twice
 * `limit`, however long the workload.
 */
export class TwoGenerationMemo<K, V> {
  private young = new Map<K, V>();
  private old = new Map<K, V>();
  private youngSize = 0;

  /**
   * @param limit What the younger generation holds at most, in the units of `sizeOf`.
   * @param sizeOf The size of one entry (for a memo by string, the key's length in characters).
   */
  constructor(private readonly limit: number, private readonly sizeOf: (key: K, value: V) => number) {}

  /** The value kept for `key`, if either generation holds it (it is then in the younger). */
  get(key: K): V | undefined {
    const young = this.young.get(key);
    if (young !== undefined) return young;
    const old = this.old.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  /** Keeps `value` for `key` in the younger generation, starting a new one when it is full. */
  set(key: K, value: V): void {
    const size = this.sizeOf(key, value);
    if (this.youngSize + size > this.limit) {
      this.old = this.young;
      this.young = new Map();
      this.youngSize = 0;
    }
    this.young.set(key, value);
    this.youngSize += size;
  }
}
