/**
 * Reading one preset file into a plain value plus a position index (key path → line and column),
 * so every later check can point at the exact line. YAML is parsed with the `yaml` library's strict
 * options; what YAML would accept but most likely not mean is reported as an error:
 *
 * - a duplicate key (YAML 1.2 forbids it; many parsers keep the last one silently),
 * - a tab used for indentation, or a tab inside an unquoted value,
 * - an unquoted value that continues on the next line (YAML folds it into one line),
 * - an alias bomb (more than MAX_ALIAS_COUNT alias expansions),
 * - an unknown tag (`!!js/function`, `!foo`), a second document (`---`),
 * - an integer too large to represent exactly.
 *
 * JSON files go through the same parser (JSON is YAML 1.2) after a JSON.parse check; JS and TS
 * configs are imported with jiti and have no positions (their diagnostics point at line 1).
 *
 * The built-in presets' texts are parsed at build time (`npm run schema`, generated/builtin-presets.ts):
 * a file whose text is one of them, character for character, gets that parse without running the
 * parser.
 */
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename, extname } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  CST, isAlias, isMap, isPair, isScalar, isSeq, LineCounter, Parser, parseDocument, Scalar,
  type Document, type Node as YamlNode,
} from 'yaml';
import { DiagnosticSink, type KeyPath, type SourcePos } from './errors.js';
import { importExternal } from '../../lib/node/import-external.js';
import { PARSED_PRESETS } from './generated/builtin-presets.js';

/**
 * Most alias expansions a preset may use (`yaml` counts expanded nodes); a billion-laughs document
 * exceeds it quickly, ordinary reuse of a few anchors does not. yaml's own default is 100.
 */
export const MAX_ALIAS_COUNT = 100;

/** Where a value sits in its file. `key` is the position of the key, `value` of the value itself. */
export interface IndexEntry {
  key?: SourcePos;
  value: SourcePos;
  /** Source offset range of a scalar value, for pointing inside it. */
  range?: [number, number];
  /** Scalar style (PLAIN, QUOTE_DOUBLE, ...), for pointing inside it. */
  style?: string;
}

/** One parsed preset file. */
export interface PresetSource {
  /** Absolute path. */
  file: string;
  format: 'yaml' | 'json' | 'js';
  /** The value as written (before interpolation and path resolution); undefined when unreadable. */
  value: unknown;
  /** True when the file could not be parsed: later checks are skipped for it. */
  broken: boolean;
  /** Position of a key path, or of its nearest ancestor that has one. */
  locate(path: KeyPath, part?: 'key' | 'value'): SourcePos;
  /** Position of a character range inside the scalar at `path` (`${VAR}` references). */
  locateInside(path: KeyPath, needle: string): SourcePos;
}

const ROOT_POS: SourcePos = { line: 1, col: 1 };

function pathId(path: KeyPath): string {
  return JSON.stringify(path);
}

/** Builds locate functions over an index. */
function locator(index: Map<string, IndexEntry>, text: string | undefined, lineCounter: LineCounter | undefined) {
  const find = (path: KeyPath): IndexEntry | undefined => {
    for (let n = path.length; n >= 0; n--) {
      const e = index.get(pathId(path.slice(0, n)));
      if (e) return e;
    }
    return undefined;
  };
  return {
    locate(path: KeyPath, part: 'key' | 'value' = 'value'): SourcePos {
      const exact = index.get(pathId(path));
      if (exact) return (part === 'key' ? exact.key : undefined) ?? exact.value;
      const e = find(path);
      return e ? (e.key ?? e.value) : ROOT_POS;
    },
    locateInside(path: KeyPath, needle: string): SourcePos {
      const e = index.get(pathId(path));
      if (!e) return find(path)?.value ?? ROOT_POS;
      if (e.range && text !== undefined && lineCounter) {
        const at = text.slice(e.range[0], e.range[1]).indexOf(needle);
        if (at >= 0) {
          const p = lineCounter.linePos(e.range[0] + at);
          return { line: p.line, col: p.col };
        }
      }
      return e.value;
    },
  };
}

