/**
 * A generated long coding session for the strategy benchmark: a workspace of text files and a plan
 * of episodes (a user prompt, tool turns, a final answer) separated by idle gaps. Deterministic for
 * a seed, so every strategy sees the same session.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DraftBlock, Responder } from '../../simulator/responders/types.js';
import { prng } from '../workloads/generator.js';

export { prng };

/** The pauses before episodes 2, 3, …, repeating. */
const GAP_RHYTHM = ['short', 'mid', 'short', 'long', 'mid', 'short'] as const;

export interface Episode {
  prompt: string;
  /** Idle time before the prompt, ms. */
  gapMs: number;
  /** Reply blocks of each main-loop turn; the last one ends the episode with text only. */
  turns: DraftBlock[][];
}

export interface WorkloadSpec {
  seed: number;
  /** Total tool turns over all episodes. */
  turns: number;
  /** Files in the workspace. */
  files: number;
  /** Tool turns per episode (approximate). */
  turnsPerEpisode: number;
}

export interface GeneratedWorkload {
  spec: WorkloadSpec;
  episodes: Episode[];
  /** Relative file paths in the workspace. */
  files: string[];
}

/** Writes the workspace into `dir` and returns the plan. */
export function generateWorkload(dir: string, spec: WorkloadSpec): GeneratedWorkload {
  const rnd = prng(spec.seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)]!;
  mkdirSync(join(dir, 'src'), { recursive: true });
  const files: string[] = [];
  for (let i = 0; i < spec.files; i++) {
    const lines = 40 + Math.floor(rnd() * 360);
    const name = `src/module${String(i).padStart(3, '0')}.txt`;
    const body = Array.from({ length: lines }, (_, l) => `m${i} line ${String(l).padStart(4, '0')} ${'token '.repeat(3 + Math.floor(rnd() * 6))}`).join('\n') + '\n';
    writeFileSync(join(dir, name), body);
    files.push(name);
  }
  writeFileSync(join(dir, 'AGENTS.md'), `# Project rules\n${'Run the tests after each change, keep diffs small, and explain what changed. '.repeat(120)}\n`);
  const episodes: Episode[] = [];
  let left = spec.turns;
  let e = 0;
  while (left > 0) {
    const n = Math.min(left, Math.max(3, Math.round(spec.turnsPerEpisode * (0.5 + rnd()))));
    left -= n;
    const turns: DraftBlock[][] = [];
    for (let t = 0; t < n; t++) {
      const r = rnd();
      if (r < 0.12) {
        turns.push([{ type: 'text', text: 'Searching the code.' }, { type: 'tool_use', name: 'Grep', input: { pattern: `line 0${Math.floor(rnd() * 10)}${Math.floor(rnd() * 10)}0`, path: 'src' } }]);
      } else if (r < 0.25) {
        const a = pick(files);
        const b = pick(files);
        turns.push([{ type: 'text', text: 'Reading two files.' }, { type: 'tool_use', name: 'Read', input: { file_path: a } }, { type: 'tool_use', name: 'Read', input: { file_path: b } }]);
      } else {
        turns.push([{ type: 'text', text: `Looking at the next file (step ${t + 1}).` }, { type: 'tool_use', name: 'Read', input: { file_path: pick(files) } }]);
      }
    }
    turns.push([{ type: 'text', text: `Episode ${e + 1} is done: I read what was needed and found nothing to change.` }]);
    // A fixed rhythm of pauses, so every workload has each kind: short ones (within the 5-minute
    // TTL), coffee breaks (past 5 minutes, within 1 hour) and a long one (past 1 hour).
    const kind = GAP_RHYTHM[(e - 1 + GAP_RHYTHM.length) % GAP_RHYTHM.length]!;
    const gapMs = e === 0 ? 0 : kind === 'short' ? 30_000 + rnd() * 90_000 : kind === 'mid' ? 8 * 60_000 + rnd() * 20 * 60_000 : 75 * 60_000;
    episodes.push({ prompt: `Task ${e + 1}: go through the modules you need and report.`, gapMs, turns });
    e++;
  }
  return { spec, episodes, files };
}

/** Plays the current episode: turn N of the episode answers its N-th main-loop request. */
export function episodeResponder(): Responder & { start(episode: Episode): void } {
  let current: Episode | undefined;
  let step = 0;
  return {
    start(episode) {
      current = episode;
      step = 0;
    },
    respond() {
      const turns = current?.turns ?? [];
      const t = turns[Math.min(step, turns.length - 1)] ?? [{ type: 'text', text: 'Done.' }];
      step++;
      return { reply: { content: t.map((b) => ({ ...b })) } };
    },
  };
}
