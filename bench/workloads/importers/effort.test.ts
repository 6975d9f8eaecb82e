/**
 * Effort and adaptive thinking as each client records them, read from small sessions written in
 * the client's own format:
 * - Claude Code (2.1.x session JSONL): `/effort` and `/model` write their output as
 *   `system`/`local_command` lines ("Set effort level to low", "Set model to … with high effort",
 *   "Effort level set to auto", bold names in terminal escapes); on Opus 4.6+ / Sonnet 4.6 it sends
 *   adaptive thinking, never a budget; on a model without effort it sends none.
 * - pi (session v1): the thinking level of the session header and `thinking_level_change`; on a
 *   model with adaptive thinking pi-ai sends `{type: "adaptive"}` and an effort for the level
 *   (xhigh → `xhigh` on Opus 4.7, `max` on Opus 4.6), elsewhere a budget.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ccEffortFromOutput, importClaudeCodeSession } from './claude-code.js';
import { importPiSession, piRequestThinking } from './pi.js';

const dir = mkdtempSync(join(tmpdir(), 'rein-effort-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const write = (name: string, lines: object[]) => {
  const path = join(dir, name);
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return path;
};

/** A Claude Code session: user → assistant pairs linked by parentUuid, with local command lines between. */
function claudeCodeLines(turns: ({ command: string } | { prompt: string; model: string; think?: boolean })[]): object[] {
  const out: object[] = [];
  let parent: string | null = null;
  let n = 0;
  const at = () => new Date(Date.UTC(2026, 5, 1, 10, 0, n)).toISOString();
  const push = (entry: Record<string, unknown>) => {
    const uuid = `u-${++n}`;
    out.push({ parentUuid: parent, isSidechain: false, sessionId: 's1', version: '2.1.197', cwd: '/w', uuid, timestamp: at(), ...entry });
    parent = uuid;
  };
  for (const t of turns) {
    if ('command' in t) {
      push({ type: 'system', subtype: 'local_command', content: '<command-name>/effort</command-name>\n<command-message>effort</command-message>\n<command-args></command-args>', level: 'info', isMeta: false });
      push({ type: 'system', subtype: 'local_command', content: `<local-command-stdout>${t.command}</local-command-stdout>`, level: 'info', isMeta: false });
      continue;
    }
    push({ type: 'user', message: { role: 'user', content: t.prompt } });
    const content = [...(t.think ? [{ type: 'thinking', thinking: 'hmm', signature: 'sig' }] : []), { type: 'text', text: `answer to ${t.prompt}` }];
    push({ type: 'assistant', requestId: `req_${n}`, message: { id: `msg_${n}`, type: 'message', role: 'assistant', model: t.model, content, stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 100 } } });
  }
  return out;
}

describe('Claude Code: effort from command output, adaptive thinking by model', () => {
  it('reads /effort and /model output (with terminal escapes) and applies it from the next request on', async () => {
    const path = write('cc.jsonl', claudeCodeLines([
      { prompt: 'one', model: 'claude-opus-4-6', think: true },
      { command: 'Set effort level to low (this session only): Quick, straightforward implementation' },
      { prompt: 'two', model: 'claude-opus-4-6', think: true },
      { command: 'Set model to \u001b[1mOpus 4.7\u001b[22m for this session only with \u001b[1mxhigh\u001b[22m effort' },
      { prompt: 'three', model: 'claude-opus-4-7', think: true },
      { command: 'Effort level set to auto' },
      { prompt: 'four', model: 'claude-opus-4-7', think: true },
      { command: 'Set effort level to medium' },
      { prompt: 'five', model: 'claude-sonnet-4-5', think: true },
    ]));
    const w = await importClaudeCodeSession(path);
    expect(w.steps.map((s) => s.effort ?? null)).toEqual([null, 'low', 'xhigh', null, null]);
    // Adaptive on Opus 4.6 / 4.7; the toggle's budget on Sonnet 4.5, which has no adaptive thinking (and no effort).
    expect(w.steps.map((s) => s.thinking)).toEqual([
      { type: 'adaptive' }, { type: 'adaptive' }, { type: 'adaptive' }, { type: 'adaptive' }, { type: 'enabled', budget_tokens: 31_999 },
    ]);
  });

  it('command output that sets no effort changes nothing; "ultracode" runs at xhigh', () => {
    expect(ccEffortFromOutput('<local-command-stdout>Current effort level: high</local-command-stdout>')).toBeUndefined();
    expect(ccEffortFromOutput('<local-command-stdout>Kept model as \u001b[1mDefault (recommended)\u001b[22m</local-command-stdout>')).toBeUndefined();
    expect(ccEffortFromOutput('Set effort level to low')).toBeUndefined();
    expect(ccEffortFromOutput('<local-command-stdout>Set effort level to ultracode (this session only): xhigh + dynamic workflow orchestration</local-command-stdout>')).toBe('xhigh');
    expect(ccEffortFromOutput('<local-command-stdout>Set effort level to bogus</local-command-stdout>')).toBeUndefined();
  });
});

describe('pi: thinking level → adaptive thinking and effort where the model has it', () => {
  it('maps each level on each request\'s model, from the header and each thinking_level_change', async () => {
    const ts = (s: number) => Date.UTC(2026, 5, 1, 10, 0, s);
    let s = 0;
    const turn = (model: string) => [
      { type: 'message', timestamp: new Date(ts(++s)).toISOString(), message: { role: 'user', content: [{ type: 'text', text: `q${s}` }], timestamp: ts(s) } },
      { type: 'message', timestamp: new Date(ts(++s)).toISOString(), message: { role: 'assistant', model, content: [{ type: 'text', text: 'a' }], stopReason: 'stop', usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 50 }, timestamp: ts(s) } },
    ];
    const path = write('pi.jsonl', [
      { type: 'session', id: 'p1', timestamp: new Date(ts(0)).toISOString(), cwd: '/w', thinkingLevel: 'medium' },
      ...turn('claude-opus-4-6'),
      { type: 'thinking_level_change', thinkingLevel: 'xhigh' },
      ...turn('claude-opus-4-6'),
      ...turn('claude-opus-4-7'),
      ...turn('claude-sonnet-4-5'),
      { type: 'thinking_level_change', thinkingLevel: 'minimal' },
      ...turn('claude-sonnet-4-6'),
      { type: 'thinking_level_change', thinkingLevel: 'off' },
      ...turn('claude-opus-4-6'),
    ]);
    const w = await importPiSession(path);
    expect(w.steps.map((x) => [x.thinking, x.effort ?? null])).toEqual([
      [{ type: 'adaptive' }, 'medium'],
      [{ type: 'adaptive' }, 'max'],
      [{ type: 'adaptive' }, 'xhigh'],
      // No adaptive thinking on Sonnet 4.5: pi-ai sends a budget (xhigh clamped to high) and no effort.
      [{ type: 'enabled', budget_tokens: 16_384 }, null],
      [{ type: 'adaptive' }, 'low'],
      [{ type: 'disabled' }, null],
    ]);
  });

  it('an unknown level is not guessed', () => {
    expect(piRequestThinking('claude-opus-4-6', 'turbo')).toBeUndefined();
  });
});
