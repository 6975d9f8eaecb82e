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
import { createAnthropicClient } from '../../kernel/model/anthropic.js';
import type { Scenario } from '../../simulator/scenario.js';
import { startSimServer } from '../../simulator/server.js';
import { createSimulator } from '../../simulator/simulator.js';
import { summarize } from '../metrics/summary.js';
import type { RequestMetrics, RunSummary } from '../metrics/types.js';
import { AGENT_TOOLS, agentCommand, type AgentName } from './agents.js';
import { readCapture, scoreCapture } from './score.js';

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
  requests: RequestMetrics[];
  summary: RunSummary;
  /** Bytes of all request bodies. */
  bytes: number;
  /** Why the run failed, when it did (the requests it made before are still scored). */
  error?: string;
}

interface Played { requests: RequestMetrics[]; bytes: number; error?: string }

/** Starts a simulator server for `scenario`, runs `drive(url, workdir)`, and scores what it sent. */
async function play(scenario: Scenario, drive: (url: string, workdir: string, home: string) => Promise<void>): Promise<Played> {
  const dir = await mkdtemp(join(tmpdir(), 'rein-compare-'));
  const workdir = join(dir, 'work');
  const home = join(dir, 'home');
  await Promise.all([mkdir(workdir), mkdir(home)]);
  await writeFile(join(workdir, 'notes.txt'), NOTES_TEXT);
  const log = join(dir, 'requests.jsonl');
  const server = await startSimServer({ simulator: createSimulator({ scenario }), port: 0, log });
  let error: string | undefined;
  try {
    await drive(server.url, workdir, home);
  } catch (err) {
    error = (err as Error).message;
  } finally {
    await server.close();
  }
  const captured = await readCapture(log);
  await rm(dir, { recursive: true, force: true });
  return { requests: scoreCapture(captured), bytes: captured.reduce((n, c) => n + c.bytes, 0), ...(error ? { error } : {}) };
}

/** Runs rein with `preset` on the scenario's prompt, through the real SDK against the server. */
async function driveRein(preset: string, prompt: string, url: string, workdir: string, cwd: string): Promise<void> {
  const agent = await createAgent({
    // A path is resolved here: the agent's own working directory is the scenario's scratch folder.
    preset: /[\\/]|\.ya?ml$/.test(preset) ? resolve(cwd, preset) : preset,
    cwd: workdir,
    layers: false,
    client: createAnthropicClient({ apiKey: 'sk-rein-simulator', baseURL: url, kind: 'simulator' }),
    canUseTool: () => ({ behavior: 'allow' }),
  });
  try {
    await agent.run(prompt).result;
  } finally {
    await agent.close();
  }
}

/** Spawns an agent CLI and waits for it (rejects on a missing binary, a non-zero exit or the timeout). */
function runCli(cmd: { bin: string; args: string[]; env: Record<string, string> }, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd.bin, cmd.args, { cwd, env: { ...process.env, ...cmd.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-2000); });
    child.stdout.resume();
    const timer = setTimeout(() => { child.kill('SIGTERM'); reject(new Error(`${cmd.bin} did not finish within ${AGENT_TIMEOUT_MS / 1000} s`)); }, AGENT_TIMEOUT_MS);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject((err as NodeJS.ErrnoException).code === 'ENOENT' ? new Error(`${cmd.bin} is not installed (not found on PATH); pass --bin`) : err);
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${cmd.bin} exited with code ${code}${stderr ? `: ${stderr.trim().split('\n').slice(-3).join(' ')}` : ''}`));
    });
  });
}

export interface CompareOptions {
  agent: AgentName;
  /** Scenario to play (default: the read-then-list script in each driver's tool names). */
  scenario?: Scenario;
  prompt?: string;
  /** rein presets to score beside the agent. */
  presets: string[];
  /** The agent's executable. */
  bin?: string;
  model: string;
  /** Directory relative preset paths are resolved from. */
  cwd: string;
}

/** Runs the comparison; one CompareRun for the agent, then one per preset. */
export async function runCompare(o: CompareOptions): Promise<CompareRun[]> {
  const prompt = o.prompt ?? DEFAULT_PROMPT;
  const out: CompareRun[] = [];
  const record = (label: string, p: Played) => out.push({ label, requests: p.requests, summary: summarize(p.requests), bytes: p.bytes, ...(p.error ? { error: p.error } : {}) });
  const agentScenario = o.scenario ?? defaultScenario(o.agent, o.model);
  if (o.agent === 'rein') {
    record('agent:rein', await play(agentScenario, (url, workdir) => driveRein(o.presets[0] ?? 'minimal', prompt, url, workdir, o.cwd)));
  } else {
    const agent = o.agent;
    record(`agent:${agent}`, await play(agentScenario, async (url, workdir, home) => runCli(await agentCommand(agent, { bin: o.bin, prompt, model: o.model, baseURL: url, workdir, home }), workdir)));
  }
  const reinScenario = o.scenario ?? defaultScenario('rein', o.model);
  for (const preset of o.presets) record(preset, await play(reinScenario, (url, workdir) => driveRein(preset, prompt, url, workdir, o.cwd)));
  return out;
}
