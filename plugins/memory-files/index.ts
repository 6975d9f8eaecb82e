/**
 * `memory-files`: the user's and the project's standing instructions (`AGENTS.md`, `CLAUDE.md`) as
 * one pinned message at the start of the history.
 *
 * Levels, lowest priority first: user (`$REIN_HOME` or `~/.rein`, and `~/.claude`), project (each
 * directory from the repository root down to the working directory, the files in it and then those
 * in its `.claude/` folder, as Claude Code reads `./.claude/CLAUDE.md`), local (`AGENTS.local.md`,
 * `CLAUDE.local.md`, right after their directory's project files). `@path` includes nest up to 5
 * levels; HTML comments are stripped; a file over 40,000 characters is loaded with a warning.
 *
 * The message is pinned: compaction keeps it verbatim, first, so the instructions never get
 * summarised away and the cached prefix through them survives every compaction. It is written once,
 * when a session starts with an empty history, and is part of the transcript from then on: a resumed
 * session sends the same bytes even if the files changed.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { createKernelState, definePlugin, type Message } from '../../kernel/index.js';
import { loadMemoryFiles, renderMemory, type MemoryFile } from './load.js';

export const PLUGIN_NAME = 'memory-files';

export const memoryFilesOptions = z.object({
  /** File names at user and project level, looked for in this order in each directory. */
  names: z.array(z.string().min(1)).default(['AGENTS.md', 'CLAUDE.md']).register(z.globalRegistry, { description: 'Memory file names at user and project level, looked for in this order in each directory.' }),
  /** File names at local level. */
  localNames: z.array(z.string().min(1)).default(['AGENTS.local.md', 'CLAUDE.local.md']).register(z.globalRegistry, { description: 'Memory file names at local level, loaded right after their directory\'s project files.' }),
  /** User-level directories. Default: `$REIN_HOME` (or `~/.rein`), then `~/.claude`. */
  userDirs: z.array(z.string().min(1)).optional().register(z.globalRegistry, { description: 'User-level directories; default: `$REIN_HOME` (or `~/.rein`), then `~/.claude`.' }),
  /** Load user-level files. */
  user: z.boolean().default(true).register(z.globalRegistry, { description: 'Load user-level memory files.' }),
  /** Let project files include files outside the project. */
  allowExternalIncludes: z.boolean().default(false).register(z.globalRegistry, { description: 'Let a project file\'s `@path` includes name files outside the project.' }),
}).strict();

/** Default user-level directories. */
export function defaultUserDirs(): string[] {
  return [process.env.REIN_HOME ? resolve(process.env.REIN_HOME) : join(homedir(), '.rein'), join(homedir(), '.claude')];
}

/** True for the pinned memory message. */
export function isMemoryMessage(m: Message): boolean {
  return m.meta?.source === PLUGIN_NAME;
}

/**
 * What the plugin shares with other plugins, under the kernel state key `memory-files`: the files
 * it loaded for the session (none on resume: the message was already there). Compaction reads it
 * to leave these files out of the ones it restores.
 */
export interface MemoryFilesState { files: readonly MemoryFile[] }

const memoryState = createKernelState<MemoryFilesState>(PLUGIN_NAME, () => ({ files: [] }));

/** The files the plugin loaded for a kernel's session (empty on resume: the message was already there). */
export function memoryFilesOf(kernel: Parameters<typeof memoryState>[0]): readonly MemoryFile[] {
  return memoryState(kernel).files;
}

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'AGENTS.md / CLAUDE.md (user, project root → cwd, local) with @includes, as one pinned message compaction keeps verbatim',
  options: memoryFilesOptions,
  apply(kernel, options) {
    // The session's first run gets the files, and so does a later run whose history was cleared.
    // Other later runs do not look again: compaction keeps the pinned message, and looking for it
    // would scan the whole history at every prompt.
    kernel.hooks.runStart.tap(PLUGIN_NAME, ({ run }) => {
      if (run > 1 && kernel.messages.length > 0) return;
      if (kernel.messages.some(isMemoryMessage)) return;
      if (kernel.messages.length > 0) {
        // Inserting before an existing history would change every request's prefix.
        kernel.emit({ type: 'notice', level: 'info', source: PLUGIN_NAME, message: 'this session started without memory files; they are not added to an existing history' });
        return;
      }
      const files = loadMemoryFiles({
        cwd: kernel.cwd,
        userDirs: options.user ? (options.userDirs?.map((d) => resolve(kernel.presetDir, d)) ?? defaultUserDirs()) : [],
        names: options.names,
        localNames: options.localNames,
        allowExternalIncludes: options.allowExternalIncludes,
        warn: (message) => kernel.emit({ type: 'notice', level: 'warn', source: PLUGIN_NAME, message }),
      });
      memoryState(kernel).files = files;
      const text = renderMemory(files);
      if (!text) return;
      const message: Message = { role: 'user', content: [{ type: 'text', text }], meta: { pinned: true, meta: true, source: PLUGIN_NAME, at: Date.now() } };
      kernel.transcript.append({ type: 'message', message });
      kernel.messages = [message, ...kernel.messages];
      kernel.emit({ type: 'notice', level: 'info', source: PLUGIN_NAME, message: `loaded ${files.length} memory file${files.length === 1 ? '' : 's'}: ${files.map((f) => f.path).join(', ')}` });
    });
  },
});