/** Friendlier text for the yaml library's error codes. */
function yamlMessage(code: string, message: string): string {
  const first = message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
  switch (code) {
    case 'TAB_AS_INDENT':
      return 'YAML: a tab is used for indentation; indent with spaces';
    case 'MULTIPLE_DOCS':
      return 'YAML: a second document starts here ("---"); a preset is a single document';
    case 'TAG_RESOLVE_FAILED':
      return `YAML: ${first.replace(/^Unresolved tag/, 'unknown tag')}; presets use plain YAML values`;
    default:
      return `YAML: ${first}`;
  }
}

/**
 * What parsing a YAML text that has no problem at all yields, in a form that can be kept as JSON:
 * the value and the position index (both as JSON text) and the offsets where its lines start.
 * scripts/gen-schema.ts keeps this for every built-in preset in generated/builtin-presets.ts.
 */
export interface ParsedYaml {
  /** The value, as JSON. */
  value: string;
  /** The position index (key path id → IndexEntry), as JSON of its entries. */
  index: string;
  /** Offsets where lines start (the yaml library's LineCounter.lineStarts). */
  lineStarts: readonly number[];
}

/**
 * The source of a YAML text that is one of the built-in presets, character for character, from
 * the parse kept at build time (generated/builtin-presets.ts): the same value, positions and
 * checks as parsing it (a built-in preset has no problem to report), without running the YAML
 * parser, which was ~25 M instructions of a cold `rein run` with the default preset (its code
 * runs for the first time in the process). Undefined for any other text.
 */
function builtinPresetSource(file: string, text: string): PresetSource | undefined {
  const kept = PARSED_PRESETS.find((p) => p.text === text);
  if (!kept) return undefined;
  const lineCounter = new LineCounter();
  for (const offset of kept.lineStarts) lineCounter.addNewLine(offset);
  const index = new Map(JSON.parse(kept.index) as [string, IndexEntry][]);
  return { file, format: 'yaml', value: JSON.parse(kept.value) as unknown, broken: false, ...locator(index, text, lineCounter) };
}

/**
 * Parses a YAML text as parseYamlText does and returns it in the form generated/builtin-presets.ts
 * keeps; throws when the text has any problem parseYamlText would report, or a value JSON cannot
 * hold exactly (the kept form would not be the same).
 */
export function parsedYamlForCache(file: string, text: string): ParsedYaml {
  const sink = new DiagnosticSink();
  let state: { index: Map<string, IndexEntry>; lineCounter: LineCounter } | undefined;
  const out = parseYamlText(file, text, sink, { onParsed: (index, lineCounter) => { state = { index, lineCounter }; } });
  if (out.broken || sink.size || !state) throw new Error(`${file}: not kept, it has problems: ${sink.list.map((d) => d.message).join('; ')}`);
  const value = JSON.stringify(out.value);
  if (!isDeepStrictEqual(JSON.parse(value), out.value)) throw new Error(`${file}: not kept, its value does not survive JSON`);
  return { value, index: JSON.stringify([...state.index]), lineStarts: [...state.lineCounter.lineStarts] };
}

/**
 * Parses YAML (or JSON) text; see the module comment for what counts as an error. A built-in
 * preset's text comes from the parse kept at build time (builtinPresetSource). `onParsed` (for
 * parsedYamlForCache) gets the index and line counter of a text that parsed, and makes it parsed.
 */
