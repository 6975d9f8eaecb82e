/**
 * Diagnostics: every problem with a preset becomes one `file:line:column: message` line. The loader
 * collects all of them before throwing, so one run of `rein preset validate` shows every error.
 */
import { relative, isAbsolute } from 'node:path';

/** One problem in a preset. `line` and `column` are 1-based; 0 when the problem has no position (flags). */
export interface PresetDiagnostic {
  /** Absolute path of the file, or `<flags>` / `<defaults>` for values that came from no file. */
  file: string;
  line: number;
  column: number;
  /** Dotted key path of the offending value (`model.maxTokens`, `plugins["./x.ts"].strict`); '' for the whole file. */
  key: string;
  message: string;
}

/** A position in a source file, 1-based. */
export interface SourcePos {
  line: number;
  col: number;
}

/** Path segments inside a preset value: object keys and array indices. */
export type KeyPath = readonly (string | number)[];

const PLAIN_SEGMENT = /^[A-Za-z_$][\w$/-]*$/;

/**
 * Formats a key path for messages and the origins map: identifiers (and plugin names like
 * `compaction/auto`) are joined with dots, indices as `.0`, anything else as `["./x.ts"]`.
 */
export function keyPath(path: KeyPath): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `${out ? '.' : ''}${seg}`;
    else if (PLAIN_SEGMENT.test(seg)) out += `${out ? '.' : ''}${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out;
}

/** A file path as shown to people: relative to the working directory when inside it. */
export function displayPath(file: string, cwd = process.cwd()): string {
  if (!isAbsolute(file)) return file;
  const rel = relative(cwd, file);
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file;
}

/** `file:line:column: message`, the format editors and CI annotate; `file: message` without a position. */
export function formatDiagnostic(d: PresetDiagnostic, cwd?: string): string {
  return d.line > 0 ? `${displayPath(d.file, cwd)}:${d.line}:${d.column}: ${d.message}` : `${displayPath(d.file, cwd)}: ${d.message}`;
}

/** Orders diagnostics by file, then position, dropping exact duplicates. */
export function sortDiagnostics(list: readonly PresetDiagnostic[]): PresetDiagnostic[] {
  const seen = new Set<string>();
  const out: PresetDiagnostic[] = [];
  for (const d of list) {
    const id = `${d.file}\0${d.line}\0${d.column}\0${d.message}`;
    if (!seen.has(id)) {
      seen.add(id);
      out.push(d);
    }
  }
  // Stable sort keeps discovery order between files (a preset before what it extends is not wanted;
  // files appear in the order they were read, which is extends-first).
  const fileOrder = new Map<string, number>();
  for (const d of out) if (!fileOrder.has(d.file)) fileOrder.set(d.file, fileOrder.size);
  return out.sort((a, b) => fileOrder.get(a.file)! - fileOrder.get(b.file)! || a.line - b.line || a.column - b.column);
}

/**
 * Thrown by the preset loader for any problem: bad YAML, schema violations, unknown plugins, bad
 * plugin options, extends cycles, missing files, unset variables. `message` is the diagnostics as
 * `file:line:column: message` lines.
 */
export class PresetError extends Error {
  readonly diagnostics: PresetDiagnostic[];

  constructor(diagnostics: readonly PresetDiagnostic[], options?: { cause?: unknown }) {
    const sorted = sortDiagnostics(diagnostics);
    super(sorted.map((d) => formatDiagnostic(d)).join('\n'), options);
    this.name = 'PresetError';
    this.diagnostics = sorted;
  }
}

/** Collects diagnostics for one file. */
export class DiagnosticSink {
  readonly list: PresetDiagnostic[] = [];

  add(file: string, pos: SourcePos | undefined, key: KeyPath | string, message: string): void {
    this.list.push({
      file,
      line: pos?.line ?? 0,
      column: pos?.col ?? 0,
      key: typeof key === 'string' ? key : keyPath(key),
      message,
    });
  }

  get size(): number {
    return this.list.length;
  }
}
