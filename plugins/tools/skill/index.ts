/**
 * `tools/skill`: skills (`SKILL.md` folders) and the `Skill` tool that loads them.
 *
 *   apply          finds the skills (load.ts); a malformed SKILL.md fails the preset at file:line:column
 *   context        (stage NOTIFICATIONS) the skills folders are checked for SKILL.md files added or
 *                  changed (hot reload); skills the model was not yet told about, or whose file
 *                  changed, are listed in a `<system-reminder>` message at the tail of the history:
 *                  the system prompt and the tool array never change, so the cached prefix survives
 *   postToolUse    a file tool touching a path a conditional skill's `paths` match activates it
 *   permission     (stage DENY_RULES) while a skill with `allowed-tools` is active, other tools are denied
 *   userPromptSubmit  a new user message ends the active skill; a prompt `/name args` invokes skill `name`
 *   postCompact    invoked skills are put back after the summary (newest first, 5,000 tokens each, 25,000 in all)
 */
import { homedir } from 'node:os';
import { isAbsolute, relative, resolve } from 'node:path';
import ignore from 'ignore';
import { z } from 'zod';
import {
  CONTEXT_STAGE, PERMISSION_STAGE, createKernelState, definePlugin, type Kernel, type Message, type RunContext, type ToolOutput,
} from '../../../kernel/index.js';
import { STANDARD_CONTEXT_WINDOW, estimateTextTokens, TEXT_BYTES_PER_TOKEN } from '../../../lib/index.js';
import { discoverSkills, skillDirs, skillsFingerprint, type Skill } from './load.js';
import { expandShell, runForkedSkill } from './expand.js';
import { formatListing, listedNames, listingBudget, type ListingLevel } from './listing.js';
import { createSkillTool, expandSkill } from './tool.js';
import { allowedBy } from './allowed.js';

export { discoverSkills, loadSkill, skillDirs, type Skill, type SkillSource, type SkillDir } from './load.js';
export { formatListing, listingBudget, listedNames, MAX_LISTING_DESC_CHARS, MIN_LISTING_DESC_CHARS, SKILL_BUDGET_CONTEXT_PERCENT, CHARS_PER_TOKEN, type ListingLevel } from './listing.js';
export { createSkillTool, expandSkill } from './tool.js';
export { expandShell, runForkedSkill, forkAgentOf } from './expand.js';
export { FrontmatterError } from '../shared/frontmatter.js';

export const PLUGIN_NAME = 'tools/skill';

/** Most tokens of one invoked skill put back after a compaction (Claude Code: 5,000). */
export const REINJECT_TOKENS_PER_SKILL = 5_000;
/** Most tokens of all invoked skills put back after a compaction (Claude Code: 25,000). */
export const REINJECT_TOKENS_TOTAL = 25_000;

export const skillOptions = z.strictObject({
  /** More skills directories (each holding `<name>/SKILL.md` folders), relative to the preset's folder; searched first. */
  dirs: z.array(z.string().min(1)).default([]).register(z.globalRegistry, { description: 'More skills directories (each holding `<name>/SKILL.md` folders), relative to the preset\'s folder; searched first.' }),
  /** Look in `~/.claude/skills` and `~/.agents/skills` (default true). */
  user: z.boolean().default(true).register(z.globalRegistry, { description: 'Look for skills in `~/.claude/skills` and `~/.agents/skills`.' }),
  /** Look in `.claude/skills` and `.agents/skills` from the working directory up to the repository root (default true). */
  project: z.boolean().default(true).register(z.globalRegistry, { description: 'Look for skills in `.claude/skills` and `.agents/skills` from the working directory up to the repository root.' }),
  /** The listing's budget, characters. Default: 1% of the context window at 4 characters per token. */
  budgetChars: z.number().int().positive().optional().register(z.globalRegistry, { description: 'The skill listing\'s budget, characters; default: 1% of the context window at 4 characters per token (Claude Code\'s).' }),
  /** Put invoked skills back after a compaction. */
  reinject: z.strictObject({
    perSkillTokens: z.number().int().positive().default(REINJECT_TOKENS_PER_SKILL).register(z.globalRegistry, { description: 'Most tokens of one invoked skill put back after a compaction; a longer one keeps its head (Claude Code: 5,000).' }),
    totalTokens: z.number().int().positive().default(REINJECT_TOKENS_TOTAL).register(z.globalRegistry, { description: 'Most tokens of all invoked skills put back after a compaction (Claude Code: 25,000).' }),
  }).default({ perSkillTokens: REINJECT_TOKENS_PER_SKILL, totalTokens: REINJECT_TOKENS_TOTAL }).register(z.globalRegistry, { description: 'Invoked skills put back after a compaction, newest first.' }),
});

