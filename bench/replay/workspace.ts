/**
 * The virtual workspace of a replay: the files of the recorded session as the session had them at
 * each step, rebuilt from the recording in order. A successful read sets a file to what the read
 * showed (line numbers removed); a write sets it to the written content; an edit applies its
 * replacements to the content known at that point. Post-compaction file restoration reads from it
 * (`compaction/auto`'s file source), so a replay restores what a real run of the session would have.
 *
 * Tools understood: Claude Code's `Read` / `Write` / `Edit` / `MultiEdit` (`file_path`, `content`,
 * `old_string`, `new_string`, `replace_all`, `edits`) and pi's `read` / `write` / `edit` (`path`,
 * `content`, `oldText`, `newText`). A partial read (`offset` / `limit`) sets the file only when
 * nothing is known of it yet; an edit of a file never read or written is ignored (its content is not
 * in the recording); so is an edit whose `old_string` is not found.
 *
 * A path the recording names under the user's home (`~/…`, as pi writes them) is kept under that
 * name, and the replay's stand-in home (a folder of the replay's own, where the replay's kernel
 * resolves `~`) stands for it, as the replay's working folder stands for the recording's cwd.
 */
import { isAbsolute, posix, resolve } from 'node:path';
import type { ContentBlock } from '../../kernel/types.js';
import type { RecordedToolResult, Workload, WorkloadStep } from '../workloads/types.js';

/** A file of the workspace as of a step. */
export interface WorkspaceFile {
  content: string;
  /** Step whose tool call gave it this content. */
  step: number;
  /** The content came from a partial read. */
  partial: boolean;
}

type FileOp =
  | { kind: 'read'; path: string; result: RecordedToolResult; partial: boolean }
  | { kind: 'write'; path: string; content: string }
  | { kind: 'edit'; path: string; edits: { old: string; new: string; all: boolean }[] };

/** Tools whose calls read a file, by the names the recordings use. */
export const READ_TOOLS: readonly string[] = Object.freeze(['Read', 'read']);
const READ = new Set(READ_TOOLS);
const WRITE = new Set(['Write', 'write']);
const EDIT = new Set(['Edit', 'MultiEdit', 'edit']);
// Claude Code numbers lines as `     1→text` (older versions: a tab); pi shows the text as is.
const NUMBERED_LINE = /^ *\d+(?:\u2192|\t)/;
const REMINDER = /\n*<system-reminder>[\s\S]*?<\/system-reminder>\s*$/;

function resultText(content: readonly ContentBlock[]): string {
  return content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text).join('\n');
}

/** What a Read result showed, without its line numbers; undefined when it is not a file listing. */
export function readContent(text: string): string {
  const body = text.replace(REMINDER, '');
  const lines = body.split('\n');
  const numbered = lines.filter((l) => l.length > 0);
  if (numbered.length && numbered.every((l) => NUMBERED_LINE.test(l))) return lines.map((l) => l.replace(NUMBERED_LINE, '')).join('\n');
  return body;
}

const READ_RESULT = Symbol('read result');

/** A read file's content, from its recorded result (one getter for all files: one hidden class). */
function readFileContent(this: { [READ_RESULT]: RecordedToolResult }): string {
  return readContent(resultText(this[READ_RESULT].content));
}

/**
 * A file as a read showed it. Its content is taken from the recorded result when asked for (an
 * enumerable getter): most files are only read, and a long recording reads thousands of them, so
 * the workspace refers to the recording instead of holding a second copy of each.
 */
function readFile(result: RecordedToolResult, step: number, partial: boolean): WorkspaceFile {
  // The result under a symbol that is not enumerable: a copy or a comparison sees a plain file.
  const file = { step, partial };
  Object.defineProperties(file, { [READ_RESULT]: { value: result }, content: { enumerable: true, get: readFileContent } });
  return file as unknown as WorkspaceFile;
}

/** `~/rest` normalised (`~/a/../b` is `~/b`), or undefined when `p` is not under `~`. */
function homeRelative(p: string): string | undefined {
  if (p !== '~' && !p.startsWith('~/')) return undefined;
  const rest = posix.normalize(`/${p.slice(1)}`).replace(/^\/+/, '');
  return rest ? `~/${rest}` : '~';
}

