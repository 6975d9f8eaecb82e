/**
 * `Bash`: runs a command in a real bash (see run.ts). Timeout 120 s by default, 600 s at most;
 * the working directory carries over from call to call; output over BASH_MAX_OUTPUT_CHARS is kept
 * in full in the session directory and the model gets its head and tail with the file's path.
 */
import { existsSync, mkdirSync, openSync, readSync, closeSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { formatPersistedOutput, subprocessEnv } from '../../../lib/index.js';
import { type Kernel, abortedText, createKernelState, defineTool, type SpawnRequest, type Tool, type ToolOutput } from '../../../kernel/index.js';
import { getFileState } from '../shared/file-state.js';
import { displayPath } from '../shared/paths.js';
import { groupDigits } from '../shared/text.js';
import { condensedTool } from '../shared/schema.js';
import { isReadOnlyCommand } from './read-only.js';
import { bashLaunch, groupAlive, logFileFor, MAX_LOG_BYTES, NON_INTERACTIVE_ENV, runCleanup, runShell, stopGroups } from './run.js';
import { shellsOf } from './background.js';
import { INPUT_JSON_SCHEMAS } from '../shared/generated/input-schemas.js';

/** Default timeout, ms (Claude Code's Bash default: 120,000). */
export const DEFAULT_BASH_TIMEOUT_MS = 120_000;
/** Longest timeout a call may ask for, ms (Claude Code: 600,000). */
export const MAX_BASH_TIMEOUT_MS = 600_000;
/** Output returned in full up to this many characters (Bash's maxResultSizeChars: 30,000). */
export const BASH_MAX_OUTPUT_CHARS = 30_000;
/** Bytes of the head and of the tail shown for a larger output. */
export const BASH_PREVIEW_BYTES = 2_000;

/** Transcript plugin name for the working-directory entries. */
const CWD_ENTRY = 'tools/bash';

const cwds = new WeakMap<Kernel, string>();

/**
 * Process groups of calls whose command left processes running (`cmd &`), per kernel. They are
 * stopped when the run ends (`runEnd`) and when the kernel closes, so nothing a command started
 * outlives the run that started it.
 */
const leftRunning = new WeakMap<Kernel, Set<number>>();

function trackBackground(kernel: Kernel, pgid: number): void {
  let set = leftRunning.get(kernel);
  if (!set) {
    set = new Set();
    leftRunning.set(kernel, set);
    const stop = async () => {
      const groups = [...set!];
      set!.clear();
      await stopGroups(groups);
    };
    kernel.hooks.runEnd.tapPromise('tools/bash', stop);
    kernel.onClose(stop);
  }
  set.add(pgid);
}

/** The directory the next Bash call of this kernel starts in (restored from the transcript on resume). */
export function bashCwd(kernel: Kernel): string {
  let cwd = cwds.get(kernel);
  if (cwd === undefined) {
    const entries = kernel.transcript.pluginData<{ cwd: string }>(CWD_ENTRY);
    cwd = entries.at(-1)?.cwd ?? kernel.cwd;
    cwds.set(kernel, cwd);
  }
  return cwd;
}

/**
 * The directory the next Bash command will run in: the carried-over one, or the session's
 * directory when that one no longer exists (as `call` does).
 */
export function nextBashCwd(kernel: Kernel): string {
  const cwd = bashCwd(kernel);
  try {
    return statSync(cwd).isDirectory() ? cwd : kernel.cwd;
  } catch {
    return kernel.cwd;
  }
}

/**
 * Kernel state `shell`: `cwd()` answers where the next shell command runs. The permissions plugin
 * resolves a command's relative paths (`> notes.txt`) against it, not against the session's
 * directory: after `cd .git` a call's `> config` writes `.git/config`. It declares the same state
 * key, so neither family imports the other.
 */
export const shellState = createKernelState('shell', () => ({ cwd: undefined as (() => string) | undefined }));

function setBashCwd(kernel: Kernel, cwd: string): void {
  if (cwds.get(kernel) === cwd) return;
  cwds.set(kernel, cwd);
  kernel.transcript.append({ type: 'plugin', plugin: CWD_ENTRY, data: { cwd } });
}

/** Bash's input fields, in the order the JSON Schema lists them. */
const bashFields = () => ({
  command: z.string().min(1).describe('The command to run'),
  timeout: z.number().positive().max(MAX_BASH_TIMEOUT_MS).optional().describe(`Timeout in milliseconds (default ${DEFAULT_BASH_TIMEOUT_MS}, at most ${MAX_BASH_TIMEOUT_MS})`),
  description: z.string().optional().describe('What the command does, in 5-10 words (e.g. "Run the unit tests", "List files in src")'),
});

export const bashInput = z.lazy(() => z.strictObject(bashFields()));

/** Bash's input with background shells on (Claude Code's `run_in_background`). */
export const bashBackgroundInput = z.lazy(() => z.strictObject({
  ...bashFields(),
  run_in_background: z.boolean().optional().describe('Run it in the background and return a shell id at once (see Background commands)'),
}));

export type BashInput = z.output<typeof bashBackgroundInput>;

const DESCRIPTION = `Runs a command in a bash shell and returns its output (stdout and stderr together) and exit code.

The working directory carries over between calls (a cd stays in effect); environment variables and shell state do not.

Use the dedicated tools instead of shell commands where one exists (faster, clearer output, precise permission rules):
- find files by name: Glob (not find or ls -R)
- search file contents: Grep (not grep or rg)
- read files: Read (not cat, head or tail)
- change files: Edit (not sed or awk); create files: Write (not echo > or cat <<EOF)
- talk to the user: plain text in your reply (not echo)

Running commands:
- Before creating files or folders, check that the parent folder exists.
- Quote paths that contain spaces: cd "/path/with spaces".
- Prefer absolute paths over cd, so the working directory stays predictable.
- Commands time out after ${DEFAULT_BASH_TIMEOUT_MS / 1000} s unless you pass timeout (in ms, at most ${MAX_BASH_TIMEOUT_MS / 1000} s); on timeout the command and everything it started are killed.
- Output over ${groupDigits(BASH_MAX_OUTPUT_CHARS)} characters is saved to a file; you get its beginning and end and the file's path, which you can Read or Grep.
- Commands get no input: a keypress or password prompt fails, and git never opens an editor. Use non-interactive flags (apt-get -y).
- Independent commands: several Bash calls in one message; read-only ones run in parallel, and one failing cancels the others of that message. Dependent commands: one call, chained with && (or ; when a failure should not stop the rest), not newlines.
- Do not sleep between commands or poll in sleep loops; find out why something is not ready. If you must wait, keep it to a few seconds.

Git:
- Never change git config, force-push, rewrite published history, or run destructive commands (reset --hard, clean -f, checkout -- .) unless the user asked for exactly that.
- Do not skip hooks (--no-verify). If a hook fails, fix the problem and make a new commit rather than amending.
- Stage files by name rather than with git add -A or git add ., which can sweep in secrets or build output.
- Commit only when the user asks; pass the message with a heredoc: git commit -m "$(cat <<'EOF' ... EOF)".`;

/** The same contract in fewer words (the plugin's `description: condensed`). */
const CONDENSED_DESCRIPTION = `Runs command in bash; returns stdout and stderr together and the exit code. description: what it does in 5-10 words. The working directory carries over between calls; environment and shell state do not. Prefer Read, Edit, Write, Glob and Grep to cat, sed, echo >, find and grep. Commands get no input (use -y flags); they time out after ${DEFAULT_BASH_TIMEOUT_MS / 1000} s unless timeout (ms, at most ${MAX_BASH_TIMEOUT_MS / 1000} s) says otherwise, and everything they started is killed. Output over ${groupDigits(BASH_MAX_OUTPUT_CHARS)} characters is saved to a file (you get its start, end and path). Chain dependent commands with &&; independent ones go in separate calls in one message. Git: never change config, force-push, skip hooks or run destructive commands unless asked; stage files by name; commit only when asked.`;

/** The background part of the condensed description. */
const CONDENSED_BACKGROUND = `
run_in_background: true for long or endless commands returns a shell id at once; read it with BashOutput, stop it with KillShell; you are told when it ends. Do not add &.`;

/** Reads `bytes` bytes at `position` of `file` as text. */
function readSlice(file: string, position: number, bytes: number): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, position);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * The output as the model sees it: whole when small, else head + tail + where the whole of it is.
 * `keep`: the log stays on disk (background processes still write to it).
 */
