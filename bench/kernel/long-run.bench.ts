/**
 * Long sessions, as a user runs them (a whole-process harness; needs `npm run build`):
 *   - `rein run --sim` with the `default` preset on the embedded simulator, N small tool turns
 *     (a Read of a 3-line file each; N = REIN_BENCH_TURNS, default 2,000) and N/20 of them: the wall
 *     time of each run, the time of every turn (between consecutive `assistant` lines of
 *     stream-json), the medians of the first and last tenth of the turns, the transcript's size;
 *     and, for a loaded machine, the CPU (user + system) of each run and the CPU per turn over the
 *     first and the last tenth of the turns (from /proc/<pid>/stat at each assistant line);
 *   - `rein run --resume` of that session and of a 10-turn one, against a simulator listening in
 *     this process: the time from spawn to the first request, and the peak RSS at that moment.
 * Targets: last decile ≤ 1.5× the first, transcript ≤ 3 MB, the long run ≤ 25× the short one's wall
 * time (20× the turns), the resume ≤ 10× the 10-turn one's and under 150 MB.
 * With REIN_BENCH_BASE set, every step runs for both checkouts in turn, so both see the same load.
 *
 * The protocol sends the whole history with every request. rein's client keeps the bytes of the
 * messages it sent (lib/model/request-body.ts) and the simulator parses only what changed
 * (simulator/body.ts), so neither serialises nor parses the whole body per turn; what still grows
 * is copying its bytes onto the socket. The last rows time JSON.stringify + JSON.parse of the whole
 * body alone, in this process, on the body the long run sends at turn N/20 (the short run's length)
 * and at its end (built from the 10-turn session's logged requests): what a client and a server
 * that do it in full would add to each turn.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSimulator } from '../../simulator/simulator.js';
import { startSimServer } from '../../simulator/server.js';
import { parseScenario } from '../../simulator/scenario.js';
import { projectSlug } from '../../lib/session/transcript.js';
import { checkouts, deciles, isBuilt, median, peakRssMb, runRein, type Checkout, benchTempDir } from './harness.js';
import type { BenchContext, Measurement } from './run.js';
import { cpuTimes } from '../shared/proc.js';

const TURNS = Number(process.env.REIN_BENCH_TURNS ?? 2_000);
const SHORT = Math.max(1, Math.round(TURNS / 20));
/** Resumes measured per session (the median is reported). */
const RESUMES = 5;
/** Short runs per checkout (the median is reported). */
const SHORT_RUNS = 3;

/** A scenario of `n` tool turns (Read of notes.txt), then an answer. */
function scenario(n: number): string {
  let out = 'turns:\n';
  for (let i = 1; i <= n; i++) out += `  - reply: [{ text: "Reading the notes again (step ${i})." }, { tool_use: { name: Read, input: { file_path: notes.txt } } }]\n`;
  return out + '  - reply: [{ text: "Done." }]\n';
}

/**
 * The body the long run sends after `turns` tool turns, built from the last body of the 10-turn
 * session (its system, tools, preamble messages and one turn's pair, with the step and ids of
 * each turn, and the markers on the last two user messages as the default preset places them).
 */
function bodyAt(last: Record<string, any>, turns: number): Record<string, any> {
  const messages: any[] = last.messages;
  const preamble = messages.slice(0, 2);
  const strip = (m: any) => ({ ...m, content: m.content.map(({ cache_control: _c, ...b }: any) => b) });
  const pair = JSON.stringify([strip(messages[2]), strip(messages[3])]);
  const out: any[] = [...preamble];
  for (let i = 1; i <= turns; i++) {
    out.push(...JSON.parse(pair.replaceAll('(step 1)', `(step ${i})`).replaceAll('toolu_sim_0001_1', `toolu_sim_${String(i).padStart(4, '0')}_1`)));
  }
  const marker = messages[messages.length - 1].content.at(-1).cache_control;
  for (const at of [out.length - 1, out.length - 3]) {
    const m = out[at];
    out[at] = { ...m, content: [...m.content.slice(0, -1), { ...m.content.at(-1), cache_control: marker }] };
  }
  return { ...last, messages: out };
}

/** Median CPU (user + system) of `reps` runs of `f`, ms: CPU rather than wall, so a loaded machine's waits for a core do not count. */
function timeIt(f: () => unknown, reps = 15): number {
  const out: number[] = [];
  for (let i = 0; i < reps; i++) {
    const t = process.cpuUsage();
    f();
    const d = process.cpuUsage(t);
    out.push((d.user + d.system) / 1000);
  }
  return median(out);
}

/** User + system CPU of a running process so far, ms (Linux /proc; NaN elsewhere or when it is gone). */
function cpuMsOf(pid: number): number {
  try {
    const t = cpuTimes(`/proc/${pid}/stat`);
    return (t.user + t.system) * 1000;
  } catch {
    return NaN;
  }
}