export function parseYamlText(file: string, text: string, sink: DiagnosticSink, opts: { json?: boolean; subPath?: readonly string[]; onParsed?: (index: Map<string, IndexEntry>, lineCounter: LineCounter) => void } = {}): PresetSource {
  if (!opts.json && !opts.subPath && !opts.onParsed) {
    const kept = builtinPresetSource(file, text);
    if (kept) return kept;
  }
  const lineCounter = new LineCounter();
  const index = new Map<string, IndexEntry>();
  const pos = (offset: number): SourcePos => {
    const p = lineCounter.linePos(offset);
    return { line: p.line, col: p.col };
  };
  const fail = (): PresetSource => ({ file, format: opts.json ? 'json' : 'yaml', value: undefined, broken: true, ...locator(index, text, lineCounter) });

  if (opts.json) {
    const problem = jsonProblem(text);
    if (problem) {
      // Line starts, the first at offset 0 (as the YAML parser records them), so offsets on line 1 have a line.
      lineCounter.addNewLine(0);
      for (let i = 0; i < text.length; i++) if (text[i] === '\n') lineCounter.addNewLine(i + 1);
      sink.add(file, pos(problem.offset), '', `JSON: ${problem.message}`);
      return fail();
    }
  }

  const doc = parseDocument(text, {
    lineCounter,
    prettyErrors: false,
    strict: true,
    uniqueKeys: true,
    merge: false,
    version: '1.2',
    schema: 'core',
  });

  let broken = false;
  for (const e of doc.errors) {
    broken = true;
    if (e.code === 'DUPLICATE_KEY') {
      sink.add(file, pos(e.pos[0]), '', duplicateKeyMessage(doc, text, e.pos[0], lineCounter));
    } else {
      // The parser notices an unclosed quote only where the file ends; the mistake is where it opens.
      const q = e.code === 'MISSING_CHAR' && /quote/i.test(e.message) ? unclosedQuote(text) : undefined;
      if (q) sink.add(file, pos(q.offset), '', `YAML: this ${q.kind}-quoted string is never closed, so everything up to line ${pos(e.pos[0]).line} became part of it; add the closing ${q.kind === 'double' ? '"' : "'"}`);
      else sink.add(file, pos(e.pos[0]), '', yamlMessage(e.code, e.message));
    }
  }
  for (const w of doc.warnings) {
    broken = true;
    sink.add(file, pos(w.pos[0]), '', yamlMessage(w.code, w.message));
  }
  if (broken) return fail();

  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (err) {
    const msg = (err as Error).message;
    if (/alias/i.test(msg)) {
      const first = findFirstAlias(doc.contents);
      sink.add(file, first ? pos(first) : ROOT_POS, '', `YAML: aliases expand to too many nodes (more than ${MAX_ALIAS_COUNT}); an alias bomb? Write the values out instead`);
    } else sink.add(file, ROOT_POS, '', `YAML: ${msg}`);
    return fail();
  }

  // Index every node, and run the strict checks the parser does not do.
  const visiting = new Set<YamlNode>();
  const walk = (node: YamlNode | null | undefined, path: (string | number)[], keyPos: SourcePos | undefined, fallback: SourcePos): void => {
    const start = node?.range ? pos(node.range[0]) : fallback;
    const entry: IndexEntry = { key: keyPos, value: start };
    index.set(pathId(path), entry);
    if (!node) return;
    if (isAlias(node)) {
      const target = node.resolve(doc);
      if (target && !visiting.has(target)) {
        visiting.add(target);
        walkChildren(target, path, start);
        visiting.delete(target);
      }
      return;
    }
    if (isScalar(node)) {
      entry.range = node.range ? [node.range[0], node.range[1]] : undefined;
      entry.style = node.type;
      checkScalar(node, text, start, path, file, sink);
      return;
    }
    walkChildren(node, path, start);
  };
  const walkChildren = (node: YamlNode, path: (string | number)[], start: SourcePos): void => {
    if (isMap(node)) {
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const k = pair.key as YamlNode | null;
        const kPos = k?.range ? pos(k.range[0]) : start;
        if (k && !isScalar(k)) {
          sink.add(file, kPos, path, 'YAML: a key must be a plain string, not a collection');
          continue;
        }
        const name = k ? String((k as Scalar).value) : '';
        walk(pair.value as YamlNode | null, [...path, name], kPos, kPos);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, i) => walk(item as YamlNode, [...path, i], undefined, start));
    }
  };
  walk(doc.contents as YamlNode | null, [], undefined, ROOT_POS);

  if (opts.subPath?.length) {
    // package.json#rein: re-root the value and the index at the property.
    const prefix = opts.subPath;
    value = (value as Record<string, unknown> | undefined)?.[prefix[0]!];
    const rebased = new Map<string, IndexEntry>();
    for (const [id, e] of index) {
      const p = JSON.parse(id) as (string | number)[];
      if (prefix.every((s, i) => p[i] === s)) rebased.set(pathId(p.slice(prefix.length)), e);
    }
    return { file, format: 'json', value, broken: false, ...locator(rebased, text, lineCounter) };
  }
  opts.onParsed?.(index, lineCounter);
  return { file, format: opts.json ? 'json' : 'yaml', value, broken: false, ...locator(index, text, lineCounter) };
}

