/**
 * Test helpers for kernel-level tests: temp directories, the simulator served on loopback with a
 * scenario written as YAML, kernels wired to it through the real SDK, and the `rein` CLI run as a
 * real process.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  type Kernel, type KernelPreset, type Plugin, type AgentEvent,
  type RunResult,
} from '../kernel/index.js';
import { createKernel } from '../agent/kernel.js';
import { createAnthropicClient } from '../lib/index.js';
import { parseScenario } from '../simulator/scenario.js';
import { createSimulator, type Simulator } from '../simulator/simulator.js';
import { startSimServer, type SimServer } from '../simulator/server.js';
import { subagents } from '../agent/agent.js';
import { reinRoot } from '../agent/preset/paths.js';

/** Child agents for kernels made with `createKernel()` in tests (the Task tool): `createAgent()`'s own factory. */
export { subagents };

/** rein's own folder (the one with its package.json), from source and from an installed package alike. */
export const REPO = reinRoot();

/** A fresh temp directory; `cleanup()` removes it. */
export function tempDir(prefix = 'rein-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface SimHarness {
  server: SimServer;
  simulator: Simulator;
  /** Request bodies the server received, in order (from its log). */
  requests(): { body: Record<string, any>; headers: Record<string, string> }[];
  close(): Promise<void>;
}

/** Serves a scenario (YAML text) on 127.0.0.1 with request logging. */
export async function serveScenario(yaml: string, logDir: string): Promise<SimHarness> {
  const simulator = createSimulator({ scenario: parseScenario(yaml, 'test.yaml') });
  const log = join(logDir, `requests-${Math.random().toString(36).slice(2)}.jsonl`);
  const server = await startSimServer({ simulator, port: 0, log });
  return {
    server,
    simulator,
    requests: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((e) => String(e.path ?? '').startsWith('/v1/messages') && !String(e.path).includes('count_tokens')) : []),
    close: () => server.close(),
  };
}

/** A kernel talking to `harness` through the real SDK, with `plugins` loaded. */
export async function simKernel(harness: SimHarness, opts: {
  preset?: KernelPreset; cwd: string; plugins?: { plugin: Plugin; options?: unknown }[]; resume?: string; streamIdleTimeoutMs?: number;
}): Promise<Kernel> {
  const client = createAnthropicClient({ baseURL: harness.server.url, apiKey: 'test', kind: 'simulator' });
  return createKernel({
    preset: opts.preset ?? { model: { name: 'claude-sonnet-4-6' } },
    cwd: opts.cwd,
    client,
    plugins: opts.plugins ?? [],
    resume: opts.resume,
    streamIdleTimeoutMs: opts.streamIdleTimeoutMs,
    subagents,
  });
}

/** Runs one prompt and collects every event and the result. */
export async function collect(kernel: Kernel, prompt: string, signal?: AbortSignal): Promise<{ events: AgentEvent[]; result: RunResult }> {
  const events: AgentEvent[] = [];
  const run = kernel.run({ prompt, signal });
  for await (const e of run) events.push(e);
  return { events, result: await run.result };
}

/** The transitions of a run, as `kind:reason` strings. */
export function transitions(events: AgentEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'transition' ? [`${e.transition.kind}:${e.transition.reason}`] : []));
}

export interface CliResult { code: number | null; stdout: string; stderr: string }

/** The built `rein` command (the suites' global setup builds it when the sources changed). */
export const REIN_BIN = join(REPO, 'bin/rein.js');

/**
 * Runs the `rein` command as a real process: bin/rein.js, what users run (started from TypeScript
 * source, a run would spend seconds compiling). `input` is written to stdin.
 */
export function runCli(args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number }): Promise<CliResult> {
  return runNode([REIN_BIN], args, opts);
}

/** `runCli` under the name the shell and Claude Code tests use: the built command, bin/rein.js. */
export const runBuilt = runCli;

/** Runs `node <entry...> <args...>`, collecting its output; kills it after `timeoutMs` (default 60 s). */
function runNode(entry: string[], args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number }): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [...entry, ...args], { cwd: opts.cwd, env: { ...cleanEnv(), ...opts.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`rein ${args.join(' ')} timed out\nstderr: ${stderr}`)); }, opts.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => { clearTimeout(timer); resolvePromise({ code, stdout, stderr }); });
    child.stdin.end(opts.input ?? '');
  });
}

/**
 * Runs a program to its end and collects its output: the built `rein` (`node bin/rein.js`), a
 * shell script. `input` is written to stdin (closed at once without it).
 */
export function runProgram(command: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; input?: string }): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: opts.cwd, env: opts.env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
    child.stdin.end(opts.input ?? '');
  });
}

/** The environment without anything that would send a test to the real API. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.ANTHROPIC_API_KEY;
  delete env.ANTHROPIC_BASE_URL;
  delete env.ANTHROPIC_AUTH_TOKEN;
  delete env.ANTHROPIC_MODEL;
  // A proxy of the machine's would stand between a test and its loopback simulator.
  for (const name of ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'http_proxy', 'https_proxy', 'no_proxy']) delete env[name];
  return env;
}

/** Writes files (relative path → content) under `dir`, creating their folders. */
export function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [p, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, p)), { recursive: true });
    writeFileSync(join(dir, p), content);
  }
}
