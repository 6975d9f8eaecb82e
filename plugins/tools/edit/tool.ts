/**
 * `Edit`: exact string replacement in a file. `old_string` must occur exactly once unless
 * `replace_all` is set; the file must have been read in this session and be unchanged since.
 * Files with CRLF line endings keep them: matching is done on `\n` text and the endings restored.
 */
import { closeSync, fstatSync, ftruncateSync, lstatSync, readFileSync, writeSync, type Stats } from 'node:fs';
import { z } from 'zod';
import { defineTool, ToolError, type ResolvedPath } from '../../../kernel/index.js';
import { neutralizeWithMap, openResolvedForWrite, restoreReservedTags } from '../../../lib/index.js';
import { getFileState } from '../shared/file-state.js';
import { assertFreshForWrite } from '../shared/guard.js';
import { errnoCode, resolveToolPath } from '../shared/paths.js';
import { asToolError, callTarget } from '../shared/target.js';
import { numberedLine, splitLines } from '../shared/text.js';
import { INPUT_JSON_SCHEMAS } from '../shared/generated/input-schemas.js';

/** Lines of context shown around an edit in the result. */
export const SNIPPET_CONTEXT_LINES = 4;

export const editInput = z.lazy(() => z.strictObject({
  file_path: z.string().min(1).describe('Absolute path of the file to change (a relative path is taken from the working directory)'),
  old_string: z.string().describe('The exact text to replace, including its indentation and line breaks'),
  new_string: z.string().describe('The text to put in its place (must differ from old_string)'),
  replace_all: z.boolean().default(false).describe('Replace every occurrence of old_string (default false: old_string must occur exactly once)'),
}));

export type EditInput = z.output<typeof editInput>;

const DESCRIPTION = `Replaces exact text in a file.

Usage:
- Edit refuses a file you have not Read in this session, or that changed on disk since you read it (Read it again then).
- old_string must match the file exactly: same indentation (tabs or spaces), same line breaks. When copying from Read output, take only the text after the line number and its tab; never include the number or the tab.
- The edit fails if old_string occurs more than once: add surrounding lines to make it unique, or set replace_all to change every occurrence (a rename).
- Keep old_string short but unique: usually 2 to 4 adjacent lines are enough.
- An empty old_string creates a new file containing new_string (the file must not exist yet).
- Prefer editing existing files to creating new ones.`;

/**
 * old_string found in the neutralised view of `content` (what Read showed the model), applied to
 * `content` itself: each match's span is mapped back to the original characters, which are
 * replaced; characters removed for display just inside a match go with it. `&lt;` escapes of
 * context tags in new_string are turned back into `<` (the model copied them from the view).
 * Undefined when it is not found there either.
 */
function viaNeutralized(content: string, oldStr: string, newStr: string, all: boolean): { updated: string; count: number; first: number; newStr: string } | undefined {
  const view = neutralizeWithMap(content);
  if (view.text === content) return undefined;
  const at = occurrences(view.text, oldStr);
  if (at.length === 0) return undefined;
  const replacement = restoreReservedTags(newStr);
  const spans = (all ? at : at.slice(0, 1)).map((i) => [view.map[i]!, view.map[i + oldStr.length]!] as const);
  let updated = content;
  for (let k = spans.length - 1; k >= 0; k--) updated = updated.slice(0, spans[k]![0]) + replacement + updated.slice(spans[k]![1]);
  return { updated, count: at.length, first: spans[0]![0], newStr: replacement };
}

/** Non-overlapping occurrences of `needle` in `hay`, as start offsets. */
function occurrences(hay: string, needle: string): number[] {
  const at: number[] = [];
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + needle.length)) at.push(i);
  return at;
}

function lineOf(text: string, offset: number): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Numbered lines around lines [from, to] of `text`. */
function snippet(text: string, from: number, to: number): string {
  const lines = splitLines(text);
  const a = Math.max(1, from - SNIPPET_CONTEXT_LINES);
  const b = Math.min(lines.length, to + SNIPPET_CONTEXT_LINES);
  const out: string[] = [];
  for (let i = a; i <= b; i++) out.push(numberedLine(i, lines[i - 1]!));
  return out.join('\n');
}

function notFoundHint(content: string, old: string): string {
  const withoutNumbers = old.replace(/^\s*\d+\t/gm, '');
  if (withoutNumbers !== old && content.includes(withoutNumbers)) {
    return ' old_string contains line-number prefixes copied from Read output; remove them (everything up to and including the tab) and try again.';
  }
  const squash = (s: string) => s.replace(/[ \t]+/g, ' ').replace(/ ?\n ?/g, '\n').trim();
  if (squash(content).includes(squash(old))) {
    return ' The text is there with different whitespace or indentation; copy it exactly from a fresh Read.';
  }
  return ' Read the file again and copy the text exactly, including indentation and line breaks.';
}

/** The same contract in fewer words (the plugin's `description: condensed`). */
export const CONDENSED_DESCRIPTION = `Replaces old_string with new_string in the file at file_path, which you must have Read in this session and which must not have changed on disk since. old_string must match exactly (indentation and line breaks; never the line-number prefix of Read output) and occur once, unless replace_all is true (every occurrence); add surrounding lines to make it unique. An empty old_string creates a new file. new_string must differ from old_string.`;

