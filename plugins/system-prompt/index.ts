/**
 * `system-prompt`: the system prompt as named sections, and the session's dynamic context.
 *
 * - Sections are static (resolved once per session, then served from memory: the same bytes every
 *   request) or dynamic (resolved for every request). The request builder puts all static sections in
 *   the first system block and the dynamic ones in a second, so a cache marker on the first block
 *   survives any change in the second (the static/dynamic boundary).
 * - A section comes from inline `text` or a `file` (relative to the preset's directory). Later
 *   sections replace earlier ones of the same name: rein's defaults, then the preset's own
 *   `system.sections`, then this plugin's `sections`.
 * - The dynamic context (date, working directory, platform, git state) is not in the system prompt:
 *   it is captured once when the session starts and sent as a `<system-reminder>` block at the start
 *   of the first message, so the cached system prompt stays byte-stable.
 * Resolved static sections and the captured context are recorded in the transcript: a resumed session
 * sends the same bytes even if a section file or the git state changed in between.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { type SystemSection, REQUEST_STAGE, type ModelRequest, definePlugin, withReplacedMessages } from '../../kernel/index.js';
import { DEFAULT_SECTIONS } from './defaults.js';
import { buildUserContext } from './user-context.js';
import { subprocessEnv } from '../../lib/index.js';

export const PLUGIN_NAME = 'system-prompt';

const Section = z.object({
  name: z.string().min(1).register(z.globalRegistry, { description: 'Section name; a later section replaces an earlier one of the same name, in its place.' }),
  /** The section's text. */
  text: z.string().optional().register(z.globalRegistry, { description: 'The section\'s text (or give `file`).' }),
  /** A file holding the section's text, relative to the preset's directory. */
  file: z.string().min(1).optional().register(z.globalRegistry, { description: 'A file holding the section\'s text, relative to the preset\'s directory.' }),
  /** `static`: resolved once per session; `dynamic`: resolved for every request. */
  kind: z.enum(['static', 'dynamic']).default('static').register(z.globalRegistry, { description: '`static`: resolved once per session, in the cached first system block; `dynamic`: resolved for every request, in a second block.' }),
}).strict().refine((s) => (s.text === undefined) !== (s.file === undefined), { message: 'a section has exactly one of text or file' });

export const systemPromptOptions = z.object({
  /** Include rein's default sections (identity, how to work, tools, reporting). */
  defaults: z.boolean().default(true).register(z.globalRegistry, { description: 'Include rein\'s default sections (identity, how to work, tools, reporting).' }),
  /** Extra sections, after the preset's `system.sections`. */
  sections: z.array(Section).default([]).register(z.globalRegistry, { description: 'Extra sections, after rein\'s defaults and the preset\'s `system.sections`.' }),
  /** What the session-context reminder includes. */
  userContext: z.object({
    date: z.boolean().default(true).register(z.globalRegistry, { description: 'Include the date (today\'s, or the `date` option) in the session-context reminder.' }),
    cwd: z.boolean().default(true).register(z.globalRegistry, { description: 'Include the working directory in the session-context reminder.' }),
    platform: z.boolean().default(true).register(z.globalRegistry, { description: 'Include the platform (operating system and release) in the session-context reminder.' }),
    git: z.boolean().default(true).register(z.globalRegistry, { description: 'Include the git state in the session-context reminder.' }),
  }).strict().default({ date: true, cwd: true, platform: true, git: true }).register(z.globalRegistry, { description: 'What the session-context reminder, sent at the start of the first message, includes.' }),
  /**
   * Git state to show instead of running git (`userContext.git` still decides whether it is shown):
   * for a caller that knows the answer, such as a benchmark replay in a fresh folder that is not a
   * repository (`NOT_A_REPOSITORY`), which then spawns no git process per session.
   */
  gitState: z.string().optional().register(z.globalRegistry, { description: 'Git state to show instead of running git (`userContext.git` still decides whether it is shown), for a caller that already knows it.' }),
  /** Fixed date for the reminder (YYYY-MM-DD) instead of today's. */
  date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD').optional().register(z.globalRegistry, { description: 'Fixed date for the session-context reminder (YYYY-MM-DD) instead of today\'s.' }),
}).strict();

export type SystemPromptOptions = z.output<typeof systemPromptOptions>;

/** What the plugin records in the transcript. */
export interface SystemPromptRecord {
  /** Static sections read from files: name → text. */
  staticFiles: Record<string, string>;
  /** The reminder sent at the start of the first message ('' for none). */
  userContext: string;
}

/** Merges section lists: a later section replaces an earlier one of the same name, in its place. */
export function mergeSections(...lists: readonly (readonly SystemSection[])[]): SystemSection[] {
  const out: SystemSection[] = [];
  for (const list of lists) {
    for (const s of list) {
      const i = out.findIndex((o) => o.name === s.name);
      if (i >= 0) out[i] = s;
      else out.push(s);
    }
  }
  return out;
}

