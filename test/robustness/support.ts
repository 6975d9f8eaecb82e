/**
 * Helpers for the robustness tests: the built `rein` command (bin/rein.js) as a real process, with
 * its output collected and signals sent to it; the session files a run leaves; plugin files in a
 * test's project that load rein and zod from this repository.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { cleanEnv, REPO } from '../../testing/support.js';

/** The published command. */
export const BIN = join(REPO, 'bin/rein.js');

/** A preset with every built-in tool whose Bash calls run without asking (headless tests). */
export const BASH_PRESET = 'extends: default\npermissions: { mode: bypassPermissions, allowBypassPermissions: true }\n';

/** Turn 1 runs a small command; turn 2's reply (40 KB) is more than the transcript can take. */
export const OVERFLOW_SCENARIO = `
turns:
  - reply: [{ tool_use: { name: Bash, input: { command: "echo one >> side.txt" } } }]
  - reply: [{ text: "${'x'.repeat(40_000)}" }, { tool_use: { name: Bash, input: { command: "echo two >> side.txt" } } }]
  - reply: [{ text: "done" }]
`;

/** `import` lines for a plugin file: rein's built kernel and this repository's zod. */
export const PLUGIN_IMPORTS = [
  `import { z } from '${pathToFileURL(join(REPO, 'node_modules/zod/index.js')).href}';`,
  `import { definePlugin, defineTool } from '${pathToFileURL(join(REPO, 'dist/index.js')).href}';`,
].join('\n');

export interface Running {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when stdout or stderr (or a file, checked every 20 ms) has matched. */
  waitFor(what: RegExp | { file: string; match: RegExp }, timeoutMs?: number): Promise<void>;
  /** Exit code and signal. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface StartOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  /** Shell commands run before rein (in the same bash, which then execs rein): `ulimit -f 24`. */
  shell?: string;
}

/** Starts `rein ARGS` in `cwd` with a clean environment plus `env`. */
export function startRein(args: string[], opts: StartOptions): Running {
  const options = { cwd: opts.cwd, env: { ...cleanEnv(), ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] as ('pipe')[] };
  const child = opts.shell
    ? spawn('bash', ['-c', `${opts.shell}\nexec "$0" "$@"`, process.execPath, BIN, ...args], options)
    : spawn(process.execPath, [BIN, ...args], options);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d) => { out += d; });
  child.stderr!.on('data', (d) => { err += d; });
  child.stdin!.on('error', () => undefined);
  child.stdin!.end(opts.input ?? '');
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  const waitFor = (what: RegExp | { file: string; match: RegExp }, timeoutMs = 30_000) => new Promise<void>((resolve, reject) => {
    const started = Date.now();
    let done = false;
    const check = () => {
      if (done) return;
      const hit = what instanceof RegExp
        ? what.test(out) || what.test(err)
        : existsSync(what.file) && what.match.test(readFileSync(what.file, 'utf8'));
      if (hit) { done = true; clearInterval(timer); resolve(); return; }
      if (Date.now() - started > timeoutMs) { done = true; clearInterval(timer); reject(new Error(`waited ${timeoutMs} ms for ${String(what instanceof RegExp ? what : what.match)}\nstdout: ${out}\nstderr: ${err}`)); }
    };
    const timer = setInterval(check, 20);
    void exited.then(() => setTimeout(() => {
      check();
      if (!done) { done = true; clearInterval(timer); reject(new Error(`rein exited before ${String(what instanceof RegExp ? what : what.match)}\nstdout: ${out}\nstderr: ${err}`)); }
    }, 50));
  });
  return { child, stdout: () => out, stderr: () => err, waitFor, exited };
}

export interface ReinResult { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }

/** Runs `rein ARGS` to its end (killed after `timeoutMs`). */
export async function rein(args: string[], opts: StartOptions & { timeoutMs?: number }): Promise<ReinResult> {
  const r = startRein(args, opts);
  const timer = setTimeout(() => r.child.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
  const { code, signal } = await r.exited;
  clearTimeout(timer);
  return { code, signal, stdout: r.stdout(), stderr: r.stderr() };
}

/** The folder of the sessions of `cwd` under a REIN_HOME. */
export function projectDir(home: string, cwd: string): string {
  return join(home, 'sessions', cwd.replace(/[^A-Za-z0-9]/g, '-'));
}

/** The transcript files (`*.jsonl`) of `cwd`, in directory order. */
export function transcripts(home: string, cwd: string): string[] {
  const dir = projectDir(home, cwd);
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.jsonl')).map((f) => join(dir, f)) : [];
}

/** The entries of a transcript file (every line must parse). */
export function entries(file: string): Record<string, any>[] {
  return readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, any>);
}

/** The terminal transitions of a transcript, as `reason` strings. */
export function terminals(file: string): string[] {
  return entries(file).filter((e) => e.type === 'transition' && e.transition.kind === 'terminal').map((e) => e.transition.reason as string);
}

/** The stream-json lines of a run's stdout. */
export function streamLines(stdout: string): Record<string, any>[] {
  return stdout.split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as Record<string, any>);
}

/** Writes `files` (path → text) under `dir`. */
export function write(dir: string, files: Record<string, string>): void {
  for (const [p, text] of Object.entries(files)) writeFileSync(join(dir, p), text);
}