export const editTool = defineTool<EditInput>({
  name: 'Edit',
  description: DESCRIPTION,
  inputSchema: editInput,
  inputJsonSchema: INPUT_JSON_SCHEMAS.editInput,
  filePath: (input) => input.file_path,
  async call(input, ctx) {
    const path = resolveToolPath(ctx.cwd, input.file_path);
    if (input.old_string === input.new_string) throw new ToolError('old_string and new_string are the same, so there is nothing to change.');
    const store = getFileState(ctx.kernel);
    // Opened once where the permission decision resolved the path; read and written through that descriptor.
    const target = callTarget(ctx, input.file_path);

    let exists = true;
    try {
      const st = lstatSync(target.real);
      if (st.isDirectory()) throw new ToolError(`${path} is a directory; give the path of a file.`);
    } catch (err) {
      if (err instanceof ToolError) throw err;
      if (errnoCode(err) !== 'ENOENT') throw new ToolError(`Cannot edit ${path}: ${(err as Error).message}`);
      exists = false;
    }

    if (!exists) {
      if (input.old_string !== '') throw new ToolError(`File does not exist: ${path}. To create it, use Write, or Edit with an empty old_string.`);
      const stat = writeThrough(target, path, { create: 'new' }, () => Buffer.from(input.new_string));
      store.record(path, { content: input.new_string, stat });
      return `Created ${path} with the given content (${splitLines(input.new_string).length} lines).`;
    }

    assertFreshForWrite(ctx.kernel, path);
    let result = '';
    let written = '';
    const stat = writeThrough(target, path, { create: false }, (raw) => {
      const r = applyEdit(path, raw.toString('utf8'), input);
      result = r.message;
      written = r.bytes;
      return Buffer.from(r.bytes);
    });
    store.record(path, { content: written, stat });
    return result;
  },
});

/**
 * Opens `target` for writing (see openResolvedForWrite), gives `edit` the current bytes and writes
 * what it returns, all through one descriptor. Returns the file's state after the write. Errors
 * come back as ToolErrors naming `path`.
 */
function writeThrough(target: ResolvedPath, path: string, opts: { create: false | 'new' }, edit: (current: Buffer) => Buffer): Stats {
  let w;
  try {
    w = openResolvedForWrite(target, { create: opts.create, mkdirs: opts.create === 'new', read: true });
  } catch (err) {
    const e = asToolError(err);
    if (e instanceof ToolError) throw e;
    if (errnoCode(err) === 'EEXIST') throw new ToolError(`${path} appeared while this call waited to run. Read it, then edit it.`);
    throw new ToolError(`Cannot edit ${path}: ${(err as Error).message}`);
  }
  try {
    const next = edit(w.created ? Buffer.alloc(0) : readFileSync(w.fd));
    ftruncateSync(w.fd, 0);
    for (let off = 0; off < next.length;) off += writeSync(w.fd, next, off, next.length - off, off);
    return fstatSync(w.fd);
  } finally {
    closeSync(w.fd);
  }
}

/** The edit on the file's text: the new bytes and the message for the model. Throws ToolError when it cannot apply. */
function applyEdit(path: string, raw: string, input: EditInput): { bytes: string; message: string } {
  if (input.old_string === '') {
    if (raw.trim() !== '') throw new ToolError(`${path} already exists and is not empty; an empty old_string only creates new files. Give the exact text to replace.`);
    return { bytes: input.new_string, message: `Wrote ${path} (it was empty).` };
  }

  const crlf = raw.includes('\r\n');
  const content = crlf ? raw.replace(/\r\n/g, '\n') : raw;
  const oldStr = crlf ? input.old_string.replace(/\r\n/g, '\n') : input.old_string;
  const newStr = crlf ? input.new_string.replace(/\r\n/g, '\n') : input.new_string;
  const found = occurrences(content, oldStr);
  if (found.length === 0) {
    // The model sees files neutralised (control sequences and invisible characters out, forged
    // context tags escaped): find old_string in that view and apply the edit to the real bytes.
    const seen = viaNeutralized(content, oldStr, newStr, input.replace_all);
    if (seen) {
      if (seen.count > 1 && !input.replace_all) throw new ToolError(`old_string occurs ${seen.count} times in ${path}, and replace_all is false. Include more surrounding text so it matches exactly one place, or set replace_all to true to change all of them.`);
      const bytes = crlf ? seen.updated.replace(/\n/g, '\r\n') : seen.updated;
      const start = lineOf(seen.updated, seen.first);
      return { bytes, message: `Edited ${path}: replaced ${seen.count} occurrence${seen.count === 1 ? '' : 's'}. The file around the change now reads:\n${snippet(seen.updated, start, start + Math.max(0, splitLines(seen.newStr).length - 1))}` };
    }
    throw new ToolError(`old_string was not found in ${path}.${notFoundHint(content, oldStr)}`);
  }
  if (found.length > 1 && !input.replace_all) {
    const lines = found.slice(0, 10).map((o) => lineOf(content, o));
    throw new ToolError(`old_string occurs ${found.length} times in ${path} (at lines ${lines.join(', ')}${found.length > 10 ? ', ...' : ''}), and replace_all is false. Include more surrounding text so it matches exactly one place, or set replace_all to true to change all of them.`);
  }

  // Slicing, not String.replace: `$&` and friends in new_string must stay literal.
  const updated = input.replace_all
    ? content.split(oldStr).join(newStr)
    : content.slice(0, found[0]!) + newStr + content.slice(found[0]! + oldStr.length);
  const bytes = crlf ? updated.replace(/\n/g, '\r\n') : updated;

  const start = lineOf(updated, found[0]!);
  const end = start + Math.max(0, splitLines(newStr).length - 1);
  const what = input.replace_all ? `replaced ${found.length} occurrence${found.length === 1 ? '' : 's'}` : 'replaced 1 occurrence';
  return { bytes, message: `Edited ${path}: ${what}. The file around the ${input.replace_all && found.length > 1 ? 'first ' : ''}change now reads:\n${snippet(updated, start, end)}` };
}
