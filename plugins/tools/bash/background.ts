/**
 * Background shells: `Bash` with `run_in_background` starts the command and returns its id at
 * once; `BashOutput` reads what it wrote since the last read; `KillShell` stops its process group.
 *
 * Each shell writes stdout and stderr straight to two files under the session folder
 * (`<session>/shells/<id>.stdout|.stderr`, opened append-only), so the output survives a
 * compaction and a restart of rein, and no pipe through rein can stall the command. A file that
 * grows past the cap is emptied and the dropped bytes counted: the process keeps running and the
 * reader is told what it missed. Fd 3 of the shell receives its exit status (`<id>.exit`), so a
 * shell left running past the end of the process that started it still reports how it ended.
 *
 * Shells are recorded in the transcript (start, end, read offsets), so a resumed session lists
 * them and can still read their files.
 */
import type { ChildProcess } from 'node:child_process';
import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Kernel, RunContext } from '../../../kernel/index.js';
import { bashLaunch, killGroup, NON_INTERACTIVE_ENV, runCleanup, type Launch } from './run.js';
import { subprocessEnv } from '../../../lib/index.js';
import { childProcess } from '../shared/child-process.js';

/** Transcript plugin name for shell records. */
export const SHELLS_ENTRY = 'tools/bash/shells';

/**
 * Most bytes kept per stream of one background shell before its file is emptied (rein's choice:
 * far more than a model reads, small enough that a chatty dev server cannot fill the disk).
 */
export const DEFAULT_BACKGROUND_MAX_OUTPUT_BYTES = 32 * 1024 * 1024;
/** How often the output files are checked against the cap, ms. */
const CAP_CHECK_MS = 1_000;

export type ShellStatus = 'running' | 'completed' | 'failed' | 'killed';

/** One background shell as the transcript records it. */
export interface ShellMeta {
  id: string;
  command: string;
  description?: string;
  pid: number;
  /** ms since the epoch. */
  startedAt: number;
  stdoutFile: string;
  stderrFile: string;
  exitFile: string;
  /** Name of the sandbox that wrapped it, if any. */
  sandbox?: string;
}

type Stream = 'stdout' | 'stderr';

/** A background shell and what rein knows about it. */
export interface Shell extends ShellMeta {
  status: ShellStatus;
  exitCode: number | null;
  /** Bytes of each stream already returned by BashOutput (counting dropped bytes). */
  read: Record<Stream, number>;
  /** Bytes removed from each file by the cap. */
  dropped: Record<Stream, number>;
  /** The process, when this rein process started it. */
  child?: ChildProcess;
  /** Resolves when the process has exited (immediately for one that already ended). */
  exited: Promise<void>;
  /** True once the model was told how it ended (a notification or a BashOutput read). */
  reported: boolean;
  /** Why it was killed, when rein killed it. */
  killedBecause?: string;
}

type Entry =
  | { start: ShellMeta }
  | { end: { id: string; status: ShellStatus; exitCode: number | null; killedBecause?: string } }
  | { read: { id: string; stdout: number; stderr: number } }
  | { reported: { id: string } };

export interface BackgroundOptions {
  /** Most bytes kept per stream (see DEFAULT_BACKGROUND_MAX_OUTPUT_BYTES). */
  maxOutputBytes: number;
  /** Leave shells running when the run ends (and when rein exits). Default false: they are killed. */
  keepRunning: boolean;
}

/** Extra environment variable that tags a shell's processes, so a resumed session can recognise them. */
const TAG_VAR = 'REIN_BACKGROUND_SHELL';

