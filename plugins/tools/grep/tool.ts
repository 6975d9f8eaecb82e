/**
 * `Grep`: regex search over file contents. Runs ripgrep when it is on PATH and a JS implementation
 * otherwise; both give the same output (see query.ts).
 */
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool, ToolError, type Tool } from '../../../kernel/index.js';
import { displayPath, errnoCode } from '../shared/paths.js';
import { assertSameDirectory, callTarget, underWritten } from '../shared/target.js';
import { condensedTool, wholeNumber } from '../shared/schema.js';
import { DEFAULT_HEAD_LIMIT, formatGrep } from './format.js';
import { searchWithJs } from './js-search.js';
import { checkPattern, splitGlobs, type GrepQuery } from './query.js';
import { findRipgrep, searchWithRipgrep } from './ripgrep.js';
import { subprocessEnv } from '../../../lib/index.js';
import { INPUT_JSON_SCHEMAS } from '../shared/generated/input-schemas.js';

export const grepInput = z.lazy(() => z.strictObject({
  pattern: z.string().min(1).describe('Regular expression to search for in file contents (ripgrep syntax)'),
  path: z.string().optional().describe('File or folder to search (default: the working directory)'),
  glob: z.string().optional().describe('Only search files matching this glob, e.g. "*.js" or "*.{ts,tsx}"; prefix with ! to exclude'),
  type: z.string().optional().describe('Only search files of this type (ripgrep type names: js, ts, py, rust, go, java, ...); faster than glob for standard types'),
  output_mode: z.enum(['content', 'files_with_matches', 'count']).default('files_with_matches')
    .describe('"content": matching lines; "files_with_matches": paths of files that match (default); "count": matches per file'),
  '-i': z.boolean().optional().describe('Case-insensitive search'),
  '-n': z.boolean().optional().describe('Show line numbers (content mode; default true)'),
  '-A': wholeNumber(0).optional().describe('Lines of context after each match (content mode)'),
  '-B': wholeNumber(0).optional().describe('Lines of context before each match (content mode)'),
  '-C': wholeNumber(0).optional().describe('Lines of context before and after each match (content mode)'),
  head_limit: wholeNumber(0).optional().describe(`Return at most this many lines, files or counts (default ${DEFAULT_HEAD_LIMIT}; 0 for no limit, to use sparingly)`),
  multiline: z.boolean().optional().describe('Let the pattern span lines and "." match newlines (default false)'),
}));

export type GrepInput = z.output<typeof grepInput>;

const DESCRIPTION = `Searches file contents with regular expressions (ripgrep).

Usage:
- Use Grep for every content search. Do not run grep or rg through Bash: this tool respects .gitignore, skips version-control folders, shows paths the other tools accept, and is checked by the permission rules for reading.
- Full regex syntax, ripgrep dialect: "log.*Error", "function\\s+\\w+". Escape literal braces and parentheses: "interface\\{\\}" finds "interface{}".
- Filter files with glob ("*.js", "**/*.tsx") or type ("js", "py", "rust"; faster for standard types).
- output_mode: "files_with_matches" (default) lists matching files, newest first; "content" shows matching lines as path:line:text, with -A/-B/-C for context and -n for line numbers; "count" gives matches per file.
- Matches are found within single lines. To match across lines (e.g. "struct \\{[\\s\\S]*?field"), set multiline: true.
- At most ${DEFAULT_HEAD_LIMIT} results are returned unless head_limit says otherwise; if you hit the cap, narrow the search rather than raising it.
- For open-ended exploration that needs many rounds of searching, delegate to a subagent with the Task tool when one is available.
- Make independent searches in one message: they run in parallel.`;

/** The same contract in fewer words (the plugin's `description: condensed`). */
export const CONDENSED_DESCRIPTION = `Searches file contents for pattern (a regex, ripgrep syntax; escape literal braces) under path (file or folder, default: the working directory). Use it, not grep or rg through Bash: it respects .gitignore and the permission rules. glob ("*.{ts,tsx}", ! excludes) or type (js, py, ...) filter files. output_mode: files_with_matches (default, newest first), content (path:line:text; -n line numbers, -A/-B/-C context lines) or count. -i ignores case. Matches stay within a line unless multiline is true. At most ${DEFAULT_HEAD_LIMIT} results unless head_limit says otherwise (0: no limit); narrow the search rather than raising it.`;

/** Which search backend a Grep tool uses: ripgrep when found on PATH (`auto`), always the JS one (`js`), or ripgrep or fail (`ripgrep`). */
export type GrepBackendChoice = 'auto' | 'ripgrep' | 'js';

/** Builds the Grep tool with a backend choice (the `tools/grep` plugin's `backend` option). */
export function createGrepTool(backend: GrepBackendChoice = 'auto', description: 'full' | 'condensed' = 'full'): Tool<GrepInput> {
  const tool = grepToolWith(backend);
  return description === 'condensed' ? condensedTool(tool, CONDENSED_DESCRIPTION) : tool;
}

function grepToolWith(backend: GrepBackendChoice): Tool<GrepInput> {
  return defineTool<GrepInput>({
    name: 'Grep',
    description: DESCRIPTION,
    inputSchema: grepInput,
    inputJsonSchema: INPUT_JSON_SCHEMAS.grepInput,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    maxResultSizeChars: 20_000,
    filePath: (input) => input.path,
    async call(input, ctx) {
      // The search runs where the permission decision resolved the path; files met on the way
      // obey the Read deny rules one by one (ctx.checkPath).
      const target = callTarget(ctx, input.path ?? '.');
      const root = target.real;
      let rootIsFile = false;
      try {
        rootIsFile = !(await stat(root)).isDirectory();
      } catch (err) {
        if (errnoCode(err) === 'ENOENT') throw new ToolError(`Path does not exist: ${target.written}`);
        throw new ToolError(`Cannot search ${target.written}: ${(err as Error).message}`);
      }
      const context = input['-C'] ?? 0;
      const q: GrepQuery = {
        pattern: input.pattern,
        cwd: ctx.cwd,
        root,
        rootIsFile,
        mode: input.output_mode,
        ignoreCase: input['-i'] ?? false,
        lineNumbers: input['-n'] ?? true,
        before: input['-B'] ?? context,
        after: input['-A'] ?? context,
        multiline: input.multiline ?? false,
        globs: splitGlobs(input.glob),
        type: input.type,
        signal: ctx.signal,
        canRead: (abs) => ctx.checkPath(abs, 'read') === undefined,
        show: (abs) => displayPath(ctx.cwd, underWritten(target, abs)),
        hidden: 0,
        env: subprocessEnv(ctx.kernel, { kind: 'ripgrep', name: 'Grep' }),
      };
      checkPattern(q);
      let raw;
      const rg = backend === 'js' ? undefined : findRipgrep();
      if (rg) raw = await searchWithRipgrep(q, rg);
      else if (backend === 'ripgrep') throw new ToolError('ripgrep (rg) is not installed on this machine, and this agent is set to search only with ripgrep.');
      else raw = await searchWithJs(q);
      // The search went by path: the folder must still be the one the permission decision judged.
      if (!rootIsFile) assertSameDirectory(target);
      const text = await formatGrep(raw, ctx.cwd, input.head_limit ?? DEFAULT_HEAD_LIMIT);
      const hidden = q.hidden ?? 0;
      return hidden ? `${text}\n(${hidden} file${hidden === 1 ? ' was' : 's were'} not searched: the permission rules deny reading ${hidden === 1 ? 'it' : 'them'}.)` : text;
    },
  });
}

/** The Grep tool with the default backend choice (`auto`). */
export const grepTool = createGrepTool('auto');
