/**
 * Skills through `rein run` (the built command, the embedded simulator, real SKILL.md folders):
 * found in the project, the user's home and the preset's folders; listed in a reminder message so
 * the system prompt and tools never change; loaded by the Skill tool; `allowed-tools` restricting
 * what runs; conditional skills appearing when a matching file is read; the listing's three levels;
 * invoked skills put back after a compaction; a malformed SKILL.md failing at file:line:column.
 */
import { readFileSync, readdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempDir, writeFiles as write } from '../../../testing/support.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => { tmp = tempDir('rein-skills-'); });
afterEach(() => tmp.cleanup());


const skill = (name: string, description: string, extra = '', body = `Instructions of ${name}.`) =>
  `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n${body}\n`;

interface Logged { path: string; body: { system?: unknown; tools?: unknown[]; messages: { role: string; content: { type: string; text?: string }[] }[] } }

function requests(log: string): Logged['body'][] {
  return readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Logged).filter((e) => e.path.startsWith('/v1/messages') && !e.path.includes('count_tokens')).map((e) => e.body);
}

/** Texts of every text block of the request's messages. */
const texts = (b: Logged['body']) => b.messages.flatMap((m) => m.content.filter((c) => c.type === 'text').map((c) => c.text!));

/** The messages without cache_control, which moves between requests by design. */
const bare = (b: Logged['body']) => JSON.parse(JSON.stringify(b.messages, (k, v) => (k === 'cache_control' ? undefined : v))) as unknown[];

/** Tool results of the session's transcript, by tool name. */
function results(home: string): { name: string; text: string; isError: boolean }[] {
  const root = join(home, 'sessions');
  const project = readdirSync(root)[0]!;
  const file = readdirSync(join(root, project)).find((f) => f.endsWith('.jsonl'))!;
  const names = new Map<string, string>();
  const out: { name: string; text: string; isError: boolean }[] = [];
  for (const line of readFileSync(join(root, project, file), 'utf8').split('\n')) {
    if (!line) continue;
    const e = JSON.parse(line);
    if (e.type !== 'message') continue;
    for (const b of e.message.content) {
      if (b.type === 'tool_use') names.set(b.id, b.name);
      if (b.type === 'tool_result') out.push({ name: names.get(b.tool_use_id)!, text: (Array.isArray(b.content) ? b.content.map((c: { text: string }) => c.text).join('') : b.content), isError: b.is_error === true });
    }
  }
  return out;
}

