/**
 * Scripted bench scenarios: a workload written by hand in YAML, for cases a generator cannot express
 * (a long idle gap at one point, an exact tool sequence, a manual compaction).
 *
 * ```yaml
 * scenario: fix-and-test
 * model: claude-sonnet-4-5
 * steps:
 *   - prompt: Read notes.txt and run the tests   # user text entering before this request
 *     reply:
 *       - text: Reading it.
 *       - tool_use: { name: Read, input: { file_path: notes.txt }, id: toolu_1 }
 *     results: [ "1\thello" ]                      # one per tool_use, in order; {text, is_error} also works
 *   - gap: 3600                                   # idle seconds before this request (default 2)
 *     compact: manual                             # the user compacts before this request
 *     reply:
 *       - tool_use: { name: Task, input: { description: Check a, prompt: Check module a } }
 *     children:                                   # one per Task call, in order: that child's own
 *       - - reply: [ { text: "a is fine" } ]      #   requests, run live on the same simulator
 *   - reply: [ { text: Done. } ]
 * ```
 *
 * A step's `children` make the replay run the preset's own Task tool for those calls (a fork, when
 * the preset enables fork mode and the call names no subagent_type), so the children's requests
 * meet the parent's prompt cache; each child's steps answer its requests in order (100 ms apart).
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import type { ContentBlock } from '../../kernel/types.js';
import { GENERATOR_EPOCH_MS } from './generator.js';
import { newStats, type LiveChild, type Workload, type WorkloadStep } from './types.js';

/** Time between a live child's requests on the scenario's clock, ms. */
export const CHILD_STEP_GAP_MS = 100;

/** Default time between scenario requests, seconds. */
export const SCENARIO_DEFAULT_GAP_S = 2;

const Block = z.union([
  z.strictObject({ text: z.string() }),
  z.strictObject({ tool_use: z.strictObject({ name: z.string().min(1), input: z.record(z.string(), z.unknown()).optional(), id: z.string().optional() }) }),
  z.strictObject({ thinking: z.string() }),
]);

const Result = z.union([z.string(), z.strictObject({ text: z.string(), is_error: z.boolean().optional() })]);

const ChildStep = z.strictObject({ reply: z.array(Block).min(1), results: z.array(Result).optional() });

/** The zod schema of a bench scenario file. */
export const BenchScenarioSchema = z.strictObject({
  scenario: z.string().min(1),
  model: z.string().min(1).optional(),
  steps: z.array(z.strictObject({
    prompt: z.string().optional(),
    gap: z.number().nonnegative().optional(),
    compact: z.enum(['manual']).optional(),
    reply: z.array(Block).min(1),
    results: z.array(Result).optional(),
    children: z.array(z.array(ChildStep).min(1)).optional(),
  })).min(1),
});

/** Reads and validates a scenario file. Throws an Error naming the file and the first problem. */
export async function loadScenario(path: string): Promise<Workload> {
  let data: unknown;
  try {
    data = parse(await readFile(path, 'utf8'), { uniqueKeys: true });
  } catch (err) {
    throw new Error(`${path}: not valid YAML: ${(err as Error).message}`);
  }
  const parsed = BenchScenarioSchema.safeParse(data);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new Error(`${path}: ${i.path.join('.') || '(top level)'}: ${i.message}`);
  }
  const sc = parsed.data;
  const model = sc.model ?? 'claude-sonnet-4-5';
  let clock = GENERATOR_EPOCH_MS;
  let auto = 0;
  const children: LiveChild[] = [];
  const toStep = (s: z.infer<typeof ChildStep>, index: number, at: number, where: string): WorkloadStep => {
    const reply: ContentBlock[] = s.reply.map((b) => {
      if ('text' in b) return { type: 'text', text: b.text };
      if ('thinking' in b) return { type: 'thinking', thinking: b.thinking, signature: 'scenario' } as ContentBlock;
      return { type: 'tool_use', id: b.tool_use.id ?? `toolu_sc_${++auto}`, name: b.tool_use.name, input: b.tool_use.input ?? {} };
    });
    const uses = reply.filter((b) => b.type === 'tool_use') as { id: string; name: string }[];
    const results = s.results ?? [];
    if (results.length > uses.length) throw new Error(`${path}: ${where}.results: ${results.length} results for ${uses.length} tool calls`);
    return {
      index,
      reply,
      stopReason: uses.length ? 'tool_use' : 'end_turn',
      model,
      toolResults: results.map((r, k) => ({
        toolUseId: uses[k]!.id,
        toolName: uses[k]!.name,
        content: [{ type: 'text', text: typeof r === 'string' ? r : r.text }],
        isError: typeof r === 'string' ? false : r.is_error === true,
      })),
      at,
    };
  };
  const steps: WorkloadStep[] = sc.steps.map((s, index) => {
    if (index > 0) clock += (s.gap ?? SCENARIO_DEFAULT_GAP_S) * 1000;
    const step = toStep(s, index, clock, `steps.${index}`);
    if (s.children) {
      const tasks = step.reply.filter((b) => b.type === 'tool_use' && b.name === 'Task') as { id: string; input: { description?: unknown } }[];
      if (s.children.length > tasks.length) throw new Error(`${path}: steps.${index}.children: ${s.children.length} children for ${tasks.length} Task calls`);
      s.children.forEach((c, k) => {
        const task = tasks[k]!;
        children.push({
          toolUseId: task.id,
          name: typeof task.input.description === 'string' ? task.input.description : task.id,
          steps: c.map((cs, j) => toStep(cs, j, clock + (j + 1) * CHILD_STEP_GAP_MS, `steps.${index}.children.${k}.${j}`)),
        });
      });
    }
    if (s.prompt !== undefined) step.prompt = [{ block: { type: 'text', text: s.prompt }, typed: true }];
    if (s.compact) step.compactionBefore = { trigger: 'manual' };
    return step;
  });
  const stats = newStats();
  stats.lines = steps.length;
  stats.entries = steps.length;
  return { name: sc.scenario || basename(path), format: 'scenario', path, client: 'scenario', model, sidechain: false, steps, ...(children.length ? { children } : {}), timed: true, notes: [], stats };
}
