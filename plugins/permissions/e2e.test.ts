/**
 * Each permission mode end to end, headless, through `rein run` as a real process against the
 * embedded simulator: one scripted turn asks for five tool calls; the result's
 * `permission_denials` and the files on disk show which calls ran and which were denied, and why.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, tempDir, writeFiles } from '../../testing/support.js';

const SCENARIO = `turns:
  - reply:
      - { text: "Working on it." }
      - { tool_use: { name: Read, input: { file_path: notes.txt } } }
      - { tool_use: { name: Write, input: { file_path: out.txt, content: "written" } } }
      - { tool_use: { name: Bash, input: { command: "echo hi > /dev/null" } } }
      - { tool_use: { name: Bash, input: { command: "rm -rf data" } } }
      - { tool_use: { name: Bash, input: { command: "cp notes.txt made-by-bash" } } }
  - reply: [{ text: "Done." }]
side:
  - match: { source: classifier, lastUser: 'cp notes.txt made-by-bash[\\s\\S]*Give your verdict now' }
    reply: [{ text: "<block>yes" }]
  - match: { source: classifier, lastUser: 'cp notes.txt made-by-bash[\\s\\S]*A quick first check' }
    reply: [{ text: "<block>yes</block><reason>the user did not ask for new files</reason>" }]
  - match: { source: classifier }
    reply: [{ text: "<block>no" }]
`;

const PRESET = `name: e2e
model: { provider: anthropic, name: claude-sonnet-4-5 }
tools: [Read, Write, Bash]
permissions:
  allowBypassPermissions: true
  allow: ["Bash(echo:*)"]
  deny: ["Bash(rm:*)"]
`;

interface Denial { tool_name: string; tool_input: Record<string, unknown>; reason: string }

const dirs: { cleanup: () => void }[] = [];
afterEach(() => { for (const d of dirs.splice(0)) d.cleanup(); });

async function runMode(mode: string, extraPreset = ''): Promise<{ denials: Denial[]; ran: { out: boolean; bash: boolean }; result: Record<string, unknown> }> {
  const t = tempDir('rein-perm-e2e-');
  dirs.push(t);
  writeFiles(t.dir, { 'agent.yaml': PRESET + extraPreset, 's.yaml': SCENARIO, 'notes.txt': 'buy milk' });
  writeFileSync(join(t.dir, 'data'), 'keep me');
  const r = await runCli(['run', '-p', 'tidy up', '--sim', 's.yaml', '--preset', './agent.yaml', '--permission-mode', mode, '--output-format', 'json', '--no-layers'], { cwd: t.dir, env: { REIN_HOME: join(t.dir, 'home') } });
  if (r.code !== 0) throw new Error(`rein run exited ${r.code}: ${r.stderr}`);
  const result = JSON.parse(r.stdout) as Record<string, unknown>;
  expect(existsSync(join(t.dir, 'data'))).toBe(true); // the deny rule held in every mode
  return { denials: result.permission_denials as Denial[], ran: { out: existsSync(join(t.dir, 'out.txt')), bash: existsSync(join(t.dir, 'made-by-bash')) }, result };
}

const summary = (ds: Denial[]) => ds.map((d) => `${d.tool_name}:${String(d.tool_input.command ?? d.tool_input.file_path)}`);

describe('rein run, each permission mode, headless', () => {
  it('default: reads and allowed commands run; edits and other commands ask and, unanswered, are denied', async () => {
    const { denials, ran, result } = await runMode('default');
    expect(result.rein_terminal_reason).toBe('end_turn');
    expect(summary(denials)).toEqual(['Write:out.txt', 'Bash:rm -rf data', 'Bash:cp notes.txt made-by-bash']);
    expect(denials[0]!.reason).toMatch(/ask with no answer: no rule allows it/);
    expect(denials[1]!.reason).toBe('deny rule Bash(rm:*) matches rm -rf data');
    expect(denials[2]!.reason).toMatch(/ask with no answer: no allow rule covers "cp notes.txt made-by-bash"/);
    expect(ran).toEqual({ out: false, bash: false });
  });

  it('acceptEdits: the file edit runs too', async () => {
    const { denials, ran } = await runMode('acceptEdits');
    expect(summary(denials)).toEqual(['Bash:rm -rf data', 'Bash:cp notes.txt made-by-bash']);
    expect(ran).toEqual({ out: true, bash: false });
  });

  it('plan: only reads run; the rest is denied pointing at ExitPlanMode', async () => {
    const { denials, ran } = await runMode('plan');
    expect(summary(denials)).toEqual(['Write:out.txt', 'Bash:echo hi > /dev/null', 'Bash:rm -rf data', 'Bash:cp notes.txt made-by-bash']);
    expect(denials[0]!.reason).toMatch(/not read-only \(mode plan\)/);
    expect(ran).toEqual({ out: false, bash: false });
  });

  it('dontAsk: what no rule allows is denied without asking', async () => {
    const { denials, ran } = await runMode('dontAsk');
    expect(summary(denials)).toEqual(['Write:out.txt', 'Bash:rm -rf data', 'Bash:cp notes.txt made-by-bash']);
    expect(denials[0]!.reason).toBe('no rule allows it (mode dontAsk)');
    expect(ran).toEqual({ out: false, bash: false });
  });

  it('bypassPermissions: everything but the deny rule runs', async () => {
    const { denials, ran } = await runMode('bypassPermissions');
    expect(summary(denials)).toEqual(['Bash:rm -rf data']);
    expect(ran).toEqual({ out: true, bash: true });
  });

  it('auto: the classifier decides what rules and the fast paths leave open, with its usage apart', async () => {
    const { denials, ran, result } = await runMode('auto');
    expect(summary(denials)).toEqual(['Bash:rm -rf data', 'Bash:cp notes.txt made-by-bash']);
    expect(denials[1]!.reason).toMatch(/the classifier blocked it: the user did not ask for new files \(mode auto, stage 2\)/);
    expect(ran).toEqual({ out: true, bash: false });
    const side = result.side_usage as { classifier?: { input_tokens: number; output_tokens: number } };
    expect(side.classifier?.input_tokens).toBeGreaterThan(0);
    expect(side.classifier?.output_tokens).toBeGreaterThan(0);
    expect(result.num_requests).toBe(2); // main-loop requests only
  });

  it('shell hooks in a run: a PreToolUse hook (a real process) blocks a call bypassPermissions would run', async () => {
    const hooks = `hooks:
  PreToolUse:
    - matcher: Bash
      hooks:
        - type: command
          command: 'input=$(cat); case "$input" in *made-by-bash*) echo "no new files today" >&2; exit 2;; esac'
`;
    const { denials, ran } = await runMode('bypassPermissions', hooks);
    expect(summary(denials)).toEqual(['Bash:rm -rf data', 'Bash:cp notes.txt made-by-bash']);
    expect(denials[1]!.reason).toMatch(/PreToolUse hook .*: no new files today/);
    expect(ran).toEqual({ out: true, bash: false });
  });
});