/**
 * Where and why JSON.parse rejects a text. V8 gives a position for some errors only; for the rest
 * (an unexpected token), the shortest failing prefix that does not just end early is the token.
 */
export function jsonProblem(text: string): { offset: number; message: string } | undefined {
  const fails = (t: string): string | undefined => {
    try {
      JSON.parse(t);
      return undefined;
    } catch (err) {
      return (err as Error).message;
    }
  };
  const msg = fails(text);
  if (msg === undefined) return undefined;
  const short = msg
    .replace(/ (in JSON )?at position \d+.*$/s, '')
    .replace(/^(Unexpected token '.'),.*$/s, '$1')
    .replace(/^Unexpected/, 'unexpected')
    .replace(/^Expected/, 'expected');
  const at = /position (\d+)/.exec(msg);
  let offset: number;
  if (at) offset = Number(at[1]);
  else {
    // Binary search for the shortest prefix whose error is not "ended early".
    const early = (m: string | undefined, len: number) => {
      if (m === undefined || /end of JSON input/i.test(m)) return true;
      const p = /position (\d+)/.exec(m);
      return !!p && Number(p[1]) >= len;
    };
    let lo = 0;
    let hi = text.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (early(fails(text.slice(0, mid + 1)), mid + 1)) lo = mid + 1;
      else hi = mid;
    }
    offset = Math.min(lo, text.length - 1);
  }
  const before = text.slice(0, offset).trimEnd();
  const hint = before.endsWith(',') && /[\]}]/.test(text[offset] ?? '') ? ' (a trailing comma: JSON does not allow one)' : '';
  return { offset, message: `${short}${hint}` };
}

/** Strict checks on one scalar. */
function checkScalar(node: Scalar, text: string, start: SourcePos, path: KeyPath, file: string, sink: DiagnosticSink): void {
  if (!node.range) return;
  const src = text.slice(node.range[0], node.range[1]);
  if (node.type === Scalar.PLAIN) {
    if (src.includes('\n')) {
      const lines = src.split('\n').length;
      sink.add(file, start, path, `YAML: this unquoted value continues over ${lines} lines and YAML joins them into one line ("${String(node.value)}"); quote it, or use | (keep newlines) or > (fold) for multi-line text`);
    } else if (src.includes('\t')) {
      sink.add(file, start, path, 'YAML: a tab inside an unquoted value; quote the value if the tab is meant');
    }
  }
  if (typeof node.value === 'number' && Number.isInteger(node.value) && !Number.isSafeInteger(node.value)) {
    sink.add(file, start, path, `YAML: the integer ${src.trim()} is too large to represent exactly; quote it if it is an id`);
  }
}

function findFirstAlias(node: unknown): number | undefined {
  let found: number | undefined;
  const visit = (n: unknown): void => {
    if (found !== undefined || !n) return;
    if (isAlias(n)) {
      found = n.range?.[0];
      return;
    }
    if (isMap(n)) for (const p of n.items) visit((p as { value: unknown }).value);
    else if (isSeq(n)) for (const i of n.items) visit(i);
  };
  visit(node);
  return found;
}

/** "duplicate key "x" (first at line N)". */
/**
 * The first quoted scalar that never closes, from the parser's concrete syntax tree: its offset
 * (the opening quote) and kind. Undefined when every quoted scalar is closed.
 */
export function unclosedQuote(text: string): { offset: number; kind: 'double' | 'single' } | undefined {
  let found: { offset: number; kind: 'double' | 'single' } | undefined;
  const check = (t: CST.Token | undefined) => {
    if (found || !t) return;
    if (t.type === 'double-quoted-scalar' && !/^"(?:[^"\\]|\\.)*"$/s.test(t.source.trimEnd())) found = { offset: t.offset, kind: 'double' };
    else if (t.type === 'single-quoted-scalar' && !/^'(?:[^']|'')*'$/s.test(t.source.trimEnd())) found = { offset: t.offset, kind: 'single' };
  };
  for (const token of new Parser().parse(text)) {
    if (token.type === 'document') check(token.value);
    if (token.type === 'document') CST.visit(token, (item) => { check(item.key ?? undefined); check(item.value); });
    if (found) return found;
  }
  return found;
}

