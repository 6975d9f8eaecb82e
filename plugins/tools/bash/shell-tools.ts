/**
 * `BashOutput{bash_id, filter}` and `KillShell{shell_id}`: Claude Code's tools for background
 * shells (names and fields as Claude Code 2.0 has them, so recorded sessions and permission rules
 * carry over). The result of BashOutput uses Claude Code's layout (`<status>`, `<exit_code>`,
 * `<stdout>`, `<stderr>`, `<timestamp>`), which models trained on it read without help.
 */
import { z } from 'zod';
import { defineTool, ToolError, type Tool } from '../../../kernel/index.js';
import { shellsOf, type Shell } from './background.js';
import { BASH_MAX_OUTPUT_CHARS } from './tool.js';
import { INPUT_JSON_SCHEMAS } from '../shared/generated/input-schemas.js';

export const bashOutputInput = z.lazy(() => z.strictObject({
  bash_id: z.string().min(1).describe('The id of the background shell (from Bash with run_in_background)'),
  filter: z.string().optional().describe('A regular expression: only new lines that match it are returned; the others are discarded and cannot be read again'),
}));
export type BashOutputInput = z.output<typeof bashOutputInput>;

export const killShellInput = z.lazy(() => z.strictObject({
  shell_id: z.string().min(1).describe('The id of the background shell to stop'),
}));
export type KillShellInput = z.output<typeof killShellInput>;

/** The part of a stream's new text shown: whole, or its end when it is longer than half of Bash's cap. */
function shown(text: string, file: string): string {
  const max = Math.floor(BASH_MAX_OUTPUT_CHARS / 2);
  if (text.length <= max) return text;
  const tail = text.slice(text.length - max);
  const cut = tail.indexOf('\n');
  const kept = cut !== -1 && cut < 200 ? tail.slice(cut + 1) : tail;
  return `[${text.length - kept.length} earlier characters not shown; the whole output is in ${file}]\n${kept}`;
}

function unknownShell(kind: string, id: string, all: Shell[]): ToolError {
  const known = all.map((s) => s.id);
  return new ToolError(`No background shell with id ${id}.${known.length ? ` The ${kind} of this session: ${known.join(', ')}.` : ' This session has started none.'}`);
}

/** Builds BashOutput. */
export function createBashOutputTool(): Tool<BashOutputInput> {
  return defineTool<BashOutputInput>({
    name: 'BashOutput',
    description: `Reads the output of a background shell started with Bash run_in_background: what it wrote since the last read, with its status (running, completed, failed or killed) and exit code.

- filter (optional) is a regular expression: only matching lines are returned, and the lines that do not match are discarded.
- Each read returns only new output. The whole output stays in the shell's files, whose paths are shown when a read is too long to return.
- You are told when a background shell ends; read it then rather than polling in a loop.`,
    inputSchema: bashOutputInput,
    inputJsonSchema: INPUT_JSON_SCHEMAS.bashOutputInput,
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    maxResultSizeChars: BASH_MAX_OUTPUT_CHARS,
    async call(input, ctx) {
      const shells = shellsOf(ctx.kernel);
      const shell = shells.get(input.bash_id);
      if (!shell) throw unknownShell('shells', input.bash_id, shells.list());
      let filter: RegExp | undefined;
      if (input.filter !== undefined) {
        try {
          filter = new RegExp(input.filter);
        } catch (err) {
          throw new ToolError(`filter is not a valid regular expression: ${(err as Error).message}`);
        }
      }
      const parts = [`<status>${shell.status}</status>`];
      if (shell.status !== 'running' && shell.exitCode !== null) parts.push(`<exit_code>${shell.exitCode}</exit_code>`);
      if (shell.status === 'killed' && shell.killedBecause) parts.push(`<killed>${shell.killedBecause}</killed>`);
      for (const stream of ['stdout', 'stderr'] as const) {
        const { text: raw, missed } = shells.readNew(shell, stream);
        let text = raw.replace(/\n$/, '');
        if (filter && text) text = text.split('\n').filter((line) => filter.test(line)).join('\n');
        const lost = missed ? `[${missed} bytes were dropped before they were read: the output passed its cap of ${shells.options.maxOutputBytes} bytes]\n` : '';
        if (text || lost) parts.push(`<${stream}>\n${lost}${shown(text, stream === 'stdout' ? shell.stdoutFile : shell.stderrFile)}\n</${stream}>`);
      }
      shells.saveReads(shell);
      if (shell.status !== 'running') shells.markReported(shell);
      parts.push(`<timestamp>${new Date().toISOString()}</timestamp>`);
      return parts.join('\n\n');
    },
  });
}

/** Builds KillShell. */
export function createKillShellTool(): Tool<KillShellInput> {
  return defineTool<KillShellInput>({
    name: 'KillShell',
    description: 'Stops a background shell started with Bash run_in_background, with every process it started (its whole process group). Give its shell_id.',
    inputSchema: killShellInput,
    inputJsonSchema: INPUT_JSON_SCHEMAS.killShellInput,
    // It can stop only processes this session started in the background, so modes let it run like a read.
    isReadOnly: () => true,
    isConcurrencySafe: () => true,
    async call(input, ctx) {
      const shells = shellsOf(ctx.kernel);
      const shell = shells.get(input.shell_id);
      if (!shell) throw unknownShell('shells', input.shell_id, shells.list());
      if (!(await shells.kill(shell, 'stopped with KillShell'))) {
        throw new ToolError(`Shell ${shell.id} is not running (status: ${shell.status}${shell.exitCode !== null ? `, exit code ${shell.exitCode}` : ''}); there is nothing to stop.`);
      }
      shells.markReported(shell);
      return `Successfully killed shell: ${shell.id} (${shell.command})`;
    },
  });
}
