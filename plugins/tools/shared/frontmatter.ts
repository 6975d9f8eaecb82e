/**
 * YAML frontmatter of Markdown definition files (`SKILL.md`, `.claude/agents/*.md`): the block
 * between a first line `---` and the next line `---`, parsed with the `yaml` library so that every
 * problem names the file, line and column it is at. A malformed block is an error, never skipped:
 * a skill or agent that silently disappears is harder to debug than one that refuses to load.
 *
 * Format: https://code.claude.com/docs/en/skills and https://code.claude.com/docs/en/sub-agents
 * (YAML frontmatter, Markdown body).
 */
import { readFileSync } from 'node:fs';
import { isMap, isScalar, LineCounter, parseDocument, type Document, type Node } from 'yaml';

/** A problem in a definition file, at a 1-based line and column. */
export class FrontmatterError extends Error {
  override name = 'FrontmatterError';
  constructor(readonly file: string, readonly line: number, readonly column: number, readonly problem: string) {
    super(`${file}:${line}:${column}: ${problem}`);
  }
}

/** A parsed definition file: its frontmatter fields (unknown ones kept) and its Markdown body. */
export interface Frontmatter {
  file: string;
  /** The fields, as YAML gives them (`{}` without frontmatter). */
  data: Record<string, unknown>;
  /** The Markdown after the frontmatter, trimmed. */
  body: string;
  /** Line and column of a field's value (or of the frontmatter's start when the field is absent), for errors. */
  position(key: string): { line: number; column: number };
}

const OPEN = /^\uFEFF?---[ \t]*\r?$/;
const CLOSE = /^(?:---|\.\.\.)[ \t]*\r?$/;

/** Reads and parses `file`. Throws FrontmatterError (bad YAML, not a mapping, never closed) or the read's own error. */
export function readFrontmatter(file: string): Frontmatter {
  return parseFrontmatter(readFileSync(file, 'utf8'), file);
}

/** Parses a definition file's text. Throws FrontmatterError. */
export function parseFrontmatter(text: string, file: string): Frontmatter {
  const lines = text.split('\n');
  if (!OPEN.test(lines[0] ?? '')) {
    return { file, data: {}, body: text.replace(/^\uFEFF/, '').trim(), position: () => ({ line: 1, column: 1 }) };
  }
  const end = lines.findIndex((l, i) => i > 0 && CLOSE.test(l));
  if (end < 0) throw new FrontmatterError(file, 1, 1, 'the frontmatter opened by --- on line 1 is never closed (add a line --- after the fields)');
  const yamlText = lines.slice(1, end).join('\n');
  const counter = new LineCounter();
  const doc: Document = parseDocument(yamlText, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  // Line 1 of the YAML is line 2 of the file.
  const at = (offset: number) => {
    const p = counter.linePos(offset);
    return { line: p.line + 1, column: p.col };
  };
  const first = doc.errors[0];
  if (first) {
    const p = at(first.pos[0]);
    throw new FrontmatterError(file, p.line, p.column, `invalid YAML in the frontmatter: ${first.message.split('\n')[0]}`);
  }
  const contents = doc.contents as Node | null;
  if (contents !== null && !isMap(contents)) {
    const p = at(contents.range?.[0] ?? 0);
    throw new FrontmatterError(file, p.line, p.column, 'the frontmatter must be a mapping of fields (name: value), not a list or a single value');
  }
  const data = (doc.toJS() ?? {}) as Record<string, unknown>;
  const position = (key: string) => {
    if (isMap(contents)) {
      for (const pair of contents.items) {
        if (isScalar(pair.key) && pair.key.value === key) {
          const node = (pair.value ?? pair.key) as Node;
          return at(node.range?.[0] ?? 0);
        }
      }
    }
    return { line: 1, column: 1 };
  };
  return { file, data, body: lines.slice(end + 1).join('\n').trim(), position };
}

/** Field readers that throw FrontmatterError at the field's value when its type is wrong. */
export function fields(fm: Frontmatter) {
  const fail = (key: string, expected: string): never => {
    const p = fm.position(key);
    const got = fm.data[key];
    throw new FrontmatterError(fm.file, p.line, p.column, `"${key}" must be ${expected}, got ${Array.isArray(got) ? 'a list' : got === null ? 'nothing' : typeof got}`);
  };
  return {
    fail: (key: string, problem: string): never => {
      const p = fm.position(key);
      throw new FrontmatterError(fm.file, p.line, p.column, problem);
    },
    string(key: string): string | undefined {
      const v = fm.data[key];
      if (v === undefined) return undefined;
      if (typeof v === 'number') return String(v);
      if (typeof v !== 'string') return fail(key, 'a string');
      return v;
    },
    boolean(key: string): boolean | undefined {
      const v = fm.data[key];
      if (v === undefined) return undefined;
      if (v === 'true' || v === 'false') return v === 'true';
      if (typeof v !== 'boolean') return fail(key, 'true or false');
      return v;
    },
    number(key: string): number | undefined {
      const v = fm.data[key];
      if (v === undefined) return undefined;
      if (typeof v !== 'number' || !Number.isInteger(v) || v <= 0) return fail(key, 'a positive whole number');
      return v;
    },
    /** A list written as YAML list or as one comma-separated string (`Read, Grep, Bash(git log:*)`). */
    list(key: string): string[] | undefined {
      const v = fm.data[key];
      if (v === undefined || v === null) return undefined;
      if (typeof v === 'string') return splitList(v);
      if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) return fail(key, 'a list of strings or a comma-separated string');
      return (v as string[]).map((s) => s.trim()).filter(Boolean);
    },
  };
}

/**
 * Splits a list written on one line: at the commas outside parentheses (Claude Code's
 * `Read, Bash(git add:*), Grep`), or, when there are none, at the spaces outside them (the Agent
 * Skills format's space-separated `allowed-tools: Bash(git log:*) Read`).
 */
export function splitList(s: string): string[] {
  const split = (sep: RegExp) => {
    const out: string[] = [];
    let depth = 0;
    let cur = '';
    for (const ch of s) {
      if (ch === '(') depth++;
      if (ch === ')') depth = Math.max(0, depth - 1);
      if (depth === 0 && sep.test(ch)) {
        out.push(cur);
        cur = '';
      } else cur += ch;
    }
    out.push(cur);
    return out.map((x) => x.trim()).filter(Boolean);
  };
  const byComma = split(/,/);
  return byComma.length > 1 ? byComma : split(/\s/);
}
