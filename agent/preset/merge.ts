/**
 * Merging presets: layers (defaults < user < project < local < --preset < Claude Code settings
 * < flags) and `extends`
 * chains (bases first, then the file itself) all merge with the same rules.
 *
 * - Objects merge deeply, key by key; the higher layer's value wins for a key both set.
 * - Permission rule lists (`permissions.allow`, `ask`, `deny`, `additionalDirectories`,
 *   `protectedPaths`) and the
 *   auto-mode lists (`autoMode.*`) are unioned across layers, first occurrence first. A higher layer
 *   cannot remove a rule a lower layer added.
 * - A rule in `deny` anywhere wins: after merging it is removed from `allow` and `ask` (and the
 *   permission check evaluates deny before ask before allow, so a deny pattern also beats a broader
 *   allow).
 * - `plugins: { x: false }` switches plugin x off and drops its inherited options (the merged
 *   preset keeps `x: false`, which also switches off a plugin the preset's keys imply); `x: true` or
 *   `x:` (empty) turns it on with the options it has so far (none: `{}`).
 * - Every other array, and every scalar, is replaced.
 *
 * Each merge records where every value came from (`origins`), for `rein preset print --origins` and
 * for error messages about values that only make sense after merging.
 */
import { keyPath, type KeyPath, type SourcePos } from './errors.js';

/** The layers, lowest first. */
export const LAYERS = ['default', 'user', 'project', 'local', 'preset', 'settings:user', 'settings:project', 'settings:local', 'settings:flag', 'flags'] as const;
/** One of LAYERS. */
export type LayerName = (typeof LAYERS)[number];

/** Where a value came from. `line`/`col` point at the value, `keyLine`/`keyCol` at its key. */
export interface Origin {
  layer: LayerName;
  file?: string;
  line?: number;
  col?: number;
  keyLine?: number;
  keyCol?: number;
}

/** Union-merged list paths (dotted). */
export const UNION_LISTS: ReadonlySet<string> = new Set([
  'permissions.allow', 'permissions.ask', 'permissions.deny', 'permissions.additionalDirectories', 'permissions.protectedPaths',
  'autoMode.allow', 'autoMode.soft_deny', 'autoMode.hard_deny', 'autoMode.environment',
]);

/** One value being merged, with a way to find the source position of any path inside it. */
export interface MergeLayer {
  layer: LayerName;
  /** Absolute path of the file, when the value came from one. */
  file?: string;
  value: Record<string, unknown>;
  /** Position of a path inside `value` (value and key), or undefined for values from no file. */
  locate?(path: KeyPath): { value: SourcePos; key?: SourcePos } | undefined;
}

/** A merged preset value and the origin of every path in it. */
export interface MergeState {
  value: Record<string, unknown>;
  origins: Map<string, Origin>;
}

/** True for a plain mapping (not null, not an array). */
export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function originOf(layer: MergeLayer, path: KeyPath): Origin {
  const at = layer.locate?.(path);
  const o: Origin = { layer: layer.layer };
  if (layer.file) o.file = layer.file;
  if (at && at.value.line > 0) {
    o.line = at.value.line;
    o.col = at.value.col;
    if (at.key) {
      o.keyLine = at.key.line;
      o.keyCol = at.key.col;
    }
  }
  return o;
}

export function clearOrigins(origins: Map<string, Origin>, path: KeyPath): void {
  const base = keyPath(path);
  for (const k of [...origins.keys()]) {
    if (k === base || k.startsWith(`${base}.`) || k.startsWith(`${base}[`)) origins.delete(k);
  }
}

function recordDeep(origins: Map<string, Origin>, layer: MergeLayer, path: (string | number)[], value: unknown): void {
  origins.set(keyPath(path), originOf(layer, path));
  if (Array.isArray(value)) value.forEach((v, i) => recordDeep(origins, layer, [...path, i], v));
  else if (isPlainObject(value)) for (const [k, v] of Object.entries(value)) recordDeep(origins, layer, [...path, k], v);
}

function clone<T>(v: T): T {
  return structuredClone(v);
}

