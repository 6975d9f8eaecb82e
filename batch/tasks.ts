/**
 * A batch file (`rein batch tasks.jsonl`): one task per line, as JSON:
 *
 *   {"id": "fix-1", "prompt": "Make the tests pass", "cwd": "work/fix-1", "check": "npm test"}
 *   {"prompt": "Add a --json flag", "repo": "https://example.org/app.git", "rev": "v1.2.0", "check": "make test"}
 *
 * `cwd` is a directory the task runs in, as it is; `repo` (a URL or a path) and `rev` (a commit,
 * tag or branch; default HEAD) are cloned and checked out into a fresh directory for the task.
 * Relative paths are relative to the batch file's folder. Blank lines and lines starting with `#`
 * are skipped.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { InputError } from '../lib/errors.js';

/** One task of a batch. */
export interface BatchTask {
  /** The task's `id`, or `line-N`. */
  id: string;
  /** 1-based line in the batch file. */
  line: number;
  prompt: string;
  /** An existing directory (absolute) to run in. */
  cwd?: string;
  /** A git repository (URL, or absolute path) to clone into a fresh directory. */
  repo?: string;
  /** What to check out of `repo`. */
  rev?: string;
  /** A shell command (bash) run in the working directory after the run; its exit code is reported. */
  check?: string;
}

const TASK = z.strictObject({
  id: z.string().min(1).optional(),
  prompt: z.string().trim().min(1, 'must not be empty'),
  cwd: z.string().min(1).optional(),
  repo: z.string().min(1).optional(),
  rev: z.string().min(1).optional(),
  check: z.string().min(1).optional(),
});

const FIELDS = Object.keys(TASK.shape);

/** A git URL (scheme://, or scp-like user@host:path) rather than a path. */
function isGitUrl(s: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(s) || /^[\w.-]+@[\w.-]+:/.test(s);
}

/**
 * Reads the tasks of a batch text. Throws InputError with every problem as `file:line: message`
 * (not JSON, unknown or missing fields, both `cwd` and `repo`, duplicate ids); nothing runs then.
 */
export function parseTasks(text: string, file: string): BatchTask[] {
  const base = dirname(resolve(file));
  const problems: string[] = [];
  const tasks: BatchTask[] = [];
  const ids = new Map<string, number>();
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    const src = raw.trim();
    if (!src || src.startsWith('#')) return;
    const at = `${file}:${line}`;
    let value: unknown;
    try {
      value = JSON.parse(src);
    } catch (err) {
      problems.push(`${at}: not a JSON object (${(err as Error).message})`);
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      problems.push(`${at}: not a JSON object (a task is {"prompt": "...", "cwd": "DIR"}; this line is ${Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`})`);
      return;
    }
    const r = TASK.safeParse(value);
    if (!r.success) {
      for (const issue of r.error.issues) {
        if (issue.code === 'unrecognized_keys') {
          for (const k of issue.keys) problems.push(`${at}: unknown field "${k}"; a task has ${FIELDS.join(', ')}`);
        } else {
          const key = issue.path.join('.');
          // zod leaves the input out of its issues: whether the field was there is read from the line.
          const missing = issue.code === 'invalid_type' && issue.path.length === 1 && !(typeof value === 'object' && value !== null && String(issue.path[0]) in value);
          problems.push(`${at}: ${key ? `${key}: ` : ''}${missing ? 'missing' : issue.message}`);
        }
      }
      return;
    }
    const t = r.data;
    if (t.cwd && t.repo) return void problems.push(`${at}: give either cwd (a directory) or repo (and rev), not both`);
    if (t.rev && !t.repo) return void problems.push(`${at}: rev needs repo (the repository to check it out of)`);
    const id = t.id ?? `line-${line}`;
    if (ids.has(id)) return void problems.push(`${at}: id "${id}" is also the id of line ${ids.get(id)}`);
    ids.set(id, line);
    const abs = (p: string) => (isAbsolute(p) ? p : resolve(base, p));
    tasks.push({
      id, line, prompt: t.prompt,
      ...(t.cwd ? { cwd: abs(t.cwd) } : {}),
      ...(t.repo ? { repo: isGitUrl(t.repo) ? t.repo : abs(t.repo), rev: t.rev ?? 'HEAD' } : {}),
      ...(t.check ? { check: t.check } : {}),
    });
  });
  if (problems.length) throw new InputError(problems.join('\n'));
  if (!tasks.length) throw new InputError(`${file}: no tasks (one JSON object per line: {"prompt": "...", "cwd": "DIR"})`);
  return tasks;
}

/** Reads a batch file. Throws InputError for a file that cannot be read, or as parseTasks does. */
export async function readTasks(file: string): Promise<BatchTask[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory (give the .jsonl file of tasks)' : code === 'EACCES' ? 'permission denied' : (err as Error).message;
    throw new InputError(`${file}: cannot read the batch file: ${why}`);
  }
  return parseTasks(text, file);
}