describe('skills through rein run', () => {
  it('finds skills in the project, the user home and the preset; lists them outside the cached prefix; loads one; allowed-tools restricts; a conditional skill appears on a matching Read', async () => {
    const project = join(tmp.dir, 'project');
    const home = join(tmp.dir, 'home');
    write(project, {
      '.git/HEAD': 'ref: refs/heads/main\n',
      '.claude/skills/deploy/SKILL.md': skill('deploy', 'Deploys the app to an environment.', 'allowed-tools: Read, Bash(echo:*)\nmetadata: { owner: ops }\n', 'Deploy to $ARGUMENTS. Read ${CLAUDE_SKILL_DIR}/checklist.md first.'),
      '.claude/skills/deploy/checklist.md': '1. run the smoke test\n',
      '.agents/skills/lint/SKILL.md': skill('lint', 'Lints the code base.'),
      '.claude/skills/components/SKILL.md': skill('components', 'Conventions for UI components.', 'paths: "src/components/**"\n'),
      'src/components/Button.tsx': 'export const Button = 1;\n',
      'skills-extra/review/SKILL.md': skill('review', 'Reviews a change.'),
      'agent.yaml': 'name: skilled\nsystem: { sections: [{ name: role, text: You deploy things. }] }\ntools: [Read, Write, Bash, Skill]\npermissions: { mode: acceptEdits, allow: ["Bash(echo:*)"] }\nplugins:\n  tools/skill: { dirs: [./skills-extra] }\n',
      's.yaml': `
turns:
  - reply: [{ tool_use: { name: Skill, input: { skill: deploy, args: staging } } }]
  - reply:
      - { tool_use: { name: Read, input: { file_path: .claude/skills/deploy/checklist.md } } }
      - { tool_use: { name: Write, input: { file_path: out.txt, content: x } } }
      - { tool_use: { name: Bash, input: { command: "echo deployed" } } }
  - reply: [{ tool_use: { name: Read, input: { file_path: src/components/Button.tsx } } }]
  - reply: [{ text: "Deployed." }]
`,
    });
    write(home, { '.claude/skills/notes/SKILL.md': skill('notes', 'Keeps meeting notes.') });
    const log = join(tmp.dir, 'requests.jsonl');
    const r = await runCli(['run', '--preset', './agent.yaml', '--sim', 's.yaml', '--no-layers', '--output-format', 'json', 'Deploy to staging'], { cwd: project, env: { HOME: home, REIN_HOME: join(home, '.rein'), REIN_SIM_LOG: log } });
    expect(r.stderr).not.toMatch(/error|warn/i);
    expect(r.code).toBe(0);
    const bodies = requests(log);
    expect(bodies).toHaveLength(4);

    // The first request lists the unconditional skills of all places, in a reminder after the prompt.
    const first = texts(bodies[0]!).join('\n');
    expect(first).toContain('The following skills are available for use with the Skill tool:');
    for (const line of ['- review: Reviews a change.', '- notes: Keeps meeting notes.', '- deploy: Deploys the app to an environment.', '- lint: Lints the code base.']) expect(first).toContain(line);
    expect(first).not.toContain('components');
    // Nothing about skills is in the system prompt or the tool array, and those bytes never change.
    const skillTool = (bodies[0]!.tools as { name: string; description: string }[]).find((t) => t.name === 'Skill')!;
    expect(skillTool.description).not.toMatch(/deploy|lint|notes|review/);
    expect(JSON.stringify(bodies[0]!.system ?? null)).not.toMatch(/Deploys the app|Keeps meeting notes|Skill tool/);
    for (const b of bodies) {
      expect(JSON.stringify(b.tools)).toBe(JSON.stringify(bodies[0]!.tools));
      expect(JSON.stringify(b.system)).toBe(JSON.stringify(bodies[0]!.system ?? null));
    }
    // Each request's messages start with the previous request's: nothing earlier is rewritten.
    for (let i = 1; i < bodies.length; i++) {
      const prev = bare(bodies[i - 1]!);
      const cur = bare(bodies[i]!);
      const last = prev.length - 1;
      expect(cur.slice(0, last)).toEqual(prev.slice(0, last));
    }

    // The Skill tool returned the body with its arguments and directory filled in.
    const res = results(join(home, '.rein'));
    const skillDir = join(project, '.claude/skills/deploy');
    expect(res[0]).toMatchObject({ name: 'Skill', isError: false });
    expect(res[0]!.text).toContain(`Base directory for this skill: ${skillDir}`);
    expect(res[0]!.text).toContain(`Deploy to staging. Read ${skillDir}/checklist.md first.`);
    // While deploy is active: Read and `echo` run, Write (allowed by acceptEdits otherwise) is denied.
    expect(res[1]).toMatchObject({ name: 'Read', isError: false });
    expect(res[1]!.text).toContain('run the smoke test');
    expect(res[2]).toMatchObject({ name: 'Write', isError: true });
    expect(res[2]!.text).toContain('The skill "deploy" is active and allows only these tools: Read, Bash(echo:*)');
    expect(existsSync(join(project, 'out.txt'))).toBe(false);
    expect(res[3]).toMatchObject({ name: 'Bash', isError: false, text: 'deployed' });

    // Reading src/components/Button.tsx activated the conditional skill: the next request announces it.
    const last = texts(bodies[3]!).join('\n');
    expect(last).toContain('More skills are now available for use with the Skill tool:\n\n- components: Conventions for UI components.');
    expect(texts(bodies[2]!).join('\n')).not.toContain('- components');
  }, 60_000);

  it('keeps the listing within its budget at each of the three levels', async () => {
    const project = join(tmp.dir, 'project');
    const long = 'Does a thing with a long explanation of when it applies. '.repeat(8); // 456 characters
    const files: Record<string, string> = { 's.yaml': 'turns:\n  - reply: [{ text: "ok" }]\n' };
    for (let i = 0; i < 10; i++) files[`.claude/skills/skill-${i}/SKILL.md`] = skill(`skill-${i}`, long);
    // Full entries: 10 × (12 + 250) characters; level 2 cuts each to fit 1,000; level 3 has names only.
    const budgets = { 1: 10_000, 2: 1_000, 3: 200 } as const;
    for (const [level, budget] of Object.entries(budgets)) files[`p${level}.yaml`] = `tools: [Skill]\nplugins:\n  tools/skill: { budgetChars: ${budget} }\n`;
    write(project, files);
    const runs = await Promise.all(Object.keys(budgets).map(async (level) => {
      const log = join(tmp.dir, `log${level}.jsonl`);
      const r = await runCli(['run', '--preset', `./p${level}.yaml`, '--sim', 's.yaml', '--no-layers', 'hi'], { cwd: project, env: { HOME: join(tmp.dir, 'nohome'), REIN_HOME: join(tmp.dir, 'rh', level), REIN_SIM_LOG: log } });
      expect(r.code).toBe(0);
      const listing = texts(requests(log)[0]!).find((t) => t.includes('available for use with the Skill tool'))!;
      return listing.split('\n').filter((l) => l.startsWith('- '));
    }));
    const [l1, l2, l3] = runs as [string[], string[], string[]];
    expect(l1).toHaveLength(10);
    // Level 1: each description capped at 250 characters.
    expect(l1[0]).toBe(`- skill-0: ${long.slice(0, 249).trimEnd()}…`);
    expect(l1.join('\n').length).toBeLessThanOrEqual(10_000);
    // Level 2: every description cut to the same shorter length, the whole within 1,000 characters.
    expect(l2.join('\n').length).toBeLessThanOrEqual(1_000);
    expect(l2[0]!.length).toBeLessThan(l1[0]!.length);
    expect(l2[0]).toMatch(/^- skill-0: Does a thing.*…$/);
    // Level 3: names only.
    expect(l3).toEqual(Array.from({ length: 10 }, (_, i) => `- skill-${i}`));
  }, 60_000);

  it('puts invoked skills back after a compaction, newest first, cut to their token budgets', async () => {
    const project = join(tmp.dir, 'project');
    const big = Array.from({ length: 400 }, (_, i) => `Rule ${i}: always check step ${i} before going on.`).join('\n'); // ~19,000 chars
    write(project, {
      '.claude/skills/big/SKILL.md': skill('big', 'A long checklist.', '', big),
      '.claude/skills/small/SKILL.md': skill('small', 'A short one.', '', 'Say please.'),
      'data.txt': Array.from({ length: 300 }, (_, i) => `data line ${i} ${'y'.repeat(40)}`).join('\n'),
      'agent.yaml': 'tools: [Read, Skill]\nplugins:\n  compaction/auto: { triggerTokens: 9000, restore: { maxFiles: 0 } }\n  tools/skill: { reinject: { perSkillTokens: 1000, totalTokens: 5000 } }\n',
      's.yaml': `
turns:
  - reply: [{ tool_use: { name: Skill, input: { skill: big } } }]
  - reply: [{ tool_use: { name: Skill, input: { skill: small } } }]
  - reply: [{ tool_use: { name: Read, input: { file_path: data.txt } } }]
  - reply: [{ text: "Done." }]
`,
    });
    const log = join(tmp.dir, 'requests.jsonl');
    const r = await runCli(['run', '--preset', './agent.yaml', '--sim', 's.yaml', '--no-layers', '--output-format', 'json', 'go'], { cwd: project, env: { HOME: join(tmp.dir, 'nohome'), REIN_HOME: join(tmp.dir, 'rh'), REIN_SIM_LOG: log } });
    expect(r.code).toBe(0);
    const bodies = requests(log);
    const after = bodies.at(-1)!;
    const all = texts(after).join('\n');
    expect(all).toContain('The following skills were invoked in this session. Continue to follow their instructions.');
    // Newest first: small, then big cut to about 1,000 tokens (4,000 characters), keeping its head.
    expect(all.indexOf('### Skill: small')).toBeLessThan(all.indexOf('### Skill: big'));
    expect(all).toContain('Rule 0: always check step 0');
    expect(all).not.toContain('Rule 399:');
    expect(all).toContain('[... skill truncated after 1000 tokens; read the full file if needed]');
    // The compaction did happen: the history before it is gone from the last request.
    expect(all).not.toContain('data line 299');
  }, 60_000);

  it('fails on a malformed SKILL.md with its file, line and column, never skipping it', async () => {
    const project = join(tmp.dir, 'project');
    write(project, {
      '.claude/skills/ok/SKILL.md': skill('ok', 'Fine.'),
      '.claude/skills/broken/SKILL.md': '---\nname: broken\ndescription: [unclosed\n---\nbody\n',
      '.claude/skills/typed/SKILL.md': '---\nname: typed\ndescription: Typed.\nallowed-tools: { Read: yes }\n---\nbody\n',
      'agent.yaml': 'tools: [Skill]\n',
      's.yaml': 'turns:\n  - reply: [{ text: "ok" }]\n',
    });
    const env = { HOME: join(tmp.dir, 'nohome'), REIN_HOME: join(tmp.dir, 'rh') };
    const r = await runCli(['run', '--preset', './agent.yaml', '--sim', 's.yaml', '--no-layers', 'hi'], { cwd: project, env });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain(`${join(project, '.claude/skills/broken/SKILL.md')}:3:`);
    expect(r.stderr).toContain('invalid YAML in the frontmatter');
    expect(r.stderr).not.toMatch(/\n\s+at /);
    // A field of the wrong type names the field's own position.
    writeFileSync(join(project, '.claude/skills/broken/SKILL.md'), skill('broken', 'Mended.'));
    const r2 = await runCli(['run', '--preset', './agent.yaml', '--sim', 's.yaml', '--no-layers', 'hi'], { cwd: project, env });
    expect(r2.code).not.toBe(0);
    expect(r2.stderr).toContain(`${join(project, '.claude/skills/typed/SKILL.md')}:4:16: "allowed-tools" must be a list of strings or a comma-separated string, got object`);
  }, 60_000);
});
