/**
 * Skills as Claude Code users use them, through `rein run` (the built command, the embedded
 * simulator, real SKILL.md folders and real Bash): a prompt `/name args` invokes a skill; its
 * `` !`command` `` patterns run through the Bash permission rules (a denied one is an error in the
 * loaded text); a `context: fork` skill runs in a child agent and its report comes back; a SKILL.md
 * written during the session is listed at the tail without changing the cached prefix.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempDir, writeFiles as write } from '../../../testing/support.js';

const skill = (name: string, description: string, extra: string, body: string) => `---\nname: ${name}\ndescription: ${description}\n${extra}---\n\n${body}\n`;

interface Entry { path: string; source: string; body: { system?: unknown; tools?: unknown[]; messages: { role: string; content: { type: string; text?: string; content?: unknown }[] }[] } }

let tmp: ReturnType<typeof tempDir>;
let out: { subtype: string; result: string };
let entries: Entry[];

beforeAll(async () => {
  tmp = tempDir('rein-skill-expand-');
  const project = join(tmp.dir, 'project');
  write(project, {
    '.git/HEAD': 'ref: refs/heads/main\n',
    'secret.txt': 'TOP-SECRET-VALUE\n',
    '.claude/skills/status/SKILL.md': skill('status', 'Reports the state of the work.', 'disable-model-invocation: true\n', 'Branch: !`echo main-branch`\nSecret: !`cat secret.txt`\nFocus: $ARGUMENTS'),
    '.claude/skills/review/SKILL.md': skill('review', 'Reviews a file in a separate agent.', 'context: fork\n', 'Review $ARGUMENTS and report.'),
    'agent.yaml': 'system: { sections: [{ name: role, text: "You keep the project tidy." }] }\ntools: [Bash, Write, Skill, Task]\npermissions: { allow: [Skill, Task, Write, "Bash(echo:*)"], deny: ["Bash(cat:*)"] }\n',
    's.yaml': `
turns:
  - reply: [{ tool_use: { name: Skill, input: { skill: review, args: src/a.ts } } }]
  - reply: [{ text: "Looks fine." }]
  - reply: [{ tool_use: { name: Write, input: { file_path: .agents/skills/late/SKILL.md, content: "---\\nname: late\\ndescription: Arrived during the session.\\n---\\n\\nLate instructions.\\n" } } }]
  - reply: [{ tool_use: { name: Skill, input: { skill: late } } }]
  - reply: [{ tool_use: { name: Write, input: { file_path: .agents/skills/late/SKILL.md, content: "---\\nname: late\\ndescription: Now with a changed description.\\n---\\n\\nNewer instructions.\\n" } } }]
  - reply: [{ text: "done" }]
`,
  });
  const log = join(tmp.dir, 'requests.jsonl');
  const r = await runCli(['run', '--preset', './agent.yaml', '--sim', 's.yaml', '--no-layers', '--output-format', 'json', '/status the tests'], { cwd: project, env: { HOME: join(tmp.dir, 'home'), REIN_HOME: join(tmp.dir, 'rein-home'), REIN_SIM_LOG: log }, timeoutMs: 60_000 });
  expect(r.code).toBe(0);
  out = JSON.parse(r.stdout);
  entries = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Entry).filter((e) => e.path === '/v1/messages');
}, 90_000);
afterAll(() => tmp.cleanup());

const texts = (b: Entry['body']) => b.messages.flatMap((m) => m.content.flatMap((c) => (c.type === 'text' ? [c.text!] : c.type === 'tool_result' ? [JSON.stringify(c.content)] : [])));
const bare = (v: unknown) => JSON.parse(JSON.stringify(v ?? null, (k, x) => (k === "cache_control" ? undefined : x))) as unknown;

describe('skills: slash invocation, shell expansion, context fork, hot reload', () => {
  it('/status runs the skill: allowed commands replaced by their output, a denied one an error in the text', () => {
    expect(out.subtype).toBe('success');
    expect(out.result).toBe('done');
    const main = entries.filter((e) => e.source === 'main_loop');
    const first = texts(main[0]!.body).join('\n');
    expect(first).toContain('<command-name>/status</command-name>\n<command-args>the tests</command-args>');
    expect(first).toContain('Branch: main-branch\n');
    expect(first).toMatch(/Secret: \[command failed: !`cat secret\.txt`: [^\]]*(denied|deny)[^\]]*\]/i);
    expect(first).not.toContain('TOP-SECRET-VALUE');
    expect(first).toContain('Focus: the tests');
  });

  it('a context: fork skill runs in a child agent and its report is the Skill result', () => {
    const child = entries.filter((e) => e.source === 'subagent');
    expect(child).toHaveLength(1);
    expect(texts(child[0]!.body).join('\n')).toContain('Review src/a.ts and report.');
    const main = entries.filter((e) => e.source === 'main_loop');
    expect(texts(main[1]!.body).join('\n')).toContain('The skill \\"review\\" ran in a separate agent. Its report:\\n\\nLooks fine.');
  });

  it('a SKILL.md written during the session is listed at the tail; the cached prefix is unchanged', () => {
    const main = entries.filter((e) => e.source === 'main_loop');
    const [, , afterWrite, loaded, last] = main.map((e) => e.body);
    const beforeWrite = main[1]!.body;
    // Same system prompt and tools from the first request to the last.
    expect(bare(last!.system)).toEqual(bare(main[0]!.body.system));
    expect(bare(last!.tools)).toEqual(bare(main[0]!.body.tools));
    // The request after the Write continues the one before it, and the listing is at its tail.
    expect(bare(afterWrite!.messages.slice(0, beforeWrite.messages.length))).toEqual(bare(beforeWrite.messages));
    const tail = afterWrite!.messages.at(-1)!;
    expect(tail.content.map((c) => c.text).join('')).toMatch(/More skills are now available[\s\S]*- late: Arrived during the session\./);
    // And the model could load it.
    expect(texts(loaded!).join('\n')).toContain('Late instructions.');
    // Changed again: listed again at the tail with its new description, nothing before it moved.
    expect(bare(last!.messages.slice(0, loaded!.messages.length))).toEqual(bare(loaded!.messages));
    expect(last!.messages.at(-1)!.content.map((c) => c.text).join('')).toMatch(/Skills were added or changed[\s\S]*- late: Now with a changed description\./);
  });
});