/**
 * Returns params whose first message starts with a text block holding `text`. Never changes a
 * message or block; the list is replaced in place only while it is the request's own (inside the
 * `request` waterfall, see withReplacedMessages), else copied.
 */
export function prependToFirstMessage(params: ModelRequest, text: string): ModelRequest {
  if (!text || !params.messages.length) return params;
  const first = params.messages[0]!;
  const messages = withReplacedMessages(params.messages, [[0, { ...first, content: withReminder(first.content, text) } as typeof first]]);
  return { ...params, messages };
}

/**
 * The first message's content with the reminder in front, made once per content array and text:
 * every request of a session then carries the same array, which memos downstream (marker counts,
 * the break detector, the simulator) recognise without looking inside.
 */
const withReminderMemo = new WeakMap<object, { text: string; content: unknown[] }>();

function withReminder(content: ModelRequest['messages'][number]['content'], text: string): ModelRequest['messages'][number]['content'] {
  if (typeof content === 'string') return [{ type: 'text', text }, { type: 'text', text: content }];
  const hit = withReminderMemo.get(content);
  if (hit && hit.text === text) return hit.content as typeof content;
  const out = [{ type: 'text' as const, text }, ...content];
  withReminderMemo.set(content, { text, content: out });
  return out;
}

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'system prompt from named static/dynamic sections; date, cwd and git state frozen per session in a <system-reminder>',
  options: systemPromptOptions,
  check(options, { presetDir }) {
    return options.sections.flatMap((s, i) => (s.file && s.kind === 'static' && !existsSync(resolve(presetDir, s.file))
      ? [{ path: ['sections', i, 'file'], message: `section "${s.name}": file ${resolve(presetDir, s.file)} does not exist` }]
      : []));
  },
  apply(kernel, options) {
    const fileOf = (f: string) => resolve(kernel.presetDir, f);
    const userContext = () => buildUserContext({ date: options.date, cwd: kernel.cwd, include: options.userContext, ...(options.gitState !== undefined ? { gitState: options.gitState } : {}), env: options.userContext.git && options.gitState === undefined ? subprocessEnv(kernel, { kind: 'git', name: 'system-prompt' }) : undefined });
    // Prefetch: in a new session the git commands start now, while the other
    // plugins load and the session opens, instead of at session start, when the first request
    // would soon wait for them. A resumed session reads its record back and does not need them.
    // The result is read only by start() below; buildUserContext does not reject (a failed git
    // command reads as "not a git repository").
    let prefetched: Promise<string> | undefined = kernel.resumed ? undefined : userContext();
    // Computed once per session (or read back from the transcript on resume), then frozen.
    let record: Promise<SystemPromptRecord> | undefined;
    const start = (): Promise<SystemPromptRecord> => (record ??= (async () => {
      const past = kernel.transcript.pluginData<SystemPromptRecord>(PLUGIN_NAME);
      if (past.length) return past[past.length - 1]!;
      const staticFiles: Record<string, string> = {};
      for (const s of options.sections) if (s.file && s.kind === 'static') staticFiles[s.name] = readFileSync(fileOf(s.file), 'utf8');
      const fresh: SystemPromptRecord = { staticFiles, userContext: await (prefetched ?? userContext()) };
      prefetched = undefined;
      kernel.transcript.append({ type: 'plugin', plugin: PLUGIN_NAME, data: fresh });
      return fresh;
    })());
    // Started, not awaited: the systemPrompt/request taps below await the same promise.
    kernel.hooks.sessionStart.tap(PLUGIN_NAME, () => { start().catch(() => undefined); });

    const own = async (): Promise<SystemSection[]> => {
      const r = await start();
      return options.sections.map((s) => {
        if (s.text !== undefined) return { name: s.name, text: s.text, kind: s.kind };
        if (s.kind === 'static') return { name: s.name, text: r.staticFiles[s.name] ?? '', kind: 'static' };
        let text = '';
        try {
          text = readFileSync(fileOf(s.file!), 'utf8');
        } catch (err) {
          kernel.emit({ type: 'notice', level: 'warn', source: PLUGIN_NAME, message: `section "${s.name}": cannot read ${fileOf(s.file!)} (${(err as Error).message}); sent empty` });
        }
        return { name: s.name, text, kind: 'dynamic' };
      });
    };

    // Stage -100: the base sections go in first, so other plugins' taps see them and can add after.
    kernel.hooks.systemPrompt.tapPromise({ name: PLUGIN_NAME, stage: -100 }, async (incoming) =>
      mergeSections(options.defaults ? DEFAULT_SECTIONS : [], incoming, await own()));

    kernel.hooks.request.tapPromise({ name: PLUGIN_NAME, stage: REQUEST_STAGE.USER_CONTEXT }, async (params) =>
      prependToFirstMessage(params as ModelRequest, (await start()).userContext));
  },
});