export type SkillOptions = z.output<typeof skillOptions>;

interface Invoked { skill: Skill; content: string; at: number; seq: number }

/** What the plugin keeps per kernel; other plugins read it with `skillsOf(kernel)`. */
export interface SkillsState {
  /** Every skill found, conditional ones included. */
  all: Skill[];
  /** Names of conditional skills a touched file activated; they stay available for the session. */
  activated: Set<string>;
  /** Names the model was told about (listing messages in the history). */
  sent: Set<string>;
  /** Characters of listing sent so far. */
  sentChars: number;
  /** Invoked skills by name, the latest invocation of each. */
  invoked: Map<string, Invoked>;
  /** The skill whose `allowed-tools` apply now, until the next user message. */
  active?: Skill;
  /** Level of the last listing sent. */
  lastLevel?: ListingLevel;
  /** Names of listed skills whose SKILL.md changed since (listed again with the new text). */
  changed: Set<string>;
  scannedHistory: boolean;
}

const state = createKernelState<SkillsState>(PLUGIN_NAME, () => ({ all: [], activated: new Set(), sent: new Set(), sentChars: 0, invoked: new Map(), scannedHistory: false, changed: new Set() }));

/** The skills state of a kernel (empty when the plugin is not loaded). */
export function skillsOf(kernel: Kernel): SkillsState {
  return state(kernel);
}

/** Skills the model may call now: not user-only, unconditional or activated. */
function available(s: SkillsState): Skill[] {
  return s.all.filter((k) => !k.disableModelInvocation && (!k.paths || s.activated.has(k.name)));
}

/** The reminder that lists `skills`, within what is left of the budget. */
function listingText(skills: Skill[], budget: number, first: boolean, changed: boolean): { text: string; level: ListingLevel } {
  const { lines, level } = formatListing(skills.map((k) => ({ name: k.name, description: k.whenToUse ? `${k.description} - ${k.whenToUse}` : k.description })), budget);
  const head = first ? 'The following skills are available for use with the Skill tool:'
    : changed ? 'Skills were added or changed; these are available for use with the Skill tool (as described here):'
      : 'More skills are now available for use with the Skill tool:';
  return { text: `<system-reminder>\n${head}\n\n${lines}\n</system-reminder>`, level };
}

/** `text` cut to at most `tokens` tokens (the note saying so included), keeping the head: the most important instructions are usually first. */
function headTokens(text: string, tokens: number): string {
  if (estimateTextTokens(text) <= tokens) return text;
  const note = `\n\n[... skill truncated after ${tokens} tokens; read the full file if needed]`;
  const room = Math.max(0, tokens - estimateTextTokens(note));
  let cut = text.slice(0, room * TEXT_BYTES_PER_TOKEN);
  while (estimateTextTokens(cut) > room) cut = cut.slice(0, Math.floor(cut.length * 0.95));
  return `${cut}${note}`;
}

/**
 * The invoked skills to put back after a compaction: newest first, each cut to `perSkill` tokens,
 * skipping any that would take the total over `total`. Undefined when there are none.
 */
export function reinjection(invoked: Iterable<{ skill: Skill; content: string; seq: number }>, perSkill: number, total: number): string | undefined {
  const parts: string[] = [];
  let used = 0;
  for (const i of [...invoked].sort((a, b) => b.seq - a.seq)) {
    const content = headTokens(i.content, perSkill);
    const t = estimateTextTokens(content);
    if (used + t > total) continue;
    used += t;
    parts.push(`### Skill: ${i.skill.name}\nPath: ${i.skill.file}\n\n${content}`);
  }
  if (!parts.length) return undefined;
  return `<system-reminder>\nThe following skills were invoked in this session. Continue to follow their instructions.\n\n${parts.join('\n\n---\n\n')}\n</system-reminder>`;
}