function outputText(logFile: string, bytes: number, keep = false): string {
  if (bytes === 0) return '';
  if (bytes <= BASH_MAX_OUTPUT_CHARS * 4) {
    const all = readFileSync(logFile, 'utf8');
    if (all.length <= BASH_MAX_OUTPUT_CHARS) {
      if (!keep) rmSync(logFile, { force: true });
      return all.replace(/\n$/, '');
    }
  }
  let head = readSlice(logFile, 0, BASH_PREVIEW_BYTES).replace(/\uFFFD$/, '');
  const nl = head.lastIndexOf('\n');
  if (nl > BASH_PREVIEW_BYTES / 2) head = head.slice(0, nl);
  let tail = readSlice(logFile, Math.max(0, bytes - BASH_PREVIEW_BYTES), BASH_PREVIEW_BYTES).replace(/^\uFFFD+/, '');
  const tnl = tail.indexOf('\n');
  if (tnl !== -1 && tnl < BASH_PREVIEW_BYTES / 2) tail = tail.slice(tnl + 1);
  return formatPersistedOutput({ size: `${bytes} bytes`, file: logFile, preview: { label: 'First lines', text: head }, tail: { label: 'Last lines', text: tail.replace(/\n$/, '') } });
}

/** Files read earlier whose content a (possibly writing) command just changed: a note for the model, or ''. */
function staleNote(kernel: Kernel, command: string, cwd: string): string {
  if (isReadOnlyCommand(command)) return '';
  const store = getFileState(kernel);
  if (store.size === 0) return '';
  const changed = store.changedSince();
  if (!changed.length) return '';
  const names = changed.slice(0, 10).map((r) => displayPath(cwd, r.path));
  return `\n\n(Files you read earlier changed during this command: ${names.join(', ')}${changed.length > 10 ? `, and ${changed.length - 10} more` : ''}. Read them again before editing them.)`;
}

