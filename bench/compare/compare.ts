/**
 * `rein bench compare`: one scripted scenario, played by rein's simulator over HTTP, driven once by
 * an agent (an installed CLI, or rein itself) and once per rein preset. Every request is captured
 * from the simulator's log and scored with the same accounting as a replay.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createAgent } from '../../agent/agent.js';
import { createAnthropicClient } from '../../lib/model/anthropic.js';
import type { Scenario } from '../../simulator/scenario.js';
import { startSimServer } from '../../simulator/server.js';
import { createSimulator } from '../../simulator/simulator.js';
import { summarize } from '../metrics/summary.js';
import type { RequestMetrics, RunSummary } from '../metrics/types.js';
import { AGENT_TOOLS, agentCommand, type AgentName } from './agents.js';
import { readCapture, scoreCapture, type FailedRequest } from './score.js';

/** The prompt of the default scenario. */
export const DEFAULT_PROMPT = 'Read notes.txt, then list the files in this folder.';
/** Contents of the default scenario's notes.txt. */
export const NOTES_TEXT = 'hello from the compare scenario\nsecond line\n';
/** Longest an agent run may take, ms. */
export const AGENT_TIMEOUT_MS = 300_000;

/** The default script in an agent's own tool names: read notes.txt, list files, answer. */
export function defaultScenario(agent: AgentName, model: string): Scenario {
  const t = AGENT_TOOLS[agent];
  return {
    model,
    turns: [
      { reply: [{ text: 'I will read the notes first.' }, { tool_use: { name: t.read, input: { [t.readPath]: 'notes.txt' } } }] },
      { reply: [{ text: 'Now the file list.' }, { tool_use: { name: t.shell, input: { command: 'ls' } } }] },
      { reply: [{ text: 'notes.txt says hello; the folder holds notes.txt.' }] },
    ],
  };
}

export interface CompareRun {
  /** `agent:<name>` or the preset label. */
  label: string;
  /** The requests the simulator answered, scored. */
  requests: RequestMetrics[];
  summary: RunSummary;
  /** Bytes of all request bodies (answered or not). */
  bytes: number;
  /** Requests the simulator refused (4xx) or failed (5xx), in order: the API would have refused them too. */
  failedRequests: FailedRequest[];
  /** Why the run failed, when it did (the requests it made before are still scored). */
  error?: string;
}

interface Played { requests: RequestMetrics[]; failedRequests: FailedRequest[]; bytes: number; error?: string }

/** The scratch folders of one run: the agent works in `work`, with `home` as its HOME. */
export interface Scratch {
  /** The folder the run's files live in (removed afterwards). */
  root: string;
  /** The agent's working directory, with the scenario's files. */
  work: string;
  /** HOME, and every XDG base directory under it, so no config, data or cache goes to the user's. */
  home: string;
}

/**
 * Makes the scratch folders of one run under `parent` (default: the system temp directory) and
 * writes the scenario's files into `work`.
 */
export async function makeScratch(parent = tmpdir()): Promise<Scratch> {
  const root = await mkdtemp(join(parent, 'rein-compare-'));
  const scratch = { root, work: join(root, 'work'), home: join(root, 'home') };
  await Promise.all([mkdir(scratch.work), mkdir(scratch.home), mkdir(join(root, 'tmp'))]);
  await writeFile(join(scratch.work, 'notes.txt'), NOTES_TEXT);
  return scratch;
}

/**
 * The environment an agent CLI runs with, on top of the caller's: the scratch folder as its
 * working directory (`PWD` too: opencode takes its project from `$PWD`, which a child otherwise
 * inherits from the shell rein was started in), HOME and the XDG base directories, and TMPDIR,
 * all inside the scratch folder.
 */
export function scratchEnv(s: Scratch): Record<string, string> {
  return {
    PWD: s.work,
    HOME: s.home,
    XDG_CONFIG_HOME: join(s.home, '.config'),
    XDG_DATA_HOME: join(s.home, '.local/share'),
    XDG_STATE_HOME: join(s.home, '.local/state'),
    XDG_CACHE_HOME: join(s.home, '.cache'),
    TMPDIR: join(s.root, 'tmp'),
  };
}

/** Starts a simulator server for `scenario`, runs `drive` in fresh scratch folders, and scores what it sent. */
async function play(scenario: Scenario, drive: (url: string, scratch: Scratch) => Promise<void>): Promise<Played> {
  const scratch = await makeScratch();
  const log = join(scratch.root, 'requests.jsonl');
  const server = await startSimServer({ simulator: createSimulator({ scenario }), port: 0, log });
  let error: string | undefined;
  try {
    await drive(server.url, scratch);
  } catch (err) {
    error = (err as Error).message;
  } finally {
    await server.close();
  }
  const { answered, failed } = await readCapture(log);
  await rm(scratch.root, { recursive: true, force: true });
  const bytes = [...answered, ...failed].reduce((n, c) => n + c.bytes, 0);
  return { requests: scoreCapture(answered), failedRequests: failed, bytes, ...(error ? { error } : {}) };
}

/**
 * Runs rein with `preset` on the scenario's prompt, through the real SDK against the server, in
 * the scratch folder (its transcript too), with `model` instead of the preset's.
 */
