import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TOKEN_COUNTERS } from '../../lib/tokens/counter.js';
import type { ContentBlock } from '../../kernel/types.js';
import { loadWorkloads } from '../workloads/load.js';
import type { Workload } from '../workloads/types.js';
import { blockStrings, neededFacts, recallTester, sourceTokens } from './recall.js';

const traces = fileURLToPath(new URL('../../../shared/traces/', import.meta.url));
const counter = TOKEN_COUNTERS.calibrated;

/** One recording per format the shared traces hold. */
const FILES: Record<string, string> = {
  'claude-code': 'claude-code__ivh-claudecode_to_html/89196983-226d-4cce-917d-f19967122f0b.jsonl',
  'claude-code-stream-json': 'claude-code-harbor__xdotli-harbor-datagen/fix_async_worker_queue/agent/claude-code.txt',
  'harbor-atif': 'claude-code-harbor__xdotli-harbor-datagen/fix_async_worker_queue/agent/trajectory.json',
  pi: 'pi__badlogic-pi-mono/session.jsonl',
};

async function mainWorkload(file: string): Promise<Workload> {
  const { workloads } = await loadWorkloads(traces + file);
  return workloads.filter((w) => !w.sidechain).sort((a, b) => b.steps.length - a.steps.length)[0]!;
}

/** The whole recorded history before step `i` (nothing compacted or cleared), as a request body. */
function history(w: Workload, i: number, clearResults = false) {
  const messages: { role: string; content: unknown[] }[] = [];
  for (const s of w.steps.slice(0, i + 1)) {
    if (s.prompt?.length) messages.push({ role: 'user', content: s.prompt.map((p) => p.block) });
    if (s.index === i) break;
    messages.push({ role: 'assistant', content: s.reply });
    if (s.toolResults.length) messages.push({ role: 'user', content: s.toolResults.map((r) => ({ type: 'tool_result', tool_use_id: r.toolUseId, content: clearResults ? 'cleared' : r.content })) });
  }
  return { messages };
}

describe.each(Object.entries(FILES))('needed-later facts on a %s recording', (format, file) => {
  it('finds needed facts in every kind of source, each in an earlier step', async () => {
    const w = await mainWorkload(file);
    expect(w.format).toBe(format);
    const n = neededFacts(w);
    let total = 0;
    const kinds = new Set<string>();
    for (const [stepIndex, facts] of n.byStep) {
      for (const f of facts) {
        total++;
        const src = n.sources[f.source]!;
        kinds.add(src.kind);
        expect(src.step).toBeLessThan(stepIndex);
        expect(sourceTokens(src, counter).tokens).toBeGreaterThan(0);
      }
    }
    expect(total).toBeGreaterThan(50);
    expect(kinds).toContain('tool_result');
  });

  it('the full recorded history recalls every needed fact; clearing every tool result loses some', async () => {
    const w = await mainWorkload(file);
    const n = neededFacts(w);
    const test = recallTester();
    let needed = 0;
    let full = 0;
    let cleared = 0;
    for (const [i, facts] of n.byStep) {
      needed += facts.length;
      full += test(facts, history(w, i)).recalled;
      cleared += test(facts, history(w, i, true)).recalled;
    }
    expect(full).toBe(needed);
    expect(cleared).toBeLessThan(needed * 0.9);
    // What clearing keeps came from prompts and replies, never from a tool result alone.
    for (const [i, facts] of n.byStep) {
      const got = test(facts, history(w, i, true));
      for (const f of facts.filter((x) => !got.lost.includes(x))) {
        const src = n.sources[f.source]!;
        if (src.kind !== 'tool_result') continue;
        const kept = history(w, i, true).messages.some((m) => m.content.some((b) => blockStrings(b as ContentBlock).some((s) => s.includes(f.text))));
        expect(kept).toBe(true);
      }
    }
  });
});
