/**
 * The shell syntax tree as plain objects. `mvdan-sh` is mvdan/sh compiled to JavaScript with
 * GopherJS; its public node wrappers rebuild a JavaScript object on every field access (~100 µs
 * each), which made a permission check cost milliseconds. So the tree is converted once, reading
 * the Go values behind the wrappers (`__internal_object__`): a struct pointer's type name is
 * `constructor.string` (`*syntax.CallExpr`), a slice is `$array` from `$offset` for `$length`, a
 * position is `{ offs, lineCol }` (byte offset; lineCol 0 means "no position"). Each node gets the
 * byte span of its source (`start`, `end`).
 */
import { createRequire } from 'node:module';
import type shModule from 'mvdan-sh';

// mvdan-sh is a large module (~150 ms to load); it is loaded on the first parse, not at start-up,
// so a run pays for it only once a shell command needs a decision.
let syntaxRef: typeof shModule.syntax | undefined;
function shSyntax(): typeof shModule.syntax {
  return (syntaxRef ??= (createRequire(import.meta.url)('mvdan-sh') as typeof shModule).syntax);
}

/** A syntax node: `type` is the mvdan/sh type name (`CallExpr`, `Word`, `Lit`, ...); other fields as in Go. */
export interface Node {
  type: string;
  /** Byte offsets of the node's source text, end exclusive (NaN when unknown). */
  start: number;
  end: number;
  [field: string]: any;
}

/** Position fields that mark a closing delimiter (the node ends after it). */
const CLOSERS = new Set(['Right', 'Rparen', 'Rbrace', 'Rbrack', 'Rbrack2', 'Rparen2', 'Esac', 'Done', 'Fi', 'FiPos', 'DonePos', 'EsacPos', 'Rbrack']);

function convert(v: any, span: { s: number; e: number }): any {
  // Go strings inside the GopherJS build are byte strings (one character per UTF-8 byte): a
  // word with `é` or `\u200c` would otherwise reach the rules as mojibake that no rule or
  // protected name matches.
  if (typeof v === 'string') return /[\x80-\xff]/.test(v) ? Buffer.from(v, 'latin1').toString('utf8') : v;
  if (v === null || v === undefined || typeof v !== 'object') return v;
  if ('$array' in v && '$length' in v) {
    const out: unknown[] = [];
    for (let i = 0; i < v.$length; i++) out.push(convert(v.$array[v.$offset + i], span));
    return out;
  }
  const name: string | undefined = v.constructor?.string;
  if (name === undefined || v.constructor.nil === v) return undefined; // nil interface or nil pointer
  const own = { s: Infinity, e: -Infinity };
  const node: Node = { type: name.replace(/^\*?syntax\./, ''), start: NaN, end: NaN };
  // `))` and `]]` close these: their `Right` is the first of two characters.
  const doubleRight = node.type === 'ArithmCmd' || node.type === 'TestClause' || (node.type === 'ArithmExp' && !v.Bracket);
  for (const key of Object.keys(v)) {
    if (key === '$val') continue;
    const f = v[key];
    if (f && typeof f === 'object' && 'offs' in f && 'lineCol' in f) {
      if (f.lineCol === 0) continue;
      const o = f.offs as number;
      if (key === 'ValueEnd') own.e = Math.max(own.e, o);
      else if (CLOSERS.has(key)) own.e = Math.max(own.e, o + (doubleRight && key === 'Right' ? 2 : 1));
      else { own.s = Math.min(own.s, o); own.e = Math.max(own.e, o + 1); }
      node[key] = o;
      continue;
    }
    node[key] = convert(f, own);
  }
  if (own.s !== Infinity) { node.start = own.s; node.end = own.e; }
  span.s = Math.min(span.s, own.s);
  span.e = Math.max(span.e, own.e);
  return node;
}

/** Parses `src` as bash and returns the plain tree (a `File` node). Throws SyntaxError. */
export function parseBash(src: string, parser: { Parse(src: string, name: string): unknown }): Node {
  const file = parser.Parse(src, '') as { __internal_object__?: unknown };
  const raw = file.__internal_object__;
  if (!raw) throw new Error('mvdan-sh returned a tree without its Go value; its internals changed');
  return convert(raw, { s: Infinity, e: -Infinity }) as Node;
}

/** Creates an mvdan/sh parser (bash variant). */
export function newParser(): { Parse(src: string, name: string): unknown } {
  return shSyntax().NewParser();
}

/** Visits every node in the tree, depth first, parents before children. */
export function walk(node: unknown, visit: (n: Node) => void): void {
  if (Array.isArray(node)) { for (const c of node) walk(c, visit); return; }
  if (!node || typeof node !== 'object' || typeof (node as Node).type !== 'string') return;
  visit(node as Node);
  for (const [k, v] of Object.entries(node)) if (k !== 'type' && v && typeof v === 'object') walk(v, visit);
}
