/**
 * `Headers` and `FormData` for rein's HTTP transport and, in the built command, for the copy of
 * `@anthropic-ai/sdk` inside the bundle (scripts/bundle.mjs binds the SDK's references to the
 * global classes to these).
 *
 * Why: on Node 20 the first touch of the global `Headers`, `FormData` or `fetch` loads Node's
 * bundled undici, ~16 ms of a cold `rein run` on a 2-core machine (bench/kernel/startup.bench.ts),
 * and the SDK builds a `Headers` for every request. `HttpHeaders` is the part of the Fetch
 * standard's Headers class (https://fetch.spec.whatwg.org/#headers-class) a Messages API request
 * uses; `LazyFormData` defers to the real class, so it costs nothing until a form is built.
 * (headers-polyfill, the maintained polyfill, reads `globalThis.Headers` in its constructor, which is
 * the load this avoids.)
 */

/** What a Headers-like value can be built from: another Headers (either class), pairs, or a record. */
export type HeadersInitLike =
  | { forEach(fn: (value: string, name: string) => void): void }
  | Iterable<readonly [string, string]>
  | Record<string, string | readonly string[] | undefined>;

/**
 * A Fetch-standard `Headers`: names are case-insensitive and kept lower-case; `append` joins
 * repeated values with ", "; iteration is in name order. `instanceof HttpHeaders` is also true for
 * Node's own `Headers` (checked by its tag, without loading it), so code that tests for either
 * class accepts both. Invalid names and values are rejected by node:http when the request is sent.
 */
export class HttpHeaders {
  readonly #map = new Map<string, string>();

  constructor(init?: HeadersInitLike | null) {
    if (init == null) return;
    if (typeof (init as { forEach?: unknown }).forEach === 'function' && !Array.isArray(init)) {
      (init as { forEach(fn: (value: string, name: string) => void): void }).forEach((value, name) => this.append(name, value));
    } else if (typeof (init as Iterable<unknown>)[Symbol.iterator] === 'function') {
      for (const pair of init as Iterable<readonly [string, string]>) {
        if (pair.length !== 2) throw new TypeError('Headers: each header pair must have a name and a value');
        this.append(pair[0], pair[1]);
      }
    } else {
      for (const [name, value] of Object.entries(init as Record<string, string | readonly string[] | undefined>)) {
        if (value === undefined) continue;
        for (const v of Array.isArray(value) ? value : [value]) this.append(name, String(v));
      }
    }
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    if (typeof value !== 'object' || value === null) return false;
    return #map in value || ((value as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === 'Headers' && typeof (value as { entries?: unknown }).entries === 'function');
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const v = normaliseValue(value);
    const old = this.#map.get(key);
    this.#map.set(key, old === undefined ? v : `${old}, ${v}`);
  }

  set(name: string, value: string): void {
    this.#map.set(name.toLowerCase(), normaliseValue(value));
  }

  get(name: string): string | null {
    return this.#map.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.#map.has(name.toLowerCase());
  }

  delete(name: string): void {
    this.#map.delete(name.toLowerCase());
  }

  /** Name-value pairs in name order, names lower-case (a name deleted while iterating is skipped). */
  *entries(): IterableIterator<[string, string]> {
    for (const name of [...this.#map.keys()].sort()) {
      const value = this.#map.get(name);
      if (value !== undefined) yield [name, value];
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  forEach(fn: (value: string, name: string, headers: HttpHeaders) => void): void {
    for (const [name, value] of this.entries()) fn(value, name, this);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

/** The standard strips leading and trailing HTTP whitespace from values. */
function normaliseValue(value: string): string {
  return String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
}

/**
 * Stands in for the global `FormData`: `new LazyFormData()` builds a real one (loading undici only
 * then), and `instanceof LazyFormData` is true for real ones, checked by tag first so a plain value
 * never loads it.
 */
export class LazyFormData {
  constructor() {
    return new globalThis.FormData();
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return typeof value === 'object' && value !== null
      && (value as { [Symbol.toStringTag]?: unknown })[Symbol.toStringTag] === 'FormData'
      && value instanceof globalThis.FormData;
  }
}
