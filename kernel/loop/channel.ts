/**
 * A single-consumer async queue: the loop pushes events, `kernel.run()`'s caller iterates them.
 * Events pushed before anyone iterates are kept, so none is lost.
 */
export class Channel<T> {
  private readonly items: T[] = [];
  private waiting: ((r: IteratorResult<T>) => void) | undefined;
  private failWaiting: ((e: unknown) => void) | undefined;
  private closed = false;
  private error: { e: unknown } | undefined;

  push(item: T): void {
    if (this.closed) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = this.failWaiting = undefined;
      w({ value: item, done: false });
    } else this.items.push(item);
  }

  close(): void {
    this.closed = true;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = this.failWaiting = undefined;
      w({ value: undefined, done: true });
    }
  }

  fail(e: unknown): void {
    this.error = { e };
    this.closed = true;
    if (this.failWaiting) {
      const f = this.failWaiting;
      this.waiting = this.failWaiting = undefined;
      f(e);
    }
  }

  iterable(): AsyncIterable<T> {
    return {
      [Symbol.asyncIterator]: () => ({
        next: (): Promise<IteratorResult<T>> => {
          if (this.items.length) return Promise.resolve({ value: this.items.shift()!, done: false });
          if (this.error) return Promise.reject(this.error.e);
          if (this.closed) return Promise.resolve({ value: undefined, done: true });
          return new Promise((resolve, reject) => { this.waiting = resolve; this.failWaiting = reject; });
        },
      }),
    };
  }
}
