/**
 * `npm run bench:crash-safety [-- --kills 50 --turns 30 --seed 1 --keep]`: kills the built `rein run`
 * at random moments with mixed signals (SIGKILL, SIGTERM, SIGINT) during a scripted session whose
 * every turn is a Bash call with a side effect counted in a file, resumes each session to its end,
 * and checks after every session:
 *
 * - every transcript line parses (strict JSON.parse of each line);
 * - no tool ran twice (each call appends its own token to a file: no token twice);
 * - every resumed prefix equals the one sent before the kill: the first main-loop request after a
 *   resume starts with the system, tools and messages of the last request sent before the kill
 *   (`cache_control` markers aside: they move with the conversation's tail by design);
 * - the session ends `end_turn` with a history the API accepts (the simulator refuses an unpaired
 *   tool_use or tool_result with a 400, so an accepted last request proves it);
 * - two `rein run --continue` started at once never corrupt the session: one of them is refused
 *   (exit 2, naming the holder) or they ran one after the other, and the session still resumes.
 *
 * Requests are read from the embedded simulator's log (REIN_SIM_LOG). Prints a summary with the
 * machine's cores and load; exits 1 when any check failed. Whole processes, so it is slow (about
 * 2 to 4 minutes for 50 kills on a loaded 2-core machine): not part of `npm test`.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { prng } from '../workloads/generator.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(REPO, 'bin/rein.js');
const SIGNALS = ['SIGKILL', 'SIGTERM', 'SIGINT'] as const;
type Sig = (typeof SIGNALS)[number];

const { values: args } = parseArgs({
  options: {
    kills: { type: 'string', default: '50' },
    turns: { type: 'string', default: '30' },
    seed: { type: 'string', default: String(Date.now() % 100_000) },
    keep: { type: 'boolean', default: false },
  },
});
const KILLS = Number(args.kills);
const TURNS = Number(args.turns);
const SEED = Number(args.seed);

// The generator's seeded PRNG, so a failing run can be repeated with --seed.
const random = prng(SEED);
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;

/** The scripted session: turn i runs one Bash call that appends `call-i` (after a short sleep, so kills land inside tools too). */
function scenario(turns: number, side: string): string {
  const lines = ['turns:'];
  for (let i = 1; i <= turns; i++) {
    const sleep = (Math.floor(random() * 12) * 0.01).toFixed(2);
    lines.push(`  - reply: [{ text: "Step ${i}." }, { tool_use: { name: Bash, input: { command: "sleep ${sleep}; echo call-${i} >> ${side}" } } }]`);
  }
  lines.push('  - reply: [{ text: "finished" }]');
  // Replies for resumes after the script's end ("continue" once it finished): plain answers.
  for (let i = 0; i < 20; i++) lines.push('  - reply: [{ text: "finished" }]');
  return lines.join('\n') + '\n';
}

const PRESET = 'extends: default\npermissions: { mode: bypassPermissions, allowBypassPermissions: true }\n';

interface Proc { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; killedWith?: Sig; ms: number }

/**
 * When to kill: `afterRequests` main-loop requests in the run's simulator log, then `afterMs` more
 * (so kills land anywhere in a turn: the request, the reply being recorded, the Bash call); or,
 * without `afterRequests`, `afterMs` after the start (start-up included).
 */
interface Kill { sig: Sig; afterMs: number; afterRequests?: number; log?: string }

/** Runs rein; sends `kill.sig` at the moment `kill` says, if it is still running then. */
function runRein(argv: string[], cwd: string, env: NodeJS.ProcessEnv, kill?: Kill): Promise<Proc> {
  return new Promise((done) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [BIN, ...argv], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let killedWith: Sig | undefined;
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    const fire = () => { if (child.exitCode === null && child.signalCode === null) { killedWith = kill!.sig; child.kill(kill!.sig); } };
    let timer: NodeJS.Timeout | undefined;
    let poll: NodeJS.Timeout | undefined;
    if (kill?.afterRequests !== undefined && kill.log) {
      poll = setInterval(() => {
        if (mainRequests(kill.log!).length < kill.afterRequests!) return;
        clearInterval(poll);
        timer = setTimeout(fire, kill.afterMs);
      }, 10);
    } else if (kill) {
      timer = setTimeout(fire, kill.afterMs);
    }
    const guard = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('close', (code, signal) => {
      if (timer) clearTimeout(timer);
      if (poll) clearInterval(poll);
      clearTimeout(guard);
      done({ code, signal, stdout, stderr, killedWith, ms: performance.now() - t0 });
    });
  });
}

type Json = Record<string, any>;

