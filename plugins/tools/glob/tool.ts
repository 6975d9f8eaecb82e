/**
 * `Glob`: files whose path matches a glob pattern, newest first, at most GLOB_MAX_RESULTS of them.
 * The walk honours `.gitignore` files and skips version-control folders (see shared/walk.ts).
 */
import { statSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { isAbsolute, join } from 'node:path';
import picomatch from 'picomatch';
import { z } from 'zod';
import { defineTool, ToolError } from '../../../kernel/index.js';
import { comparePaths, walkFiles } from '../shared/walk.js';
import { slicer } from '../shared/yield.js';
import { displayPath, errnoCode } from '../shared/paths.js';
import { assertSameDirectory, callTarget, underWritten } from '../shared/target.js';
import { INPUT_JSON_SCHEMAS } from '../shared/generated/input-schemas.js';

/** Most paths one Glob returns (Claude Code's Glob limit). */
export const GLOB_MAX_RESULTS = 100;

export const globInput = z.lazy(() => z.strictObject({
  pattern: z.string().min(1).describe('Glob pattern to match file paths against, e.g. "**/*.ts" or "src/**/test_*.py"'),
  path: z.string().optional().describe('Folder to search in (default: the working directory). Omit it to search the working directory; never pass "undefined" or "null"'),
}));

export type GlobInput = z.output<typeof globInput>;

const DESCRIPTION = `Finds files by name with a glob pattern, in any size of code base.

Usage:
- Patterns match paths relative to the search folder: "*.json" matches only that folder's files, "**/*.json" matches at any depth, "src/**/*.{ts,tsx}" matches under src.
- Results are file paths (relative to the working directory when inside it), newest first, at most ${GLOB_MAX_RESULTS}; narrow the pattern or path if you hit the limit.
- Files ignored by .gitignore and version-control folders such as .git are left out; hidden files are included.
- Use Glob rather than find or ls through Bash to locate files by name; use Grep to find files by content.
- When you need several searches, make them in one message: they run in parallel.`;

/**
 * Where a Glob really searches: the pattern's literal base (`../outside` in `../outside/*`, or the
 * whole base of an absolute pattern) joined to `path`, and what is left of the pattern. This is the
 * path the permission rules judge (`filePath`), so a pattern cannot move the search out of what
 * was checked.
 */
export function globRoot(input: Pick<GlobInput, 'pattern' | 'path'>): { root: string; glob: string; isGlob: boolean } {
  const scan = picomatch.scan(input.pattern);
  if (isAbsolute(input.pattern)) return { root: scan.base || '/', glob: scan.glob, isGlob: scan.isGlob };
  const path = input.path ?? '.';
  return scan.base ? { root: join(path, scan.base), glob: scan.glob, isGlob: scan.isGlob } : { root: path, glob: input.pattern, isGlob: scan.isGlob };
}

/** The same contract in fewer words (the plugin's `description: condensed`). */
export const CONDENSED_DESCRIPTION = `Finds files whose path matches pattern ("**/*.ts", "src/**/*.{ts,tsx}"), relative to path (default: the working directory). Returns paths newest first, at most ${GLOB_MAX_RESULTS}; .gitignore'd files and .git are left out. Use it instead of find or ls -R; use Grep to search contents.`;

export const globTool = defineTool<GlobInput>({
  name: 'Glob',
  description: DESCRIPTION,
  inputSchema: globInput,
  inputJsonSchema: INPUT_JSON_SCHEMAS.globInput,
  isReadOnly: () => true,
  isConcurrencySafe: () => true,
  maxResultSizeChars: 100_000,
  filePath: (input) => globRoot(input).root,
  async call(input, ctx) {
    const { glob, isGlob } = globRoot(input);
    const target = callTarget(ctx, globRoot(input).root);
    const root = target.real;
    const written = target.written;
    try {
      const st = await stat(root);
      if (!st.isDirectory()) {
        if (!isGlob) return displayPath(ctx.cwd, written);
        throw new ToolError(`${written} is not a directory; give a folder as path.`);
      }
    } catch (err) {
      if (err instanceof ToolError) throw err;
      if (errnoCode(err) === 'ENOENT') {
        if (input.path !== undefined && globRoot({ pattern: input.pattern }).root === '.') throw new ToolError(`Directory does not exist: ${written}`);
        return 'No files found';
      }
      throw new ToolError(`Cannot search ${written}: ${(err as Error).message}`);
    }
    if (!glob) return 'No files found';
    const isMatch = picomatch(glob, { dot: true });
    const maxDepth = glob.includes('**') || glob.includes('{') ? undefined : glob.split('/').length - 1;
    // Files a Read deny rule covers are left out, one by one (the walk's paths hold no links).
    let hidden = 0;
    const accept = (rel: string) => {
      if (!isMatch(rel)) return false;
      if (ctx.checkPath(join(root, rel), 'read') === undefined) return true;
      hidden++;
      return false;
    };
    const files = await walkFiles(root, { accept, maxDepth, signal: ctx.signal });
    // The walk went by path: the folder must still be the one the permission decision judged.
    assertSameDirectory(target);
    const note = hidden ? `\n(${hidden} matching file${hidden === 1 ? ' is' : 's are'} not listed: the permission rules deny reading ${hidden === 1 ? 'it' : 'them'}.)` : '';
    if (files.length === 0) return `No files found${note}`;

    const tick = slicer(ctx.signal);
    const dated: { shown: string; mtime: number }[] = [];
    for (const f of files) {
      let mtime = 0;
      try { mtime = statSync(f).mtimeMs; } catch { /* vanished meanwhile */ }
      dated.push({ shown: displayPath(ctx.cwd, underWritten(target, f)), mtime });
      const wait = tick();
      if (wait) await wait;
    }
    dated.sort((a, b) => b.mtime - a.mtime || comparePaths(a.shown, b.shown));
    const shown = dated.slice(0, GLOB_MAX_RESULTS).map((d) => d.shown);
    if (dated.length > GLOB_MAX_RESULTS) {
      shown.push(`(${dated.length} files matched; showing the ${GLOB_MAX_RESULTS} newest. Use a narrower pattern or path to see the others.)`);
    }
    return shown.join('\n') + note;
  },
});