/** What the description says about background commands, when they are on. */
const BACKGROUND_DESCRIPTION = `
Background commands:
- For a command that runs for long or does not end by itself (a dev server, a watcher, a long build), set run_in_background: true. You get a shell id at once; BashOutput reads what it wrote since your last read, KillShell stops it and everything it started. Do not add & yourself.
- You are told when a background command ends; do not poll it with sleep loops. Background shells are stopped when the session ends.`;

export interface BashToolOptions {
  /** Default timeout, ms. */
  defaultTimeoutMs?: number;
  /** Extra environment for every command. */
  env?: Record<string, string>;
  /** Offer `run_in_background` (the BashOutput and KillShell tools come with it). Default true. */
  background?: boolean;
  /** `condensed`: the same contract in fewer words. Default `full`. */
  description?: 'full' | 'condensed';
}

/** Builds the Bash tool. */
export function createBashTool(options: BashToolOptions = {}): Tool<BashInput> {
  const tool = bashToolWith(options);
  if (options.description !== 'condensed') return tool;
  return condensedTool(tool, options.background !== false ? CONDENSED_DESCRIPTION + CONDENSED_BACKGROUND : CONDENSED_DESCRIPTION);
}

function bashToolWith(options: BashToolOptions): Tool<BashInput> {
  const defaultTimeout = options.defaultTimeoutMs ?? DEFAULT_BASH_TIMEOUT_MS;
  const background = options.background !== false;
  return defineTool<BashInput>({
    name: 'Bash',
    description: background ? `${DESCRIPTION}\n${BACKGROUND_DESCRIPTION}` : DESCRIPTION,
    inputSchema: (background ? bashBackgroundInput : bashInput) as z.ZodType<BashInput>,
    inputJsonSchema: INPUT_JSON_SCHEMAS[background ? 'bashBackgroundInput' : 'bashInput'],
    isReadOnly: (input) => isReadOnlyCommand(input.command),
    isConcurrencySafe: (input) => isReadOnlyCommand(input.command),
    maxResultSizeChars: BASH_MAX_OUTPUT_CHARS,
    async call(input, ctx): Promise<ToolOutput> {
      const kernel = ctx.kernel;
      let cwd = bashCwd(kernel);
      let note = '';
      if (!existsSync(cwd) || !statSync(cwd).isDirectory()) {
        note = `(The previous working directory ${cwd} no longer exists; this command ran in ${kernel.cwd}.)\n`;
        cwd = kernel.cwd;
        setBashCwd(kernel, cwd);
      }
      const runCtx = kernel.runContext(ctx.signal);
      if (input.run_in_background) {
        let shell;
        try {
          shell = await shellsOf(kernel).start(input.command, { cwd, env: options.env, description: input.description, ctx: runCtx });
        } catch (err) {
          return { content: `${note}The command was not started: ${(err as Error).message}`, isError: true };
        }
        return `${note}Command running in background with ID: ${shell.id}. Read its output with BashOutput (bash_id "${shell.id}"); stop it with KillShell.`;
      }
      const logFile = logFileFor(ctx.sessionDir, ctx.toolUseId);
      mkdirSync(dirname(logFile), { recursive: true });
      const timeoutMs = Math.min(input.timeout ?? defaultTimeout, MAX_BASH_TIMEOUT_MS);
      // rein's environment as the kernel gives it to child processes (credentials removed when the
      // preset asks), the preset's `env`, then the non-interactive defaults and the plugin's `env`.
      const env = subprocessEnv(kernel, { kind: 'bash', name: 'Bash' }, { ...NON_INTERACTIVE_ENV, ...options.env });
      let req: SpawnRequest;
      try {
        req = await kernel.hooks.spawn.promise({ purpose: 'bash', ...bashLaunch(input.command, cwd, env), cleanup: [] }, runCtx);
      } catch (err) {
        return { content: `${note}The command was not run: ${(err as Error).message}`, isError: true };
      }
      const r = await runShell(req, { timeoutMs, signal: ctx.signal, logFile }).finally(() => runCleanup(req));
      rmSync(`${logFile}.cwd`, { force: true });
      if (r.cwdAfter && r.cwdAfter !== cwd) setBashCwd(kernel, r.cwdAfter);
      // Processes the command started in the background (`cmd &`) are still in its process group.
      // A sandboxed command has none: its pid namespace ends with it (bwrap's init exits when the
      // command does), and the group's last processes may still be seen for a moment as they go.
      const leftBehind = !req.sandbox && r.pgid !== undefined && groupAlive(r.pgid);
      if (leftBehind) trackBackground(kernel, r.pgid!);
      const out = outputText(logFile, r.outputBytes, leftBehind);
      const stale = staleNote(kernel, input.command, ctx.cwd) + (leftBehind
        ? `\n\n(Processes this command started in the background are still running; their output goes to ${logFile}. They are stopped when this run ends.)`
        : '');
      const refused = req.sandbox?.explain(out);
      if (refused) {
        const status = r.exitCode === 0 ? 'Exit code 0' : r.exitCode === null ? `Killed by signal ${r.signal}` : `Exit code ${r.exitCode}`;
        return { content: `${note}${status}${out ? `\n${out}` : ''}\n\n${refused}`, isError: true };
      }

      if (r.aborted) {
        return { content: `${abortedText(r.aborted.reason)}${out ? `\nOutput before it was stopped:\n${out}` : ''}`, isError: true };
      }
      if (r.outputCapped) {
        return { content: `${note}The command was killed after writing more than ${MAX_LOG_BYTES} bytes of output.\n${out}`, isError: true };
      }
      if (r.timedOut) {
        return { content: `${note}Command timed out after ${timeoutMs / 1000} s and was killed, with every process it started.${out ? `\nOutput before the timeout:\n${out}` : ''}`, isError: true };
      }
      if (r.exitCode !== 0) {
        const status = r.exitCode === null ? `Killed by signal ${r.signal}` : `Exit code ${r.exitCode}`;
        return { content: `${note}${status}${out ? `\n${out}` : ''}${stale}`, isError: true };
      }
      return `${note}${out}${stale}`;
    },
  });
}

export const bashTool = createBashTool();
