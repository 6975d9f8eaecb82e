/**
 * The parametric workload generator: a synthetic coding session from a spec string such as
 * `gen:turns=200,results=2000,gap=0,parallel=2,seed=1`. The same spec always gives the same
 * workload (a seeded PRNG; no clock, no randomness from outside).
 *
 * Parameters (all optional):
 * - `turns`: model requests in the session (default 50).
 * - `prompts`: user prompts the requests are split into (default turns/10, at least 1).
 * - `results`: mean tool-result size, characters (default 2000; each result varies ±50%).
 * - `parallel`: tool calls per reply (default 1).
 * - `tools`: tool mix as `Name:weight` pairs joined by `+` (default `Read:4+Bash:3+Edit:2+Grep:1`).
 * - `gap`: idle time before each user prompt, seconds (default 0).
 * - `step`: time between requests within a prompt, seconds (default 2).
 * - `text`: reply text length, characters (default 300).
 * - `model`: model id (default claude-sonnet-4-5).
 * - `seed`: PRNG seed (default 1).
 */
import type { ContentBlock } from '../../kernel/types.js';
import { TwoGenerationMemo } from '../shared/generations.js';
import { newStats, type RecordedToolResult, type Workload, type WorkloadStep } from './types.js';

export interface GeneratorParams {
  turns: number;
  prompts: number;
  results: number;
  parallel: number;
  tools: { name: string; weight: number }[];
  gap: number;
  step: number;
  text: number;
  model: string;
  seed: number;
}

/** Fixed start of the generated clock, ms since the epoch (2025-01-01T00:00:00Z). */
export const GENERATOR_EPOCH_MS = Date.UTC(2025, 0, 1);

const DEFAULT_TOOLS = [{ name: 'Read', weight: 4 }, { name: 'Bash', weight: 3 }, { name: 'Edit', weight: 2 }, { name: 'Grep', weight: 1 }];

/** True when `spec` is a generator spec rather than a path. */
export function isGeneratorSpec(spec: string): boolean {
  return spec === 'gen' || spec.startsWith('gen:');
}

const INT_KEYS = new Set(['turns', 'prompts', 'results', 'parallel', 'seed', 'text']);
const NUM_KEYS = new Set(['gap', 'step']);