/** CPU per turn over the first and the last tenth of the turns, ms: whole tenths, so the 10 ms ticks do not matter. */
function cpuDeciles(cpuAt: readonly number[]): { first: number; last: number } {
  const n = Math.max(1, Math.floor(cpuAt.length / 10));
  const k = cpuAt.length - 1;
  return { first: (cpuAt[n]! - cpuAt[0]!) / n, last: (cpuAt[k]! - cpuAt[k - n]!) / n };
}

interface SessionRun {
  wallMs: number;
  /** User + system CPU of the whole run, ms. */
  cpuMs: number;
  /** The process's CPU so far at each turn's assistant line, ms. */
  cpuAt: number[];
  sessionId: string;
  transcriptMb: number;
  turnMs: number[];
}

export async function measure(ctx: BenchContext): Promise<Measurement[]> {
  const arms = checkouts(ctx).filter((c) => {
    if (isBuilt(c.root)) return true;
    console.warn(`long-run bench: ${c.root} is not built; run \`npm run build\` there first`);
    return false;
  });
  if (!arms.length) return [];
  const root = benchTempDir('rein-long-run-');
  const cwd = join(root, 'work');
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'notes.txt'), 'one\ntwo\nthree\n');
  for (const n of [10, SHORT, TURNS]) writeFileSync(join(root, `s${n}.yaml`), scenario(n));

  const homeOf = (arm: Checkout) => join(root, `home${arm.suffix ? '-base' : ''}`);
  const envOf = (arm: Checkout): NodeJS.ProcessEnv => {
    const env: NodeJS.ProcessEnv = { ...process.env, REIN_HOME: homeOf(arm) };
    delete env.ANTHROPIC_API_KEY;
    delete env.ANTHROPIC_BASE_URL;
    return env;
  };
  const simLog = join(root, 'sim-10.jsonl');
  const session = async (arm: Checkout, n: number, log?: string): Promise<SessionRun> => {
    let sessionId = '';
    let last: number | undefined;
    const turnMs: number[] = [];
    const cpuAt: number[] = [];
    let pid = 0;
    const r = await runRein(arm.root, ['run', '--sim', join(root, `s${n}.yaml`), '--preset', 'default', '--no-layers', '--max-turns', String(n + 10), '--output-format', 'stream-json', '-p', 'Read the notes until you are done.'], {
      cwd, env: { ...envOf(arm), ...(log ? { REIN_SIM_LOG: log } : {}) }, keepLines: false, onSpawn: (p) => { pid = p; },
      onLine: (text, at) => {
        if (text.startsWith('{"type":"assistant"')) {
          if (last !== undefined) turnMs.push(at - last);
          cpuAt.push(cpuMsOf(pid));
          last = at;
        } else if (text.startsWith('{"type":"result"')) {
          sessionId = (JSON.parse(text) as { session_id: string }).session_id;
        }
      },
    });
    if (r.code !== 0 || !sessionId) throw new Error(`rein run (${n} turns, ${arm.root}) failed with ${r.code}: ${r.stderr.slice(-2000)}`);
    const transcript = join(homeOf(arm), 'sessions', projectSlug(cwd), `${sessionId}.jsonl`);
    return { wallMs: r.wallMs, cpuMs: r.cpuMs, cpuAt, sessionId, transcriptMb: statSync(transcript).size / 1e6, turnMs };
  };

  // Short runs and the long run, each step for every checkout before the next step.
  const shortWall = new Map<Checkout, number[]>(arms.map((a) => [a, []]));
  const shortCpu = new Map<Checkout, number[]>(arms.map((a) => [a, []]));
  const small = new Map<Checkout, SessionRun>();
  const long = new Map<Checkout, SessionRun>();
  for (let i = 0; i < SHORT_RUNS; i++) {
    for (const a of arms) {
      const r = await session(a, SHORT);
      shortWall.get(a)!.push(r.wallMs);
      shortCpu.get(a)!.push(r.cpuMs);
    }
  }
  for (const a of arms) small.set(a, await session(a, 10, a === arms[0] ? simLog : undefined));
  for (const a of arms) {
    console.error(`long-run bench: ${TURNS} turns with ${a.root} ...`);
    long.set(a, await session(a, TURNS));
  }

  // Resumes against a simulator in this process: the first request's arrival ends the measurement.
  let arrived: (() => void) | undefined;
  const simulator = createSimulator({ scenario: parseScenario('turns:\n' + '  - reply: [{ text: "ok" }]\n'.repeat(1_000)) });
  const handle = simulator.handle.bind(simulator);
  simulator.handle = (body, o) => { arrived?.(); return handle(body, o); };
  const server = await startSimServer({ simulator, port: 0 });
  const resumeOnce = async (arm: Checkout, id: string): Promise<{ ms: number; rssMb: number }> => {
    let pid = 0;
    let at = NaN;
    let rss = NaN;
    const t0 = performance.now();
    const first = new Promise<void>((done) => { arrived = done; });
    const run = runRein(arm.root, ['run', '--resume', id, '-p', 'continue', '--no-layers', '--output-format', 'json'], {
      cwd, env: { ...envOf(arm), ANTHROPIC_BASE_URL: server.url }, keepLines: false, onSpawn: (p) => { pid = p; },
    });
    await Promise.race([first.then(() => { at = performance.now() - t0; rss = peakRssMb(pid); }), run]);
    const r = await run;
    if (r.code !== 0 || Number.isNaN(at)) throw new Error(`rein run --resume ${id} failed with ${r.code}: ${r.stderr.slice(-2000)}`);
    return { ms: at, rssMb: Number.isNaN(rss) ? r.maxRssMb : rss };
  };
  const resumes = new Map<string, { ms: number[]; rssMb: number[] }>();
  try {
    for (let i = 0; i < RESUMES; i++) {
      for (const a of arms) {
        for (const [label, s] of [['10', small.get(a)!], ['long', long.get(a)!]] as const) {
          const key = `${label}${a.suffix}`;
          const r = await resumeOnce(a, s.sessionId);
          const into = resumes.get(key) ?? { ms: [], rssMb: [] };
          into.ms.push(r.ms);
          into.rssMb.push(r.rssMb);
          resumes.set(key, into);
        }
      }
    }
  } finally {
    await server.close();
  }

  const rows: Measurement[] = [];
  for (const a of arms) {
    const s = a.suffix;
    const l = long.get(a)!;
    const d = deciles(l.turnMs);
    const c = cpuDeciles(l.cpuAt);
    const shortMs = median(shortWall.get(a)!);
    const shortCpuMs = median(shortCpu.get(a)!);
    const r10 = resumes.get(`10${s}`)!;
    const rLong = resumes.get(`long${s}`)!;
    rows.push(
      { task: `rein run, ${SHORT} tool turns: wall time${s}`, value: shortMs, unit: 'ms', note: `median of ${SHORT_RUNS}` },
      { task: `rein run, ${TURNS} tool turns: wall time${s}`, value: l.wallMs, unit: 'ms' },
      { task: `rein run: ${TURNS}-turn wall ÷ ${SHORT}-turn wall${s}`, value: l.wallMs / shortMs, unit: '×', note: 'target ≤ 25' },
      { task: `rein run, ${TURNS} turns: median turn, first decile${s}`, value: d.first, unit: 'ms' },
      { task: `rein run, ${TURNS} turns: median turn, last decile${s}`, value: d.last, unit: 'ms' },
      { task: `rein run, ${TURNS} turns: last decile ÷ first decile${s}`, value: d.last / d.first, unit: '×', note: 'target ≤ 1.5' },
      // CPU (user + system) of the rein process, which runs the simulator too: what a loaded machine changes least.
      { task: `rein run: ${TURNS}-turn CPU ÷ ${SHORT}-turn CPU${s}`, value: l.cpuMs / shortCpuMs, unit: '×', note: `${(l.cpuMs / 1000).toFixed(1)} s ÷ ${(shortCpuMs / 1000).toFixed(2)} s` },
      { task: `rein run, ${TURNS} turns: CPU per turn, first tenth${s}`, value: c.first, unit: 'ms' },
      { task: `rein run, ${TURNS} turns: CPU per turn, last tenth${s}`, value: c.last, unit: 'ms' },
      { task: `rein run, ${TURNS} turns: CPU per turn, last tenth ÷ first tenth${s}`, value: c.last / c.first, unit: '×' },
      { task: `rein run, ${TURNS} turns: transcript size${s}`, value: l.transcriptMb, unit: 'MB', note: 'target ≤ 3' },
      { task: `--resume, 10-turn session → first request${s}`, value: median(r10.ms), unit: 'ms', note: `median of ${RESUMES}` },
      { task: `--resume, ${TURNS}-turn session → first request${s}`, value: median(rLong.ms), unit: 'ms', note: `median of ${RESUMES}` },
      { task: `--resume: ${TURNS}-turn ÷ 10-turn${s}`, value: median(rLong.ms) / median(r10.ms), unit: '×', note: 'target ≤ 10' },
      { task: `--resume, ${TURNS}-turn session: peak RSS at the first request${s}`, value: median(rLong.rssMb), unit: 'MB', note: 'target < 150' },
    );
  }

  // The protocol's own growth: JSON.stringify and JSON.parse of the body at turn N/20 and at turn N.
  const logged = readFileSync(simLog, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { headers?: Record<string, string>; body: Record<string, any> });
  const lastBody = logged.filter((l) => l.headers?.['x-rein-source'] === 'main_loop').at(-1)!.body;
  const early = SHORT;
  const floor = [early, TURNS].map((n) => {
    const body = bodyAt(lastBody, n);
    const text = JSON.stringify(body);
    return { n, mb: Buffer.byteLength(text) / 1e6, ms: timeIt(() => JSON.stringify(body)) + timeIt(() => JSON.parse(text)) };
  });
  rows.push(
    ...floor.map((f) => ({ task: `protocol alone: JSON.stringify + JSON.parse of the body at turn ${f.n} (${f.mb.toFixed(2)} MB)`, value: f.ms, unit: 'ms', note: 'CPU in this process, median of 15' })),
    { task: `protocol alone: turn ${TURNS} ÷ turn ${early}`, value: floor[1]!.ms / floor[0]!.ms, unit: '×' },
  );
  return rows;
}