function mergeValue(state: MergeState, base: unknown, over: unknown, path: (string | number)[], layer: MergeLayer): unknown {
  const dotted = keyPath(path);
  if (UNION_LISTS.has(dotted) && Array.isArray(over)) {
    if (!Array.isArray(base)) clearOrigins(state.origins, path);
    const out = Array.isArray(base) ? [...base] : [];
    over.forEach((item, i) => {
      if (out.some((x) => x === item)) return;
      out.push(clone(item));
      state.origins.set(keyPath([...path, out.length - 1]), originOf(layer, [...path, i]));
    });
    state.origins.set(dotted, originOf(layer, path));
    return out;
  }
  if (dotted === 'plugins' && isPlainObject(over)) {
    const out: Record<string, unknown> = isPlainObject(base) ? { ...base } : {};
    for (const [name, opts] of Object.entries(over)) {
      const p = [...path, name];
      if (opts === false) {
        // Kept as `false` (not deleted) so a plugin the preset's keys imply (retry, a tool's plugin)
        // is switched off too; a higher layer may switch it on again.
        out[name] = false;
        clearOrigins(state.origins, p);
        state.origins.set(keyPath(p), originOf(layer, p));
      } else if (opts === true || opts === null || opts === undefined) {
        if (!isPlainObject(out[name])) out[name] = {};
        state.origins.set(keyPath(p), originOf(layer, p));
      } else {
        out[name] = mergeValue(state, out[name], opts, p, layer);
      }
    }
    state.origins.set(dotted, originOf(layer, path));
    return out;
  }
  if (isPlainObject(over) && isPlainObject(base)) {
    const out: Record<string, unknown> = { ...base };
    for (const [k, v] of Object.entries(over)) {
      if (v === undefined) continue;
      out[k] = mergeValue(state, base[k], v, [...path, k], layer);
    }
    if (path.length) state.origins.set(dotted, originOf(layer, path));
    return out;
  }
  clearOrigins(state.origins, path);
  if (isPlainObject(over) && !isPlainObject(base)) {
    // A fresh object: merge into {} so nested special keys (plugins, union lists) get their rules.
    return mergeValue(state, {}, over, path, layer);
  }
  recordDeep(state.origins, layer, path, over);
  return clone(over);
}

/** An empty merge state. */
export function emptyMerge(): MergeState {
  return { value: {}, origins: new Map() };
}

/** Merges one layer over the state (in place). */
export function mergeLayer(state: MergeState, layer: MergeLayer): MergeState {
  state.value = mergeValue(state, state.value, layer.value, [], layer) as Record<string, unknown>;
  return state;
}

/** Merges layers in order (lowest first). */
export function mergeLayers(layers: readonly MergeLayer[]): MergeState {
  const state = emptyMerge();
  for (const l of layers) mergeLayer(state, l);
  return state;
}

/**
 * Applies "a deny anywhere wins": rules listed in `permissions.deny` are removed from `allow` and
 * `ask`. Returns the rules removed, as `{ list, rule }`.
 */
export function applyDenyWins(state: MergeState): { list: 'allow' | 'ask'; rule: string }[] {
  const perms = state.value.permissions;
  if (!isPlainObject(perms) || !Array.isArray(perms.deny)) return [];
  const deny = new Set(perms.deny as unknown[]);
  const removed: { list: 'allow' | 'ask'; rule: string }[] = [];
  for (const list of ['allow', 'ask'] as const) {
    const rules = perms[list];
    if (!Array.isArray(rules)) continue;
    const kept: unknown[] = [];
    const keptOrigins: (Origin | undefined)[] = [];
    rules.forEach((r, i) => {
      if (deny.has(r)) removed.push({ list, rule: String(r) });
      else {
        kept.push(r);
        keptOrigins.push(state.origins.get(keyPath(['permissions', list, i])));
      }
    });
    if (kept.length === rules.length) continue;
    const listOrigin = state.origins.get(keyPath(['permissions', list]));
    clearOrigins(state.origins, ['permissions', list]);
    if (listOrigin) state.origins.set(keyPath(['permissions', list]), listOrigin);
    keptOrigins.forEach((o, i) => o && state.origins.set(keyPath(['permissions', list, i]), o));
    perms[list] = kept;
  }
  return removed;
}

/** The origin of a path, or of its nearest ancestor that has one. */
export function findOrigin(origins: ReadonlyMap<string, Origin>, path: KeyPath): Origin | undefined {
  for (let n = path.length; n >= 0; n--) {
    const o = origins.get(keyPath(path.slice(0, n)));
    if (o) return o;
  }
  return undefined;
}