/** Parses a spec. Throws an Error naming the bad key or value. */
export function parseGeneratorSpec(spec: string): GeneratorParams {
  if (!isGeneratorSpec(spec)) throw new Error(`not a generator spec: ${spec} (expected gen:key=value,...)`);
  const raw: Record<string, string> = {};
  const body = spec === 'gen' ? '' : spec.slice(4);
  for (const part of body.split(',').filter(Boolean)) {
    const eq = part.indexOf('=');
    if (eq <= 0) throw new Error(`generator spec: "${part}" is not key=value`);
    raw[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  const known = new Set([...INT_KEYS, ...NUM_KEYS, 'tools', 'model']);
  for (const k of Object.keys(raw)) if (!known.has(k)) throw new Error(`generator spec: unknown key "${k}" (known: ${[...known].join(', ')})`);
  const int = (k: string, d: number, min: number) => {
    if (raw[k] === undefined) return d;
    const v = Number(raw[k]);
    if (!Number.isInteger(v) || v < min) throw new Error(`generator spec: ${k} must be an integer ≥ ${min}, got "${raw[k]}"`);
    return v;
  };
  const num = (k: string, d: number) => {
    if (raw[k] === undefined) return d;
    const v = Number(raw[k]);
    if (!Number.isFinite(v) || v < 0) throw new Error(`generator spec: ${k} must be a number ≥ 0, got "${raw[k]}"`);
    return v;
  };
  const turns = int('turns', 50, 1);
  let tools = DEFAULT_TOOLS;
  if (raw.tools) {
    tools = raw.tools.split('+').map((p) => {
      const [name, w] = p.split(':');
      const weight = w === undefined ? 1 : Number(w);
      if (!name || !/^[A-Za-z_][\w-]*$/.test(name) || !Number.isFinite(weight) || weight <= 0) throw new Error(`generator spec: bad tool mix entry "${p}" (expected Name:weight)`);
      return { name, weight };
    });
  }
  return {
    turns,
    prompts: Math.min(turns, int('prompts', Math.max(1, Math.floor(turns / 10)), 1)),
    results: int('results', 2000, 1),
    parallel: int('parallel', 1, 1),
    tools,
    gap: num('gap', 0),
    step: num('step', 2),
    text: int('text', 300, 1),
    model: raw.model ?? 'claude-sonnet-4-5',
    seed: int('seed', 1, 0),
  };
}

/** A PRNG: floats in [0, 1); `state()` is the seed that makes the same numbers from here on. */
export interface Prng {
  (): number;
  state(): number;
}

/** mulberry32: a small, fast, seedable PRNG with a 2^32 period. Returns floats in [0, 1). */
export function prng(seed: number): Prng {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return Object.assign(next, { state: () => a });
}

/**
 * Where a generated result comes from: the PRNG state before its text and the text's size,
 * characters, and the PRNG state before its call's input (the reply's tool_use block).
 */
const RESULT_SEED = Symbol('generated result');

type ResultSeed = [state: number, size: number, inputState: number];

/**
 * Reads a generated result's content. One function for every result: objects whose accessors share
 * their getter share one hidden class in V8, where a closure per object would give each its own.
 */
function generatedContent(this: { [RESULT_SEED]: ResultSeed }): ContentBlock[] {
  const seed = this[RESULT_SEED];
  let text = madeTexts.get(seed);
  if (text === undefined) madeTexts.set(seed, (text = resultText(prng(seed[0]), seed[1])));
  return [{ type: 'text', text }];
}

/** Characters of text one generation of the made-text memo holds (1 M: a few hundred steps' replies and results). */
const MADE_TEXT_CHARS = 1_000_000;

/**
 * Texts made lately, by the seed they were made from (a result's or a step's reply's own seed
 * tuple): a replay reads each reply and result several times (its client, the needed-facts index,
 * the workspace), and making the text again from the PRNG each time was about a tenth of what a
 * replay allocated. Two generations of up to `MADE_TEXT_CHARS` characters each, so a long workload
 * still holds a bounded amount of text. Only the strings are shared: each read still gets fresh
 * arrays and blocks, which a reader may change.
 */
const madeTexts = new TwoGenerationMemo<object, string>(MADE_TEXT_CHARS, (_seed, text) => text.length);

/**
 * A generated tool result whose content is made from the PRNG state `state` each time it is read
 * (a fresh array each time; the same text). Its `content` is an enumerable getter, so JSON and a
 * worker thread's structured clone see the text as if it were stored; the seed is under a symbol
 * that is not enumerable, which neither copies nor compares. `inputState` makes its call's input
 * (generatedReply).
 */
function lazyResult(toolUseId: string, toolName: string, seed: ResultSeed, isError: boolean): RecordedToolResult {
  const r = { toolUseId, toolName };
  Object.defineProperties(r, {
    [RESULT_SEED]: { value: seed },
    content: { enumerable: true, configurable: true, get: generatedContent },
    isError: { enumerable: true, value: isError, writable: true, configurable: true },
  });
  return r as unknown as RecordedToolResult;
}

/** Where a generated reply's text comes from: the PRNG state before it and its length, characters. */
const REPLY_SEED = Symbol('generated reply');

type GeneratedStep = WorkloadStep & { [REPLY_SEED]: [state: number, chars: number] };

/**
 * Reads a generated step's reply: its text, then a tool_use block for each of the step's results
 * (the id and name are the result's, the input is made from the result's input seed). A fresh
 * array each time, with the same content.
 */
function generatedReply(this: GeneratedStep): ContentBlock[] {
  const seed = this[REPLY_SEED];
  let text = madeTexts.get(seed);
  if (text === undefined) madeTexts.set(seed, (text = words(prng(seed[0]), seed[1])));
  const reply: ContentBlock[] = [{ type: 'text', text }];
  for (const r of this.toolResults) {
    const inputState = (r as RecordedToolResult & { [RESULT_SEED]: ResultSeed })[RESULT_SEED][2];
    reply.push({ type: 'tool_use', id: r.toolUseId, name: r.toolName, input: toolInput(prng(inputState), r.toolName) });
  }
  return reply;
}

/** Replacing a generated step's reply stores the new one (a test's edit, say) in its place. */
function setReply(this: WorkloadStep, reply: ContentBlock[]): void {
  Object.defineProperty(this, 'reply', { value: reply, enumerable: true, writable: true, configurable: true });
}

const WORDS = ['the', 'value', 'function', 'returns', 'when', 'cache', 'request', 'error', 'handler', 'module', 'config',
  'parser', 'token', 'stream', 'buffer', 'index', 'result', 'update', 'check', 'missing', 'state', 'test', 'build', 'path',
  'option', 'default', 'field', 'object', 'list', 'string', 'number', 'async', 'await', 'import', 'export', 'const', 'type'];

function words(rand: () => number, chars: number): string {
  let s = '';
  while (s.length < chars) s += (s ? ' ' : '') + WORDS[Math.floor(rand() * WORDS.length)];
  return s.slice(0, chars);
}

function ident(rand: () => number): string {
  const a = WORDS[Math.floor(rand() * WORDS.length)]!;
  const b = WORDS[Math.floor(rand() * WORDS.length)]!;
  return `${a}${b[0]!.toUpperCase()}${b.slice(1)}${Math.floor(rand() * 100)}`;
}

function filePath(rand: () => number): string {
  return `src/${WORDS[Math.floor(rand() * WORDS.length)]}/${ident(rand)}.ts`;
}

/** Draws of `ident`, and the length of the name it makes. */
function identLength(rand: () => number): number {
  const a = WORDS[Math.floor(rand() * WORDS.length)]!;
  const b = WORDS[Math.floor(rand() * WORDS.length)]!;
  return a.length + b.length + String(Math.floor(rand() * 100)).length;
}

/**
 * Makes the same draws as `resultText(rand, chars)` without building the text: lengths only. The
 * generator moves past a result with it; the text is made when the result is read.
 */
export function skipResultText(rand: () => number, chars: number): void {
  let n = 0;
  let i = 1;
  while (n < chars) {
    let content: number;
    // 'export function ' + name + '(' + name + ') {'
    if (rand() < 0.3) content = 16 + identLength(rand) + 1 + identLength(rand) + 3;
    else {
      const want = 20 + Math.floor(rand() * 50);
      let len = 0;
      while (len < want) len += (len ? 1 : 0) + WORDS[Math.floor(rand() * WORDS.length)]!.length;
      // '  ' + words + ';'
      content = 2 + Math.min(len, want) + 1;
    }
    n += Math.max(5, String(i).length) + 1 + content + 1;
    i++;
  }
}

/** Code-like result text of about `chars` characters. */
export
function resultText(rand: () => number, chars: number): string {
  const lines: string[] = [];
  let n = 0;
  let i = 1;
  while (n < chars) {
    const line = `${String(i).padStart(5)}\t${rand() < 0.3 ? `export function ${ident(rand)}(${ident(rand)}) {` : `  ${words(rand, 20 + Math.floor(rand() * 50))};`}`;
    lines.push(line);
    n += line.length + 1;
    i++;
  }
  return lines.join('\n').slice(0, chars);
}

function pickTool(rand: () => number, tools: GeneratorParams['tools']): string {
  const total = tools.reduce((a, t) => a + t.weight, 0);
  let r = rand() * total;
  for (const t of tools) {
    r -= t.weight;
    if (r < 0) return t.name;
  }
  return tools[tools.length - 1]!.name;
}

function toolInput(rand: () => number, name: string): Record<string, unknown> {
  switch (name) {
    case 'Read': return { file_path: filePath(rand) };
    case 'Edit': return { file_path: filePath(rand), old_string: `const ${ident(rand)} = 1;`, new_string: `const ${ident(rand)} = 2;` };
    case 'Write': return { file_path: filePath(rand), content: words(rand, 200) };
    case 'Bash': return { command: `npm test -- ${filePath(rand)}`, description: 'Run the tests' };
    case 'Grep': return { pattern: ident(rand), path: 'src' };
    case 'Glob': return { pattern: `src/**/${ident(rand)}*.ts` };
    default: return { query: words(rand, 40) };
  }
}

/**
 * A generated workload named by its spec. A worker thread makes it again from the spec (the
 * generator is deterministic) instead of receiving a structured clone, which would hold every
 * result's text: a generated result is made when read, and a clone reads it.
 */
export interface GeneratedWorkloadRef {
  generator: string;
}

/** How a worker task names a workload: a generated one by its spec, any other as the workload itself. */
export function workloadForTask(w: Workload): Workload | GeneratedWorkloadRef {
  return w.format === 'generator' ? { generator: w.name } : w;
}

/** Generates a workload from a spec string. Throws for an invalid spec. */
export function generateWorkload(spec: string): Workload {
  const p = parseGeneratorSpec(spec);
  const rand = prng(p.seed);
  const steps: WorkloadStep[] = [];
  let clock = GENERATOR_EPOCH_MS;
  let callId = 0;
  // Requests per prompt: spread `turns` over `prompts` as evenly as possible.
  for (let q = 0; q < p.prompts; q++) {
    const n = Math.floor((p.turns * (q + 1)) / p.prompts) - Math.floor((p.turns * q) / p.prompts);
    clock += (q === 0 ? 0 : p.gap * 1000);
    const target = filePath(rand);
    const fn = ident(rand);
    for (let i = 0; i < n; i++) {
      if (i > 0) clock += p.step * 1000;
      const last = i === n - 1;
      // The reply and the results are made again from the generator's state whenever they are read
      // (generatedReply, lazyResult), so a long workload holds a few numbers per step instead of
      // every reply and result. Here the generator only moves past them, making the same draws.
      const replyState = rand.state();
      words(rand, p.text);
      const toolResults: WorkloadStep['toolResults'] = [];
      if (!last) {
        for (let k = 0; k < p.parallel; k++) {
          const name = pickTool(rand, p.tools);
          const id = `toolu_gen_${String(++callId).padStart(6, '0')}`;
          const inputState = rand.state();
          toolInput(rand, name);
          const size = Math.max(1, Math.round(p.results * (0.5 + rand())));
          const state = rand.state();
          skipResultText(rand, size);
          toolResults.push(lazyResult(id, name, [state, size, inputState], rand() < 0.05));
        }
      }
      // Properties added in the order a stored step has them (JSON shows the same object), each
      // added, never redefined: the steps then share their hidden classes in V8.
      const step = { index: steps.length } as GeneratedStep;
      Object.defineProperty(step, 'reply', { enumerable: true, configurable: true, get: generatedReply, set: setReply });
      step.stopReason = last ? 'end_turn' : 'tool_use';
      step.model = p.model;
      // A copy of exactly its length: V8 gives an array grown by push room for 16 or more entries.
      step.toolResults = toolResults.slice();
      step.at = clock;
      Object.defineProperty(step, REPLY_SEED, { value: [replyState, p.text] });
      if (i === 0) step.prompt = [{ block: { type: 'text', text: `Please fix ${fn} in ${target} and keep the tests passing. ${words(rand, 80)}` }, typed: true }];
      steps.push(step);
    }
  }
  const stats = newStats();
  stats.lines = steps.length;
  stats.entries = steps.length;
  return { name: spec, format: 'generator', client: 'generator', model: p.model, sidechain: false, steps, timed: true, notes: [], stats };
}
