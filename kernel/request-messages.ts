/**
 * The message lists of successive requests, and what each shares with the one before.
 *
 * A request carries the whole history, so its `messages` list is a fresh array of n references
 * (made once per request). The `request` hook's taps change only a few places in it (the
 * user-context reminder on the first message, cache markers on the last ones); copying the list
 * for each of them, and comparing every place with the previous request to find what changed,
 * made a turn's cost grow with the session. Here:
 *
 * - `RequestLists` makes each request's list from the history in API form (one object per message,
 *   made once and shared by every request) and records its lineage: the kernel it came from, the
 *   generation of that history (bumped whenever the history changed other than by growing at its
 *   end: compaction, an edit, clearing, resume), and the places replaced since;
 * - `withReplacedMessages` replaces places in a list: in place while the list is still being built
 *   (inside the `request` waterfall that made it, the list is the request's own), else in a copy;
 *   either way the replaced places are recorded;
 * - `changedPlaces(prev, cur)` answers, for two lists of the same lineage and generation, the only
 *   places below the shorter length where they may hold different messages; `undefined` when the
 *   lists are not related that way (then every place has to be compared).
 *
 * A tap that changes a list otherwise (a `slice()` and assignment, `map`) makes an unrelated list:
 * still correct, only slower for those who compare.
 */
import { Incremental } from './incremental.js';

type List = readonly unknown[];

interface Lineage {
  /** Identifies the history (one per RequestLists). */
  origin: object;
  /** The history's generation when the list was made. */
  generation: number;
  /** Places replaced since the list was made from the history (may repeat). */
  replaced: number[];
  /** True while the list belongs to the request being built: it may be changed in place. */
  owned: boolean;
}

const lineages = new WeakMap<List, Lineage>();

/**
 * Makes the message lists of one history's requests (see the module comment). `toForm` gives a
 * message's API form; it is called once per message object.
 */
export class RequestLists<M, F> {
  private readonly origin = {};
  private generation = 0;
  private readonly forms: Incremental<M, F[]>;

  constructor(toForm: (m: M) => F) {
    this.forms = new Incremental<M, F[]>({
      init: () => {
        this.generation++;
        return [];
      },
      add: (out, m) => { out.push(toForm(m)); },
      truncate: (out, length) => {
        this.generation++;
        out.length = length;
      },
    });
  }

  /** A fresh list of the history's API forms, owned by the request being built until `release`. */
  open(history: readonly M[]): F[] {
    const list = this.forms.update(history).slice();
    lineages.set(list, { origin: this.origin, generation: this.generation, replaced: [], owned: true });
    return list;
  }

  /** Ends a request's ownership of a list (and of the list its taps ended with): later changes copy. */
  static release(...lists: List[]): void {
    for (const l of lists) {
      const lin = lineages.get(l);
      if (lin) lin.owned = false;
    }
  }
}

/**
 * `list` with the message at each `[place, message]` of `replacements` replaced: the same array
 * when it is a request's own list still being built (see RequestLists), else a copy. The input
 * array is otherwise never changed. The places (0-based, below `list.length`) are recorded so
 * `changedPlaces` can name them.
 *
 * @throws RangeError for a place outside the list.
 */
export function withReplacedMessages<T>(list: readonly T[], replacements: readonly (readonly [number, T])[]): T[] {
  for (const [i] of replacements) {
    if (!Number.isInteger(i) || i < 0 || i >= list.length) throw new RangeError(`withReplacedMessages: place ${i} is outside a list of ${list.length} messages`);
  }
  const lin = lineages.get(list);
  let out: T[];
  if (lin?.owned) {
    out = list as T[];
  } else {
    out = list.slice();
    if (lin) lineages.set(out, { origin: lin.origin, generation: lin.generation, replaced: lin.replaced.slice(), owned: false });
  }
  const outLin = lineages.get(out);
  for (const [i, m] of replacements) {
    out[i] = m;
    outLin?.replaced.push(i);
  }
  return out;
}

/**
 * For two request lists made from the same history with no change but growth between them: the
 * places below the shorter length at which they may differ (each may repeat); at every other place
 * below it they hold the same message object. `undefined` when that is not known: unrelated lists,
 * or a history changed in between (compared by identity, `prev === cur` is not known either, since
 * the same array may have been changed in place).
 */
export function changedPlaces(prev: List, cur: List): readonly number[] | undefined {
  if (prev === cur) return undefined;
  const a = lineages.get(prev);
  const b = lineages.get(cur);
  if (!a || !b || a.origin !== b.origin || a.generation !== b.generation) return undefined;
  return a.replaced.length ? (b.replaced.length ? a.replaced.concat(b.replaced) : a.replaced) : b.replaced;
}

/**
 * Calls `visit(i)` for every place `i` of `cur` that may hold another message than the same place
 * of `prev`: with `changedPlaces` known, the places it names and those past `prev`; else every
 * place not holding the same object. Places at or past `kept` (how many places the caller's own
 * state covers) are always visited. Named places may be visited more than once. `prev === cur`
 * visits every place (the same array may have been changed in place).
 */
export function forEachChangedPlace(prev: List, cur: List, kept: number, visit: (i: number) => void): void {
  const places = changedPlaces(prev, cur);
  const shared = prev === cur ? 0 : Math.min(prev.length, kept, cur.length);
  if (places) {
    for (const i of places) if (i < shared) visit(i);
  } else {
    for (let i = 0; i < shared; i++) if (cur[i] !== prev[i]) visit(i);
  }
  for (let i = shared; i < cur.length; i++) visit(i);
}