/** `/name args` at the start of a prompt: the skill's name and its arguments. */
const SLASH = /^\/([A-Za-z0-9][A-Za-z0-9_.:-]{0,63})(?:\s+([\s\S]*))?$/;

/** The file a tool call touched, from the usual input fields. */
function touchedPath(input: Record<string, unknown>): string | undefined {
  for (const k of ['file_path', 'notebook_path', 'path']) if (typeof input[k] === 'string' && input[k]) return input[k] as string;
  return undefined;
}

let seq = 0;

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'Skills: SKILL.md folders from .claude/skills, .agents/skills, ~/.claude/skills and the preset, listed outside the cached prefix and loaded by the Skill tool; allowed-tools, conditional paths, re-injection after compaction.',
  options: skillOptions,
  apply(kernel, options) {
    const s = state(kernel);
    const home = process.env.HOME || homedir();
    const dirs = skillDirs({ cwd: kernel.cwd, home, dirs: options.dirs.map((d) => resolve(kernel.presetDir, d)), user: options.user, project: options.project });
    let matchers = new Map<string, ReturnType<typeof ignore>>();
    let fingerprint = skillsFingerprint(dirs);
    const take = (found: ReturnType<typeof discoverSkills>) => {
      s.all = found.skills;
      for (const { skill, by } of found.shadowed) {
        kernel.emit({ type: 'notice', level: 'warn', source: PLUGIN_NAME, message: `skill "${skill.name}" in ${skill.file} is hidden by the one in ${by.file}` });
      }
      matchers = new Map(s.all.filter((k) => k.paths).map((k) => [k.name, ignore().add(k.paths!)]));
    };
    take(discoverSkills(dirs));
    // Hot reload: a SKILL.md added, removed or edited during the session is read again before the
    // next request; one that no longer parses keeps the skills as they were, with a warning.
    const reload = () => {
      const now = skillsFingerprint(dirs);
      if (now === fingerprint) return;
      fingerprint = now;
      let found: ReturnType<typeof discoverSkills>;
      try {
        found = discoverSkills(dirs);
      } catch (err) {
        kernel.emit({ type: 'notice', level: 'warn', source: PLUGIN_NAME, message: `skills not reloaded: ${(err as Error).message}` });
        return;
      }
      const before = new Map(s.all.map((k) => [k.name, k]));
      take(found);
      for (const k of s.all) {
        const old = before.get(k.name);
        if (old && s.sent.has(k.name) && (old.description !== k.description || old.whenToUse !== k.whenToUse)) s.changed.add(k.name);
      }
    };
    const budget = options.budgetChars ?? listingBudget(kernel.preset.model?.contextWindow ?? STANDARD_CONTEXT_WINDOW);

    /** Expands and records an invocation; what the model (or the prompt) gets back. */
    const invoke = async (skill: Skill, args: string | undefined, ctx: RunContext): Promise<{ text: string; isError: boolean }> => {
      // Active first: its allowed-tools apply to its own commands too.
      s.active = skill.allowedTools ? skill : undefined;
      const content = await expandShell(kernel, expandSkill(skill, args, kernel.sessionId), ctx);
      s.invoked.set(skill.name, { skill, content, at: Date.now(), seq: ++seq });
      if (skill.fields.context === 'fork') {
        // Its allowed-tools narrowed its own commands; the child has the tools of its agent.
        s.active = undefined;
        const r = await runForkedSkill(kernel, skill, content, ctx);
        return { text: r.isError ? r.text : `The skill "${skill.name}" ran in a separate agent. Its report:\n\n${r.text}`, isError: r.isError };
      }
      const limits = skill.allowedTools ? `\n\n(While this skill is active, only these tools run: ${skill.allowedTools.join(', ')}.)` : '';
      return { text: `${content}${limits}`, isError: false };
    };

    kernel.tools.register(createSkillTool({
      find: (name) => available(s).find((k) => k.name === name),
      names: () => available(s).map((k) => k.name),
      invoke: async (skill, args, ctx): Promise<ToolOutput> => {
        const r = await invoke(skill, args, kernel.runContext(ctx.signal));
        return r.isError ? { content: r.text, isError: true } : r.text;
      },
    }), PLUGIN_NAME);

    const h = kernel.hooks;
    h.context.tap({ name: PLUGIN_NAME, stage: CONTEXT_STAGE.NOTIFICATIONS }, (ctxState) => {
      reload();
      if (!s.scannedHistory) {
        // A resumed session: what earlier listings announced is in its history already.
        s.scannedHistory = true;
        for (const m of ctxState.messages) {
          if (m.meta?.source !== PLUGIN_NAME) continue;
          for (const b of m.content) if (b.type === 'text') for (const n of listedNames(b.text)) s.sent.add(n);
        }
      }
      const fresh = available(s).filter((k) => !s.sent.has(k.name) || s.changed.has(k.name));
      if (!fresh.length) return ctxState;
      const { text, level } = listingText(fresh, Math.max(0, budget - s.sentChars), s.sent.size === 0, fresh.some((k) => s.changed.has(k.name)));
      for (const k of fresh) { s.sent.add(k.name); s.changed.delete(k.name); }
      s.sentChars += text.length;
      s.lastLevel = level;
      kernel.emit({ type: 'notice', level: 'info', source: PLUGIN_NAME, message: `listed ${fresh.length} skill${fresh.length === 1 ? '' : 's'} (level ${level}): ${fresh.map((k) => k.name).join(', ')}` });
      const note: Message = { role: 'user', content: [{ type: 'text', text }], meta: { meta: true, source: PLUGIN_NAME, at: Date.now() } };
      return { ...ctxState, messages: [...ctxState.messages, note] };
    });

    h.postToolUse.tap(PLUGIN_NAME, (r, ctx) => {
      if (!matchers.size || ctx.agent) return r; // a child's call: its files do not change this agent's skills
      const p = touchedPath(r.input);
      if (!p) return r;
      const rel = relative(kernel.cwd, isAbsolute(p) ? p : resolve(kernel.cwd, p));
      if (!rel || rel.startsWith('..') || isAbsolute(rel)) return r;
      for (const [name, m] of matchers) if (!s.activated.has(name) && m.ignores(rel.split('\\').join('/'))) s.activated.add(name);
      return r;
    });

    h.permission.tap({ name: PLUGIN_NAME, stage: PERMISSION_STAGE.DENY_RULES }, (q, ctx) => {
      const active = s.active;
      if (!active?.allowedTools || ctx.agent || q.toolName === 'Skill') return undefined;
      if (allowedBy(active.allowedTools, q.toolName, q.input)) return undefined;
      return { behavior: 'deny', message: `The skill "${active.name}" is active and allows only these tools: ${active.allowedTools.join(', ')}. ${q.toolName} is not one of them.` };
    });
    h.userPromptSubmit.tapPromise(PLUGIN_NAME, async (p, ctx) => {
      s.active = undefined;
      // `/name args` invokes a skill, as a person does in Claude Code: the prompt becomes the
      // command's name and arguments, followed by the skill's text (or a fork skill's report).
      // Slash text that names no skill is left alone.
      const first = p.content.length === 1 && p.content[0]!.type === 'text' ? p.content[0]!.text.trim() : undefined;
      const m = first ? SLASH.exec(first) : null;
      if (!m) return p;
      reload();
      const skill = s.all.find((k) => k.name === m[1] && k.fields['user-invocable'] !== false);
      if (!skill) return p;
      const r = await invoke(skill, m[2], ctx);
      const text = r.isError ? `<system-reminder>\nThe skill "${skill.name}" failed: ${r.text}\n</system-reminder>` : r.text;
      return { ...p, content: [{ type: 'text', text: `<command-name>/${skill.name}</command-name>\n<command-args>${m[2]?.trim() ?? ''}</command-args>` }], additionalContext: [...(p.additionalContext ?? []), text] };
    });

    h.postCompact.tap(PLUGIN_NAME, (c) => {
      const text = reinjection(s.invoked.values(), options.reinject.perSkillTokens, options.reinject.totalTokens);
      if (text) c.attachments.push({ type: 'text', text });
    });
  },
});
