/**
 * The retention proxy: which facts the context held before a compaction are still in it after.
 * Three kinds of fact, each matched as literal text:
 * - files: paths the agent passed to tools (`file_path`, `path`, ...) or that appear in text with a
 *   directory part and an extension;
 * - identifiers: camelCase / PascalCase / snake_case names of at least 6 characters in tool inputs
 *   (what the agent edited, searched for, ran);
 * - instructions: prompts a person typed (their first 200 characters, whitespace collapsed).
 * A fact is kept when its text still occurs anywhere in the context after (summary, kept messages,
 * restored files). This is a proxy: a summary that paraphrases keeps meaning without the literal.
 */
import type { Message } from '../../kernel/types.js';
import type { RetentionCounts } from './types.js';

/** Characters of a typed prompt used as its fingerprint. */
export const INSTRUCTION_CHARS = 200;

const PATH_KEYS = new Set(['file_path', 'path', 'filePath', 'notebook_path']);
const PATH_IN_TEXT = /(?:^|[\s"'`(<[=])((?:~|\.{1,2})?\/?(?:[\w@.-]+\/)+[\w@.-]+\.[A-Za-z][\w]{0,5})(?=$|[\s"'`),:;>\]])/gm;
const IDENT = /\b[A-Za-z_][A-Za-z0-9_]{5,}\b/g;

/** Facts present in a context. */
export interface Facts {
  files: Set<string>;
  identifiers: Set<string>;
  instructions: Set<string>;
}

function isIdentifier(w: string): boolean {
  return /[a-z][A-Z]/.test(w) || /[A-Za-z0-9]_[A-Za-z0-9]/.test(w);
}

/** A typed prompt's fingerprint. */
export function instructionKey(text: string): string {
  return text.replace(/\s+/g, ' ').trim().slice(0, INSTRUCTION_CHARS);
}

function walkInput(value: unknown, key: string | undefined, facts: Facts): void {
  if (typeof value === 'string') {
    if (key && PATH_KEYS.has(key) && value.length > 0 && value.length < 400) facts.files.add(value);
    for (const m of value.matchAll(IDENT)) if (isIdentifier(m[0])) facts.identifiers.add(m[0]);
    for (const m of value.matchAll(PATH_IN_TEXT)) facts.files.add(m[1]!);
    return;
  }
  if (Array.isArray(value)) { for (const v of value) walkInput(v, key, facts); return; }
  if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walkInput(v, k, facts);
}

function blockText(b: unknown): string {
  const x = b as Record<string, any>;
  switch (x?.type) {
    case 'text': return String(x.text ?? '');
    case 'thinking': return String(x.thinking ?? '');
    case 'tool_use': return JSON.stringify(x.input ?? {});
    case 'tool_result': return typeof x.content === 'string' ? x.content : Array.isArray(x.content) ? x.content.map(blockText).join('\n') : '';
    default: return '';
  }
}

/** All text of a context (for membership checks). */
export function contextText(messages: readonly Message[]): string {
  const parts: string[] = [];
  for (const m of messages) for (const b of m.content) parts.push(blockText(b));
  return parts.join('\n');
}

/** The facts in `messages`. `typedPrompts` holds fingerprints of prompts a person typed. */
export function extractFacts(messages: readonly Message[], typedPrompts: ReadonlySet<string>): Facts {
  const facts: Facts = { files: new Set(), identifiers: new Set(), instructions: new Set() };
  for (const m of messages) {
    for (const b of m.content) {
      const x = b as Record<string, any>;
      if (x.type === 'tool_use') walkInput(x.input, undefined, facts);
      else if (x.type === 'text') {
        const text = String(x.text ?? '');
        for (const p of text.matchAll(PATH_IN_TEXT)) facts.files.add(p[1]!);
        if (m.role === 'user') {
          const key = instructionKey(text);
          if (key && typedPrompts.has(key)) facts.instructions.add(key);
        }
      }
    }
  }
  return facts;
}

/** How many of `before` are still present in `after`. */
export function retained(before: Facts, after: readonly Message[]): RetentionCounts {
  const text = contextText(after);
  const squashed = text.includes('\n') || /\s{2}/.test(text) ? text.replace(/\s+/g, ' ') : text;
  const count = (set: Set<string>, hay: string) => { let k = 0; for (const f of set) if (hay.includes(f)) k++; return k; };
  return {
    files: { seen: before.files.size, kept: count(before.files, text) },
    identifiers: { seen: before.identifiers.size, kept: count(before.identifiers, text) },
    instructions: { seen: before.instructions.size, kept: count(before.instructions, squashed) },
  };
}
