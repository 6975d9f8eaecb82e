/**
 * A tool plugin: `WordCount` counts the lines, words and characters of a text file, like `wc`.
 *
 * A preset loads it by path (`plugins: { ./word-count.ts: { maxFileBytes: 100000 } }`); rein imports
 * the file with jiti, so it stays TypeScript. Published as a package, it would import from `rein`
 * instead of the relative kernel path.
 */
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { z } from 'zod';
import { definePlugin, defineTool, ToolError } from '../../index.js';

/** The counts `wc` prints, for one text. Words are runs of non-whitespace. */
export function countText(text: string): { lines: number; words: number; characters: number } {
  return {
    lines: text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0),
    words: text.split(/\s+/).filter(Boolean).length,
    characters: [...text].length,
  };
}

const options = z.object({
  maxFileBytes: z.number().int().positive().default(1_000_000)
    .describe('Largest file WordCount reads, bytes; a bigger file is an error the model sees.'),
}).strict();

export default definePlugin({
  name: 'word-count',
  description: 'The WordCount tool: lines, words and characters of a text file.',
  options,
  apply(kernel, { maxFileBytes }) {
    kernel.tools.register(defineTool({
      name: 'WordCount',
      description: 'Counts the lines, words and characters of a text file. file_path is absolute or relative to the working directory.',
      inputSchema: z.object({ file_path: z.string().min(1).describe('The file to count') }).strict(),
      // Only reads, so permission mode `default` runs it inside the working directory without asking.
      // Left out, both would be false: tools fail closed.
      isReadOnly: () => true,
      isConcurrencySafe: () => true,
      // Lets path rules such as `deny: ["WordCount(secrets/**)"]` apply to this tool.
      filePath: (input) => input.file_path,
      async call({ file_path }, ctx) {
        const path = resolve(ctx.cwd, file_path);
        const info = await stat(path).catch(() => undefined);
        // A ToolError's message goes back to the model as an is_error tool_result; the run goes on.
        if (!info?.isFile()) throw new ToolError(`${file_path} is not a file`);
        if (info.size > maxFileBytes) throw new ToolError(`${file_path} is ${info.size} bytes, more than the ${maxFileBytes} WordCount reads`);
        const { lines, words, characters } = countText(await readFile(path, 'utf8'));
        return `${file_path}: ${lines} lines, ${words} words, ${characters} characters`;
      },
    }), 'word-count');
  },
});
