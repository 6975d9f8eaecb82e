/**
 * Subagents in the bench report: each child workload (a subagent's own requests, from a recording
 * that used one) beside the workload of the agent that started it, with both sides' cache reads
 * per preset. A child is matched to its parent by the recording's session id (Claude Code writes a
 * subagent's requests under the parent's `sessionId`, flagged `isSidechain`, and `claude -p`
 * stream-json marks them with the parent's `parent_tool_use_id`).
 *
 * Children a scripted workload starts live (replay/children.ts) get rows too, named
 * `workload/description`, with their first request beside the parent request that started them:
 * for a fork, how much of the parent's prefix it read from the cache, and whether its siblings'
 * first requests were identical to its own but for the directive.
 */
import type { Workload } from '../workloads/types.js';
import type { WorkloadReport } from './model.js';

/** One child workload beside its parent, per preset (and the recording). */
export interface SubagentRow {
  child: string;
  parent: string;
  /** The parent's Task / Agent tool_use id that started the child, when the recording has it. */
  parentToolUseId?: string;
  runs: {
    preset: string;
    /** Tokens. */
    childCacheRead: number;
    childPrompt: number;
    parentCacheRead: number;
    parentPrompt: number;
    /** A live child: its first request (tokens read from the cache, whole prompt) and the prompt of the parent request that started it. */
    first?: { cacheRead: number; prompt: number; parentPrefix: number };
    /** A live child that was a fork of its parent. */
    fork?: boolean;
    /** A live child with siblings: their first request bodies are identical but for the directive. */
    siblingsIdentical?: boolean;
  }[];
}

const prompt = (s: { input: number; cacheRead: number; cacheWrite5m: number; cacheWrite1h: number }) => s.input + s.cacheRead + s.cacheWrite5m + s.cacheWrite1h;

/** The parent workload's index for each child workload (by session id), or undefined when it has none among `workloads`. */
export function parentsOf(workloads: readonly Workload[]): (number | undefined)[] {
  return workloads.map((w) => {
    if (!w.sidechain || !w.sessionId) return undefined;
    const i = workloads.findIndex((p) => !p.sidechain && p.sessionId === w.sessionId);
    return i >= 0 ? i : undefined;
  });
}

/** The rows for every child workload whose parent is in the report. */
export function subagentRows(reports: readonly WorkloadReport[]): SubagentRow[] {
  const rows: SubagentRow[] = [];
  for (const c of reports) {
    if (!c.parent) continue;
    const p = reports.find((r) => r.name === c.parent);
    if (!p) continue;
    const runs = c.runs.flatMap((cr) => {
      const pr = p.runs.find((r) => r.preset === cr.preset);
      if (!pr || cr.error || pr.error) return [];
      return [{ preset: cr.preset, childCacheRead: cr.summary.cacheRead, childPrompt: prompt(cr.summary), parentCacheRead: pr.summary.cacheRead, parentPrompt: prompt(pr.summary) }];
    });
    rows.push({ child: c.name, parent: p.name, ...(c.parentToolUseId ? { parentToolUseId: c.parentToolUseId } : {}), runs });
  }
  for (const p of reports) {
    const ids: { id: string; name: string }[] = [];
    for (const r of p.runs) for (const ch of r.children ?? []) if (!ids.some((x) => x.id === ch.toolUseId)) ids.push({ id: ch.toolUseId, name: ch.name });
    for (const { id, name } of ids) {
      const runs = p.runs.flatMap((pr) => {
        const ch = pr.children?.find((x) => x.toolUseId === id);
        if (!ch || pr.error) return [];
        return [{
          preset: pr.preset, childCacheRead: ch.summary.cacheRead, childPrompt: prompt(ch.summary), parentCacheRead: pr.summary.cacheRead, parentPrompt: prompt(pr.summary),
          first: { cacheRead: ch.first.cacheRead, prompt: ch.first.prompt, parentPrefix: ch.parentPrefix }, fork: ch.fork,
          ...(ch.siblingsIdentical !== undefined ? { siblingsIdentical: ch.siblingsIdentical } : {}),
        }];
      });
      rows.push({ child: `${p.name}/${name}`, parent: p.name, parentToolUseId: id, runs });
    }
  }
  return rows;
}

/** A live child's first-request figure as text: `first request read 9,183 of the parent's 9,183-token prefix (100%)`, and the siblings' check. */
export function firstRequestText(r: SubagentRow['runs'][number], tokens: (n: number) => string): string {
  if (!r.first) return '';
  const pct = r.first.parentPrefix ? ` (${((100 * r.first.cacheRead) / r.first.parentPrefix).toFixed(1)}%)` : '';
  const sib = r.siblingsIdentical === undefined ? '' : `; siblings' first requests ${r.siblingsIdentical ? 'identical' : 'NOT identical'} but for the directive`;
  return `${r.fork ? 'fork' : 'child'}'s first request read ${tokens(r.first.cacheRead)} of the parent's ${tokens(r.first.parentPrefix)}-token prefix${pct}${sib}`;
}
