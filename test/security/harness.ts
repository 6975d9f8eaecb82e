/**
 * Runs attack corpora through `rein run` (the built command, bin/rein.js) on the embedded
 * simulator: a scripted turn makes every call of a corpus at once, rein decides and runs them
 * with real files, symlinks and bash, and the stream-json output says which calls were denied
 * (with their reasons) and what every tool result said to the model.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, REPO } from '../../testing/support.js';

/** One tool call of a corpus. `id` is its tool_use id (`toolu_…`). */
export interface Call { id: string; name: string; input: Record<string, unknown> }

export interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Denied calls: tool_use id → reason. */
  denials: Map<string, string>;
  /** Every tool_result the model got: tool_use id → its text and error flag. */
  results: Map<string, { text: string; isError: boolean }>;
}

/** A sandbox: `proj` (the working directory), `outside` next to it, `home` (HOME for the run). */
export interface Sandbox { root: string; proj: string; outside: string; home: string; cleanup(): void }

export function sandbox(): Sandbox {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'rein-sec-')));
  const s = { root, proj: join(root, 'proj'), outside: join(root, 'outside'), home: join(root, 'home') };
  for (const d of [s.proj, s.outside, s.home]) mkdirSync(d, { recursive: true });
  return { ...s, cleanup: () => rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }) };
}

/** The scenario: one turn with every call (each with its own id), then a closing reply, or `turns` as given. */
export function scenario(turns: Call[][], finalText = 'Done.'): string {
  const t = turns.map((calls) => ({ reply: [{ text: 'Working on it.' }, ...calls.map((c) => ({ tool_use: { name: c.name, input: c.input, id: c.id } }))] }));
  return JSON.stringify({ turns: [...t, { reply: [{ text: finalText }] }] });
}

/** Runs rein in `s.proj` with `preset` (YAML text) and the calls, turn by turn. */
export function reinRun(s: Sandbox, preset: string, turns: Call[][], opts: { args?: string[]; env?: NodeJS.ProcessEnv; finalText?: string; format?: 'stream-json' | 'text' } = {}): Promise<Outcome> {
  writeFileSync(join(s.proj, 'agent.yaml'), preset);
  writeFileSync(join(s.proj, 'scenario.yaml'), scenario(turns, opts.finalText));
  const args = [join(REPO, 'bin/rein.js'), 'run', '-p', 'go', '--sim', 'scenario.yaml', '--preset', './agent.yaml', '--no-layers', '--output-format', opts.format ?? 'stream-json', ...(opts.args ?? [])];
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: s.proj,
      env: { ...cleanEnv(), REIN_HOME: join(s.root, 'rein-home'), HOME: s.home, XDG_CONFIG_HOME: join(s.home, '.config'), ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const timer = setTimeout(() => { child.kill('SIGKILL'); reject(new Error(`rein run timed out\n${stderr}`)); }, 240_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ...parseStream(stdout) });
    });
  });
}

function parseStream(stdout: string): Pick<Outcome, 'denials' | 'results'> {
  const denials = new Map<string, string>();
  const results = new Map<string, { text: string; isError: boolean }>();
  for (const line of stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const e = JSON.parse(line) as Record<string, any>;
    // The Agent SDK's SDKPermissionDeniedMessage: the rule or check that denied it is `decision_reason`.
    if (e.type === 'system' && e.subtype === 'permission_denied') denials.set(e.tool_use_id, e.decision_reason);
    if (e.type === 'user') {
      for (const b of e.message.content ?? []) {
        if (b.type !== 'tool_result') continue;
        const text = typeof b.content === 'string' ? b.content : (b.content ?? []).map((c: { type: string; text?: string }) => c.text ?? `[${c.type}]`).join('\n');
        results.set(b.tool_use_id, { text, isError: b.is_error === true });
      }
    }
  }
  return { denials, results };
}

/** `name`, `name2`, … as tool_use ids. */
export function ids(prefix: string, calls: { name: string; input: Record<string, unknown> }[]): Call[] {
  return calls.map((c, i) => ({ ...c, id: `toolu_${prefix}_${String(i + 1).padStart(2, '0')}` }));
}

/** Every result text the model got, joined (to check that a secret never reached it). */
export function allText(o: Outcome): string {
  return [...o.results.values()].map((r) => r.text).join('\n');
}
