/**
 * Subagents in the bench report: each child workload (a subagent's own requests, from a recording
 * that used one) beside the workload of the agent that started it, with both sides' cache reads
 * per preset. A child is matched to its parent by the recording's session id (Claude Code writes a
 * subagent's requests under the parent's `sessionId`, flagged `isSidechain`, and `claude -p`
 * stream-json marks them with the parent's `parent_tool_use_id`).
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
  return rows;
}