/** Main-loop Messages requests in a simulator log, in order (a line being written is left out). */
function mainRequests(log: string): Json[] {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8').split('\n').filter((l) => l.trim()).flatMap((l) => { try { return [JSON.parse(l) as Json]; } catch { return []; } })
    .filter((e) => e.path === '/v1/messages' || e.path === '/v1/messages?beta=true')
    .filter((e) => (e.headers?.['x-rein-source'] ?? 'main_loop') === 'main_loop')
    .map((e) => e.body as Json);
}

/** A copy without `cache_control` keys. */
function unmarked(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(unmarked);
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => k !== 'cache_control').map(([k, x]) => [k, unmarked(x)]));
  return v;
}
const same = (a: unknown, b: unknown) => JSON.stringify(unmarked(a)) === JSON.stringify(unmarked(b));

/** Why `after` does not extend `before` (system, tools, then messages as a prefix), or undefined. */
function prefixProblem(before: Json, after: Json): string | undefined {
  if (!same(before.system, after.system)) return 'the system prompt differs';
  if (!same(before.tools, after.tools)) return 'the tools differ';
  const n = before.messages.length;
  if (after.messages.length < n) return `the resumed request has ${after.messages.length} messages, fewer than the ${n} sent before`;
  for (let i = 0; i < n; i++) if (!same(before.messages[i], after.messages[i])) return `message ${i} differs`;
  return undefined;
}

interface Stats {
  sessions: number;
  kills: Record<Sig, number>;
  finishedBeforeKill: number;
  resumes: number;
  concurrentPairs: number;
  concurrentRefused: number;
  lostCalls: number;
  prefixChecks: number;
  problems: string[];
}

async function oneSession(root: string, n: number, stats: Stats, wantKills: number, concurrent: boolean): Promise<number> {
  const cwd = join(root, `s${n}`);
  mkdirSync(cwd);
  const side = join(cwd, 'side-effects.txt');
  writeFileSync(join(cwd, 'scenario.yaml'), scenario(TURNS, side));
  writeFileSync(join(cwd, 'p.yaml'), PRESET);
  const home = join(root, 'home');
  const baseEnv = { ...process.env, REIN_HOME: home } as NodeJS.ProcessEnv;
  delete baseEnv.ANTHROPIC_API_KEY;
  delete baseEnv.ANTHROPIC_BASE_URL;
  const problem = (text: string) => stats.problems.push(`session ${n} (seed ${SEED}): ${text}`);
  const sessionFile = () => {
    const dir = join(home, 'sessions', cwd.replace(/[^A-Za-z0-9]/g, '-'));
    const f = existsSync(dir) ? readdirSync(dir).find((x) => x.endsWith('.jsonl')) : undefined;
    return f ? join(dir, f) : undefined;
  };
  let step = 0;
  const logFor = () => join(cwd, `requests-${step++}.jsonl`);
  const common = ['--sim', 'scenario.yaml', '--preset', './p.yaml', '--no-layers', '--output-format', 'stream-json'];

  let kills = 0;
  let started = false;
  let previousLog: string | undefined;
  for (let attempt = 0; attempt < wantKills + 8; attempt++) {
    const log = logFor();
    const env = { ...baseEnv, REIN_SIM_LOG: log };
    const file = sessionFile();
    const argv = !started || !file ? ['run', 'go', ...common] : ['run', 'continue', '--resume', file, ...common];
    if (started && file) stats.resumes++;
    // Most kills at a random point of a random turn; one in five at a random time from the start.
    const kill: Kill | undefined = kills >= wantKills ? undefined
      : random() < 0.2 ? { sig: pick(SIGNALS), afterMs: random() * 1500 }
        : { sig: pick(SIGNALS), afterMs: random() * 150, afterRequests: 1 + Math.floor(random() * 12), log };
    const linesBefore = file ? readFileSync(file, 'utf8').length : 0;
    const p = await runRein(argv, cwd, env, kill);
    const fileAfter = sessionFile();
    const wrote = fileAfter ? readFileSync(fileAfter, 'utf8').length !== linesBefore : false;
    started = true;
    // The first request after a resume extends the last one sent before the kill.
    if (previousLog) {
      const before = mainRequests(previousLog).at(-1);
      const after = mainRequests(log)[0];
      if (before && after) {
        stats.prefixChecks++;
        const why = prefixProblem(before, after);
        if (why) problem(`resumed request does not extend the one before the kill: ${why}`);
      }
    }
    if (p.killedWith) {
      kills++;
      stats.kills[p.killedWith]++;
      previousLog = log;
      const expected = p.killedWith === 'SIGKILL' ? null : p.killedWith === 'SIGTERM' ? 143 : 130;
      // Killed by the signal itself only while Node was still starting (before rein's handlers): then nothing was written.
      const startup = p.code === null && p.signal === p.killedWith && !wrote;
      if (p.killedWith !== 'SIGKILL' && p.code !== expected && p.code !== 0 && !startup) problem(`${p.killedWith} gave exit ${p.code} (signal ${p.signal}; expected ${expected}): ${p.stderr.slice(-400)}`);
      if (/\n\s+at /.test(p.stderr)) problem(`a stack trace after ${p.killedWith}: ${p.stderr.slice(-400)}`);
      if (concurrent && kills === 1) await concurrentContinues(cwd, baseEnv, common, stats, problem);
      continue;
    }
    previousLog = undefined;
    if (kill) stats.finishedBeforeKill++;
    if (p.code !== 0) { problem(`a run ended with exit ${p.code}: ${p.stderr.slice(-600)}`); break; }
    const last = p.stdout.trim().split('\n').at(-1);
    if (last && JSON.parse(last).result === 'finished') break;
  }

  const file = sessionFile();
  if (!file) { problem('no transcript'); return kills; }
  // Every line parses.
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim());
  lines.forEach((l, i) => { try { JSON.parse(l); } catch { problem(`${file}:${i + 1} does not parse`); } });
  // The session ended.
  const terminalsSeen = lines.map((l) => { try { return JSON.parse(l) as Json; } catch { return {}; } })
    .filter((e) => e.type === 'transition' && e.transition?.kind === 'terminal').map((e) => e.transition.reason as string);
  if (terminalsSeen.at(-1) !== 'end_turn') problem(`the session did not end with end_turn (terminals: ${terminalsSeen.join(', ')})`);
  // No call twice; count the ones a kill lost (ran never: killed between the reply and the call).
  const calls = existsSync(side) ? readFileSync(side, 'utf8').split('\n').filter(Boolean) : [];
  const counts = new Map<string, number>();
  for (const c of calls) counts.set(c, (counts.get(c) ?? 0) + 1);
  for (const [c, k] of counts) if (k > 1) problem(`${c} ran ${k} times`);
  stats.lostCalls += TURNS - counts.size;
  return kills;
}