/** Reads `bytes` bytes at `position` of `file`. */
function readRange(file: string, position: number, bytes: number): Buffer {
  if (bytes <= 0) return Buffer.alloc(0);
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const n = readSync(fd, buf, 0, bytes, position);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

/** Length of `buf` without a UTF-8 sequence cut at its end (kept for the next read). */
function completeUtf8Length(buf: Buffer): number {
  for (let back = 1; back <= Math.min(3, buf.length); back++) {
    const b = buf[buf.length - back]!;
    if ((b & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return need > back ? buf.length - back : buf.length;
  }
  return buf.length;
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** True when `pid` is a live process that carries `tag` in its environment (Linux `/proc`). */
function isTaggedProcess(pid: number, tag: string): boolean {
  try {
    process.kill(pid, 0);
    if (/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))) return false;
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`${TAG_VAR}=${tag}`);
  } catch {
    return false;
  }
}

/** The background shells of one kernel. */
export class Shells {
  private readonly shells = new Map<string, Shell>();
  private timer: NodeJS.Timeout | undefined;
  private loaded = false;
  /** Set after a compaction: the next request lists the running shells. */
  listAfterCompaction = false;

  constructor(private readonly kernel: Kernel, readonly options: BackgroundOptions) {}

  /** Rebuilds the shells of a resumed session from the transcript (once). */
  private load(): void {
    if (this.loaded) return;
    this.loaded = true;
    for (const e of this.kernel.transcript.pluginData<Entry>(SHELLS_ENTRY)) {
      if ('start' in e) {
        this.shells.set(e.start.id, { ...e.start, status: 'running', exitCode: null, read: { stdout: 0, stderr: 0 }, dropped: { stdout: 0, stderr: 0 }, exited: Promise.resolve(), reported: false });
      } else if ('end' in e) {
        const s = this.shells.get(e.end.id);
        if (s) Object.assign(s, { status: e.end.status, exitCode: e.end.exitCode, killedBecause: e.end.killedBecause });
      } else if ('read' in e) {
        const s = this.shells.get(e.read.id);
        if (s) s.read = { stdout: e.read.stdout, stderr: e.read.stderr };
      } else if ('reported' in e) {
        const s = this.shells.get(e.reported.id);
        if (s) s.reported = true;
      }
    }
    // Shells of an earlier process: how they ended is in their exit file, if they got to write it.
    for (const s of this.shells.values()) if (s.status === 'running') this.refreshForeign(s);
  }

  /** Status of a shell this process did not start (a resumed session's). */
  private refreshForeign(s: Shell): void {
    if (s.child || s.status !== 'running') return;
    const code = Number.parseInt(existsSync(s.exitFile) ? readFileSync(s.exitFile, 'utf8').trim() : '', 10);
    if (Number.isInteger(code)) return this.ended(s, code === 0 ? 'completed' : 'failed', code);
    if (!isTaggedProcess(s.pid, this.tagOf(s))) this.ended(s, 'killed', null, 'it ended with the rein process that started it');
  }

  private tagOf(s: { id: string }): string {
    return `${this.kernel.sessionId}/${s.id}`;
  }

  private record(entry: Entry): void {
    this.kernel.transcript.append({ type: 'plugin', plugin: SHELLS_ENTRY, data: entry });
  }

  /** Every shell, oldest first. */
  list(): Shell[] {
    this.load();
    for (const s of this.shells.values()) this.refreshForeign(s);
    return [...this.shells.values()];
  }

  get(id: string): Shell | undefined {
    this.load();
    const s = this.shells.get(id);
    if (s) this.refreshForeign(s);
    return s;
  }

  running(): Shell[] {
    return this.list().filter((s) => s.status === 'running');
  }

  /**
   * Starts `command` in the background in `cwd`, through the `spawn` hook (a sandbox may wrap it).
   * Throws when the process cannot be started or a `spawn` tap refuses it.
   */
  async start(command: string, o: { cwd: string; env?: Record<string, string>; description?: string; ctx: RunContext }): Promise<Shell> {
    this.load();
    const id = `bash_${this.shells.size + 1}`;
    const dir = join(this.kernel.sessionDir(), 'shells');
    mkdirSync(dir, { recursive: true });
    const files = { stdoutFile: join(dir, `${id}.stdout`), stderrFile: join(dir, `${id}.stderr`), exitFile: join(dir, `${id}.exit`) };
    // rein's environment as the kernel gives it to child processes (credentials removed when the
    // preset asks), the preset's `env`, then the non-interactive defaults, the plugin's `env` and the tag.
    const env = subprocessEnv(this.kernel, { kind: 'bash', name: 'Bash' }, { ...NON_INTERACTIVE_ENV, ...o.env, [TAG_VAR]: this.tagOf({ id }) });
    const launch: Launch = bashLaunch(command, o.cwd, env, true);
    const req = await this.kernel.hooks.spawn.promise({ purpose: 'bash', ...launch, cleanup: [] }, o.ctx);
    const out = openSync(files.stdoutFile, 'a');
    const err = openSync(files.stderrFile, 'a');
    const exit = openSync(files.exitFile, 'w');
    let child: ChildProcess;
    try {
      child = childProcess().spawn(req.file, req.args, { cwd: req.cwd, env: req.env, detached: true, stdio: ['ignore', out, err, exit] });
    } finally {
      closeSync(out);
      closeSync(err);
      closeSync(exit);
    }
    const pid = await new Promise<number>((resolve, reject) => {
      child.once('spawn', () => resolve(child.pid!));
      child.once('error', reject);
    }).catch(async (e: Error) => {
      await runCleanup(req);
      throw e;
    });
    child.unref();
    let done!: () => void;
    const exited = new Promise<void>((r) => { done = r; });
    const meta: ShellMeta = { id, command, ...(o.description ? { description: o.description } : {}), pid, startedAt: Date.now(), ...files, ...(req.sandbox ? { sandbox: req.sandbox.name } : {}) };
    const shell: Shell = { ...meta, status: 'running', exitCode: null, read: { stdout: 0, stderr: 0 }, dropped: { stdout: 0, stderr: 0 }, child, exited, reported: false };
    this.shells.set(id, shell);
    this.record({ start: meta });
    child.once('exit', (code, signal) => {
      void runCleanup(req).finally(() => {
        if (shell.status === 'running') this.ended(shell, signal || code === null ? 'killed' : code === 0 ? 'completed' : 'failed', code, signal ? `killed by ${signal}` : undefined);
        shell.child = undefined;
        done();
      });
    });
    this.watchCaps();
    return shell;
  }

  private ended(s: Shell, status: ShellStatus, exitCode: number | null, killedBecause?: string): void {
    s.status = status;
    s.exitCode = exitCode;
    if (killedBecause) s.killedBecause = s.killedBecause ?? killedBecause;
    this.record({ end: { id: s.id, status, exitCode, ...(s.killedBecause ? { killedBecause: s.killedBecause } : {}) } });
  }

  /** Kills a shell's whole process group and waits for it to exit. False when it was not running. */
  async kill(s: Shell, because: string): Promise<boolean> {
    if (s.status !== 'running') return false;
    s.killedBecause = because;
    if (s.child) {
      killGroup(s.pid);
      await s.exited;
      this.ended(s, 'killed', s.exitCode, because);
      return true;
    }
    // Started by an earlier rein process: kill it only if that pid is still the shell.
    if (isTaggedProcess(s.pid, this.tagOf(s))) killGroup(s.pid);
    this.ended(s, 'killed', null, because);
    return true;
  }

  /** Kills every running shell (the run ended). */
  async killAll(because: string): Promise<void> {
    // Nothing loaded: this process started no shell and read none from the transcript, so there is
    // nothing to kill (and a transcript that could not be opened is not read again at close).
    if (this.loaded) await Promise.all(this.running().map((s) => this.kill(s, because)));
    this.stopWatching();
  }

  /** Marks that the model now knows how `s` ended, so no notification repeats it. */
  markReported(s: Shell): void {
    if (s.reported) return;
    s.reported = true;
    this.record({ reported: { id: s.id } });
  }

  /** Shells that ended and whose end the model has not been told, marked as told. */
  takeUnreported(): Shell[] {
    const out = this.list().filter((s) => s.status !== 'running' && !s.reported);
    for (const s of out) this.markReported(s);
    return out;
  }

  /**
   * What the shell wrote to `stream` since the last read, and how many bytes the cap dropped
   * before they were read. Advances the read offset.
   */
  readNew(s: Shell, stream: Stream): { text: string; missed: number } {
    const file = stream === 'stdout' ? s.stdoutFile : s.stderrFile;
    const size = sizeOf(file);
    const start = Math.max(0, s.read[stream] - s.dropped[stream]);
    const missed = Math.max(0, s.dropped[stream] - s.read[stream]);
    const buf = readRange(file, start, size - start);
    const end = completeUtf8Length(buf);
    s.read[stream] = s.dropped[stream] + start + end;
    return { text: buf.subarray(0, end).toString('utf8'), missed };
  }

  /** Records the read offsets (after a BashOutput call). */
  saveReads(s: Shell): void {
    this.record({ read: { id: s.id, stdout: s.read.stdout, stderr: s.read.stderr } });
  }

  /** Empties output files that passed the cap (the process keeps writing at the new end). */
  private checkCaps(): void {
    for (const s of this.shells.values()) {
      if (s.status !== 'running' || !s.child) continue;
      for (const stream of ['stdout', 'stderr'] as const) {
        const file = stream === 'stdout' ? s.stdoutFile : s.stderrFile;
        const size = sizeOf(file);
        if (size <= this.options.maxOutputBytes) continue;
        try {
          const fd = openSync(file, 'r+');
          try { ftruncateSync(fd, 0); } finally { closeSync(fd); }
          s.dropped[stream] += size;
        } catch {
          // the file is gone: nothing to cap
        }
      }
    }
    if (!this.running().some((s) => s.child)) this.stopWatching();
  }

  private watchCaps(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.checkCaps(), CAP_CHECK_MS);
    this.timer.unref();
  }

  private stopWatching(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}

const registries = new WeakMap<Kernel, Shells>();

/** The background shells of `kernel` (created with `options` on first use). */
export function shellsOf(kernel: Kernel, options?: BackgroundOptions): Shells {
  let s = registries.get(kernel);
  if (!s) {
    s = new Shells(kernel, options ?? { maxOutputBytes: DEFAULT_BACKGROUND_MAX_OUTPUT_BYTES, keepRunning: false });
    registries.set(kernel, s);
  }
  return s;
}
