/**
 * A policy plugin: answers permission `ask`s from a file of decisions, so a headless run can be
 * allowed exactly the writes or commands a team agreed on, and nothing else.
 *
 * The file (YAML or JSON) is a list; the first entry whose `tool` and `input` patterns match the call
 * answers it:
 *
 *   - tool: Write                      # tool name, or "*" for any tool
 *     input: { file_path: "notes/**" } # glob per input field (picomatch); all must match
 *     decision: allow                  # allow | deny
 *   - tool: Write
 *     decision: deny
 *     message: Only notes/ may be written.   # what the model is told
 *
 * A call no entry matches is left to the next answerer; with none (a headless run) it is denied.
 * The file is read once, when the plugin loads, so a mistake in it stops the agent before it starts.
 */
import { readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import picomatch from 'picomatch';
import { parse } from 'yaml';
import { z } from 'zod';
import { definePlugin, type PermissionAsk, type PermissionDecision } from '../../index.js';

export const PLUGIN_NAME = 'policy-from-file';

const entrySchema = z.object({
  tool: z.string().min(1).describe('Tool name, or "*" for any tool.'),
  input: z.record(z.string(), z.string()).optional().describe('Glob per input field; every one must match.'),
  decision: z.enum(['allow', 'deny']),
  message: z.string().optional().describe('For deny: what the model is told.'),
}).strict();

/** One entry of the decisions file. */
export type PolicyEntry = z.output<typeof entrySchema>;

/** Reads and checks a decisions file. Throws an Error naming the file and the bad entry. */
export function readPolicy(file: string): PolicyEntry[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read the decisions file ${file}: ${(err as Error).message}`, { cause: err });
  }
  let data: unknown;
  try {
    data = parse(text);
  } catch (err) {
    throw new Error(`${file}: ${(err as Error).message.split('\n')[0]}`, { cause: err });
  }
  const parsed = z.array(entrySchema).safeParse(data ?? []);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const [index, ...field] = issue.path;
    const where = typeof index === 'number' ? `entry ${index + 1}${field.length ? ` (${field.join('.')})` : ''}` : 'the top level';
    throw new Error(`${file}: ${where}: ${issue.message}`);
  }
  return parsed.data;
}

/** The values a glob is matched against: the value, and for an absolute path also the path relative to cwd. */
function forms(value: unknown, cwd: string): string[] {
  if (typeof value !== 'string') return value === undefined ? [] : [JSON.stringify(value)];
  return isAbsolute(value) ? [value, relative(cwd, value)] : [value];
}

/** The first entry matching a call, or undefined. */
export function matchPolicy(entries: readonly PolicyEntry[], toolName: string, input: Record<string, unknown>, cwd: string): PolicyEntry | undefined {
  return entries.find((e) => (e.tool === '*' || e.tool === toolName)
    && Object.entries(e.input ?? {}).every(([field, glob]) => forms(input[field], cwd).some((v) => picomatch.isMatch(v, glob, { dot: true }))));
}

const options = z.object({
  file: z.string().min(1).describe('The decisions file, YAML or JSON, relative to the preset.'),
}).strict();

export default definePlugin({
  name: PLUGIN_NAME,
  description: 'Answers permission asks from a file of allow/deny decisions.',
  options,
  apply(kernel, { file }) {
    const path = resolve(kernel.presetDir, file);
    const entries = readPolicy(path);
    // permissionRequest is asked only for calls the permission stage answered with `ask`: what a deny
    // rule stopped never gets here, so this file cannot allow past a deny rule.
    kernel.hooks.permissionRequest.tapPromise(PLUGIN_NAME, async (ask: PermissionAsk): Promise<PermissionDecision | undefined> => {
      const hit = matchPolicy(entries, ask.toolName, ask.input, kernel.cwd);
      if (!hit) return undefined;
      const source = `${PLUGIN_NAME} (${file})`;
      return hit.decision === 'allow'
        ? { behavior: 'allow', reason: `allowed by ${source}`, source }
        : { behavior: 'deny', message: hit.message ?? `${ask.toolName} is not allowed by ${file}.`, reason: `denied by ${source}`, source };
    });
  },
});