function duplicateKeyMessage(doc: Document, _text: string, offset: number, lc: LineCounter): string {
  let result = 'YAML: duplicate key; YAML would keep only the last one';
  const visit = (n: unknown): void => {
    if (isMap(n)) {
      const seen = new Map<unknown, number>();
      for (const p of n.items) {
        const k = p.key as Scalar | null;
        const kv = isScalar(k) ? k.value : undefined;
        const start = isScalar(k) ? k.range?.[0] : undefined;
        if (start === offset && seen.has(kv)) {
          result = `YAML: duplicate key "${String(kv)}" (first at line ${lc.linePos(seen.get(kv)!).line}); YAML would keep only the last one`;
        }
        if (!seen.has(kv) && start !== undefined) seen.set(kv, start);
        visit(p.value);
      }
    } else if (isSeq(n)) for (const i of n.items) visit(i);
  };
  visit(doc.contents);
  return result;
}

/** Imports a JS/TS config (default export) with jiti; no positions. */
async function loadModuleSource(file: string, sink: DiagnosticSink): Promise<PresetSource> {
  const flat = locator(new Map(), undefined, undefined);
  try {
    const { createJiti } = await importExternal<typeof import('jiti')>('jiti');
    const mod = await createJiti(import.meta.url, { moduleCache: false }).import<Record<string, unknown>>(file);
    const value = mod && typeof mod === 'object' && 'default' in mod ? mod.default : mod;
    return { file, format: 'js', value, broken: false, ...flat };
  } catch (err) {
    sink.add(file, ROOT_POS, '', `cannot load this config module: ${(err as Error).message.split('\n')[0]}`);
    return { file, format: 'js', value: undefined, broken: true, ...flat };
  }
}

const JS_EXTENSIONS = new Set(['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts']);

/**
 * Reads and parses one preset file by its extension: .yaml/.yml/no extension as YAML, .json as JSON
 * (package.json: its `rein` property), .js/.ts and friends as modules. Read errors become diagnostics
 * at `from` (the line that named the file) when given.
 */
export async function readPresetSource(file: string, sink: DiagnosticSink, opts: { text?: string } = {}): Promise<PresetSource> {
  const ext = extname(file).toLowerCase();
  if (opts.text === undefined) checkPresetFile(file);
  if (JS_EXTENSIONS.has(ext)) return loadModuleSource(file, sink);
  const text = opts.text ?? (await readFile(file, 'utf8'));
  if (basename(file) === 'package.json') return parseYamlText(file, text, sink, { json: true, subPath: ['rein'] });
  return parseYamlText(file, text, sink, { json: ext === '.json' });
}

/**
 * Largest preset file read, bytes: 1 MiB. rein's bound, far above any real preset (the built-in
 * ones are a few KB; a long system prompt is tens of KB); a 60 MB file took 33 s to parse.
 */
export const MAX_PRESET_BYTES = 1024 * 1024;

/**
 * Throws (an Error whose message says why, in words) when `file` is no regular file of at most
 * `maxBytes`: reading a FIFO would block until something writes to it, and a huge file only
 * wastes the time it takes to parse. The fs error (ENOENT, EACCES) when it cannot be looked at.
 */
export function checkPresetFile(file: string, maxBytes = MAX_PRESET_BYTES): void {
  const st = statSync(file);
  if (st.isFile()) {
    if (st.size > maxBytes) throw new Error(`it is ${st.size} bytes, and a preset file may be at most ${maxBytes} bytes (1 MiB)`);
    return;
  }
  const kind = st.isDirectory() ? 'a directory' : st.isFIFO() ? 'a FIFO (named pipe)' : st.isSocket() ? 'a socket' : 'a device';
  throw Object.assign(new Error(`it is ${kind}, not a regular file`), { code: st.isDirectory() ? 'EISDIR' : undefined });
}

/** A source for values that come from no file (flags, built-in defaults). */
export function objectSource(name: string, value: unknown): PresetSource {
  return { file: name, format: 'js', value, broken: false, locate: () => ({ line: 0, col: 0 }), locateInside: () => ({ line: 0, col: 0 }) };
}