async function driveRein(preset: string, o: { prompt: string; model: string; url: string; scratch: Scratch; cwd: string }): Promise<void> {
  const agent = await createAgent({
    // A path is resolved here: the agent's own working directory is the scenario's scratch folder.
    preset: /[\\/]|\.ya?ml$/.test(preset) ? resolve(o.cwd, preset) : preset,
    cwd: o.scratch.work,
    layers: false,
    overrides: { model: { name: o.model }, session: { dir: join(o.scratch.home, 'sessions') } },
    client: createAnthropicClient({ apiKey: 'sk-rein-simulator', baseURL: o.url, kind: 'simulator' }),
    canUseTool: () => ({ behavior: 'allow' }),
  });
  try {
    await agent.run(o.prompt).result;
  } finally {
    await agent.close();
  }
}

/** Most characters of an agent's own output kept for its error message. */
const OUTPUT_TAIL_CHARS = 4000;
/** Most lines of it shown. */
const OUTPUT_TAIL_LINES = 15;

/**
 * What a failed agent said about it: its stderr, and its stdout, whose last line is often a JSON
 * result (`claude -p --output-format json` prints `{ is_error: true, result: "API Error: ..." }`).
 */
export function agentOutput(stdout: string, stderr: string): string {
  const parts: string[] = [];
  const last = stdout.trim().split('\n').at(-1) ?? '';
  let result: string | undefined;
  try {
    const r = JSON.parse(last) as { type?: string; result?: unknown; is_error?: boolean };
    if (r && r.type === 'result' && typeof r.result === 'string') result = r.result;
  } catch {
    // Not a JSON result: shown as text below.
  }
  const tail = (s: string) => s.trim().split('\n').slice(-OUTPUT_TAIL_LINES).join('\n');
  if (stderr.trim()) parts.push(tail(stderr));
  if (result !== undefined) parts.push(tail(result));
  else if (stdout.trim()) parts.push(tail(stdout));
  return parts.join('\n');
}

/** Spawns an agent CLI and waits for it (rejects on a missing binary, a non-zero exit or the timeout). */
function runCli(cmd: { bin: string; args: string[]; env: Record<string, string> }, scratch: Scratch): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd.bin, cmd.args, { cwd: scratch.work, env: { ...process.env, ...cmd.env, ...scratchEnv(scratch) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout = (stdout + d.toString()).slice(-OUTPUT_TAIL_CHARS); });
    child.stderr.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-OUTPUT_TAIL_CHARS); });
    const timer = setTimeout(() => { child.kill('SIGTERM'); reject(new Error(`${cmd.bin} did not finish within ${AGENT_TIMEOUT_MS / 1000} s`)); }, AGENT_TIMEOUT_MS);
    child.on('error', (err) => {
      clearTimeout(timer);
      // A name is looked up on PATH; a path (--bin) is taken as it is.
      reject((err as NodeJS.ErrnoException).code === 'ENOENT' ? new Error(cmd.bin.includes('/') ? `${cmd.bin} does not exist (--bin)` : `${cmd.bin} is not installed (not found on PATH); pass --bin`) : err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve();
      const said = agentOutput(stdout, stderr);
      reject(new Error(`${cmd.bin} exited with ${code === null ? `signal ${signal}` : `code ${code}`}${said ? `; its output:\n${said.split('\n').map((l) => `    ${l}`).join('\n')}` : ' and printed nothing'}`));
    });
  });
}

/** The preset rein's side of a comparison runs when none is named: what `rein run` uses. */
export const DEFAULT_COMPARE_PRESETS = ['default'];

export interface CompareOptions {
  agent: AgentName;
  /** Scenario the agent plays (default: the read-then-list script in its own tool names). */
  scenario?: Scenario;
  /**
   * Scenario rein's presets play (their tool names may differ from the agent's). Default: the
   * agent's `scenario` when given, else the default script in rein's tool names.
   */
  reinScenario?: Scenario;
  prompt?: string;
  /** rein presets to score beside the agent (default: DEFAULT_COMPARE_PRESETS). */
  presets?: string[];
  /** The agent's executable. */
  bin?: string;
  /** The model the agent and every preset are asked to use. */
  model: string;
  /** Directory relative preset paths are resolved from. */
  cwd: string;
}

/** Runs the comparison; one CompareRun for the agent, then one per preset. */
export async function runCompare(o: CompareOptions): Promise<CompareRun[]> {
  const prompt = o.prompt ?? DEFAULT_PROMPT;
  const presets = o.presets?.length ? o.presets : DEFAULT_COMPARE_PRESETS;
  const out: CompareRun[] = [];
  const record = (label: string, p: Played) => out.push({ label, requests: p.requests, summary: summarize(p.requests), bytes: p.bytes, failedRequests: p.failedRequests, ...(p.error ? { error: p.error } : {}) });
  const agentScenario = o.scenario ?? defaultScenario(o.agent, o.model);
  const rein = (preset: string) => (url: string, scratch: Scratch) => driveRein(preset, { prompt, model: o.model, url, scratch, cwd: o.cwd });
  if (o.agent === 'rein') {
    record('agent:rein', await play(agentScenario, rein(presets[0]!)));
  } else {
    const agent = o.agent;
    record(`agent:${agent}`, await play(agentScenario, async (url, scratch) => runCli(await agentCommand(agent, { bin: o.bin, prompt, model: o.model, baseURL: url, workdir: scratch.work, home: scratch.home }), scratch)));
  }
  const reinScenario = o.reinScenario ?? o.scenario ?? defaultScenario('rein', o.model);
  for (const preset of presets) record(preset, await play(reinScenario, rein(preset)));
  return out;
}