/** The file operations of one step's tool calls, in order. `base`: the recording's cwd, for relative paths. */
function opsOf(step: WorkloadStep, base: string): FileOp[] {
  const abs = (p: string) => homeRelative(p) ?? (isAbsolute(p) ? p : resolve(base, p));
  const ops: FileOp[] = [];
  for (const b of step.reply as ContentBlock[]) {
    if (b.type !== 'tool_use') continue;
    const use = b as { id: string; name: string; input: Record<string, unknown> };
    const input = use.input ?? {};
    const path = typeof input.file_path === 'string' ? input.file_path : typeof input.path === 'string' ? input.path : undefined;
    if (!path) continue;
    const result = step.toolResults.find((r) => r.toolUseId === use.id);
    if (READ.has(use.name)) {
      if (!result || result.isError) continue;
      const text = resultText(result.content);
      if (!text || /^(EACCES|ENOENT|EISDIR|Error)\b/.test(text) || text.startsWith('<tool_use_error>')) continue;
      ops.push({ kind: 'read', path: abs(path), result, partial: input.offset !== undefined || input.limit !== undefined });
    } else if (WRITE.has(use.name) && typeof input.content === 'string') {
      if (result?.isError) continue;
      ops.push({ kind: 'write', path: abs(path), content: input.content });
    } else if (EDIT.has(use.name)) {
      if (result?.isError) continue;
      const list = Array.isArray(input.edits) ? input.edits as Record<string, unknown>[] : [input];
      const edits = list.map((e) => ({ old: String(e.old_string ?? e.oldText ?? ''), new: String(e.new_string ?? e.newText ?? ''), all: e.replace_all === true }))
        .filter((e) => e.old.length > 0);
      if (edits.length) ops.push({ kind: 'edit', path: abs(path), edits });
    }
  }
  return ops;
}

/**
 * The workspace of one replay. `advanceTo(pos)` applies the file operations of every step before
 * `pos` (a step's tool results enter the context after its reply, so they count from the next step).
 */
/**
 * A file as the workspace keeps it: its text, or the recorded read result its text comes from. One
 * plain shape for every file (a few references and numbers); `get` gives the WorkspaceFile.
 */
interface KeptFile {
  step: number;
  partial: boolean;
  text: string | undefined;
  read: RecordedToolResult | undefined;
}

function textOf(f: KeptFile): string {
  return f.read ? readContent(resultText(f.read.content)) : f.text!;
}

export class VirtualWorkspace {
  private readonly files = new Map<string, KeptFile>();
  private applied = 0;

  /**
   * `replayDir`: the replay's working folder, standing for the recording's cwd; `home`: the replay's
   * stand-in home, standing for the recording's `~`. Both absolute, without a trailing `/`.
   */
  constructor(readonly workload: Workload, private readonly replayDir?: string, private readonly home?: string) {}

  /**
   * Applies the operations of the steps at positions below `pos` not applied yet. Each step's
   * operations are read from the recording as they are applied, not listed up front: a generated
   * workload makes its tool inputs when read, and a list of every write and edit would hold them
   * all for the whole replay.
   */
  advanceTo(pos: number): void {
    const steps = this.workload.steps;
    const base = this.workload.cwd ?? '/';
    for (; this.applied < Math.min(pos, steps.length); this.applied++) {
      const step = steps[this.applied]!;
      for (const op of opsOf(step, base)) this.apply(op, step.index);
    }
  }

  private apply(op: FileOp, step: number): void {
    const cur = this.files.get(op.path);
    if (op.kind === 'read') {
      if (op.partial && cur) return;
      this.files.set(op.path, { step, partial: op.partial, text: undefined, read: op.result });
    } else if (op.kind === 'write') {
      this.files.set(op.path, { step, partial: false, text: op.content, read: undefined });
    } else if (cur) {
      let text = textOf(cur);
      for (const e of op.edits) {
        if (!text.includes(e.old)) continue;
        text = e.all ? text.split(e.old).join(e.new) : text.replace(e.old, () => e.new);
      }
      this.files.set(op.path, { step, partial: cur.partial, text, read: undefined });
    }
  }

  /**
   * The file at `path` as of the last `advanceTo`, or undefined. A path under the replay's folder
   * (a relative path the agent resolved against its cwd) is looked up relative to the recording's cwd;
   * one under the stand-in home, as the recording's `~/` path.
   */
  get(path: string): WorkspaceFile | undefined {
    let kept = this.files.get(path);
    if (!kept && (this.inReplayDir(path) || this.inHome(path))) kept = this.files.get(this.recordedPath(path));
    if (!kept) return undefined;
    return kept.read ? readFile(kept.read, kept.step, kept.partial) : { content: kept.text!, step: kept.step, partial: kept.partial };
  }

  /**
   * `path` as the recording names it: a path under the replay's folder (a fresh, randomly named
   * folder per replay) resolved against the recording's cwd instead, so a report shows the same
   * path on every run; a path under the stand-in home as `~/…`; any other path as it is.
   */
  recordedPath(path: string): string {
    if (this.inHome(path)) return path === this.home ? '~' : `~/${path.slice(this.home!.length + 1)}`;
    return this.inReplayDir(path) ? resolve(this.workload.cwd ?? '/', path.slice(this.replayDir!.length + 1)) : path;
  }

  private inHome(path: string): boolean {
    return !!this.home && (path === this.home || path.startsWith(this.home + '/'));
  }

  private inReplayDir(path: string): boolean {
    return !!this.replayDir && path.startsWith(this.replayDir + '/');
  }

  /** Paths known as of the last `advanceTo`. */
  paths(): string[] {
    return [...this.files.keys()];
  }
}