/** Two `--continue` at once on the killed session: refused or serialised, never interleaved. */
async function concurrentContinues(cwd: string, env: NodeJS.ProcessEnv, common: string[], stats: Stats, problem: (t: string) => void): Promise<void> {
  stats.concurrentPairs++;
  const argv = ['run', 'continue', '--continue', ...common];
  const [a, b] = await Promise.all([
    runRein(argv, cwd, { ...env, REIN_SIM_LOG: join(cwd, 'concurrent-a.jsonl') }),
    runRein(argv, cwd, { ...env, REIN_SIM_LOG: join(cwd, 'concurrent-b.jsonl') }),
  ]);
  const refused = [a, b].filter((p) => p.code === 2 && /is in use by rein process \d+/.test(p.stderr));
  stats.concurrentRefused += refused.length;
  if (refused.length > 1) problem('both concurrent --continue runs were refused');
  for (const p of [a, b]) {
    if (p.code === 0 || refused.includes(p)) continue;
    problem(`a concurrent --continue ended with exit ${p.code}: ${p.stderr.slice(-400)}`);
  }
}

async function main(): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), 'rein-crash-safety-'));
  const stats: Stats = { sessions: 0, kills: { SIGKILL: 0, SIGTERM: 0, SIGINT: 0 }, finishedBeforeKill: 0, resumes: 0, concurrentPairs: 0, concurrentRefused: 0, lostCalls: 0, prefixChecks: 0, problems: [] };
  const t0 = performance.now();
  let total = 0;
  while (total < KILLS) {
    const want = Math.min(KILLS - total, 1 + Math.floor(random() * 3));
    total += await oneSession(root, stats.sessions, stats, want, stats.sessions % 4 === 1);
    stats.sessions++;
    process.stderr.write(`\rcrash-safety: ${total}/${KILLS} kills, ${stats.sessions} sessions, ${stats.problems.length} problems`);
  }
  process.stderr.write('\n');
  const seconds = (performance.now() - t0) / 1000;
  const out = {
    seed: SEED, turns: TURNS, ...stats, problems: stats.problems.length, seconds: Math.round(seconds),
    nproc: cpus().length, load: loadavg().map((l) => Number(l.toFixed(2))),
  };
  console.log(JSON.stringify(out, null, 2));
  for (const p of stats.problems) console.log(`PROBLEM: ${p}`);
  if (args.keep) console.log(`kept ${root}`);
  else rmSync(root, { recursive: true, force: true });
  process.exitCode = stats.problems.length ? 1 : 0;
}

await main();
