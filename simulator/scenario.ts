/**
 * Scenario files: the `script` responder's turns, written in YAML and validated with zod.
 *
 * ```yaml
 * model: claude-sonnet-4-5          # optional: the responses' `model` field
 * turns:                            # one entry per main-loop request, in order
 *   - reply: [{ text: "Reading it." }, { tool_use: { name: Read, input: { file_path: notes.txt } } }]
 *   - fault: { status: 529 }        # this request fails; the retry gets the next entry
 *   - reply: [{ text: "Done." }]
 *     stop_reason: end_turn         # default: tool_use if a tool_use block is present, else end_turn
 * side:                             # answers for side requests; never consume turns
 *   - match: { source: compact }    # and/or system: "regex", lastUser: "regex"
 *     reply: [{ text: "<summary>...</summary>" }]
 * ```
 *
 * Reply blocks: `{text}`, `{tool_use: {name, input?, id?}}`, `{thinking: {thinking, signature?}}`,
 * `{redacted_thinking: data}`. A turn may force `usage` fields. Faults: `{status, body?,
 * retryAfter? (s), headers?}`, `{cut: {afterEvents}}`, `{slowFirstByteMs}`, `{idle: {afterEvents,
 * ms}}`; all but `status` combine with `reply`. Errors name file:line:column and what was expected.
 */
import { readFileSync } from 'node:fs';
import { closest } from 'fastest-levenshtein';
import { isMap, isPair, isScalar, LineCounter, parseDocument, visit, type Node } from 'yaml';
import { z } from 'zod';

/** Most alias expansions a scenario may use (yaml's own default, as for presets). */
export const MAX_SCENARIO_ALIASES = 100;

const STOP_REASONS = ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal'] as const;
const SOURCES = ['main_loop', 'subagent', 'compact', 'classifier', 'title', 'hook', 'side'] as const;

const regex = z.string().refine((s) => { try { new RegExp(s); return true; } catch { return false; } }, { message: 'not a valid regular expression' });

const ReplyBlock = z.strictObject({
  text: z.string().optional(),
  tool_use: z.strictObject({
    name: z.string().min(1),
    input: z.record(z.string(), z.unknown()).optional(),
    id: z.string().min(1).optional(),
  }).optional(),
  thinking: z.strictObject({ thinking: z.string(), signature: z.string().optional() }).optional(),
  redacted_thinking: z.string().optional(),
}).refine((b) => Object.keys(b).length === 1, {
  message: 'a reply block has exactly one of text, tool_use, thinking, redacted_thinking',
});

const Usage = z.strictObject({
  input_tokens: z.int().nonnegative().optional(),
  output_tokens: z.int().nonnegative().optional(),
  cache_creation_input_tokens: z.int().nonnegative().optional(),
  cache_read_input_tokens: z.int().nonnegative().optional(),
  cache_creation: z.strictObject({
    ephemeral_5m_input_tokens: z.int().nonnegative().optional(),
    ephemeral_1h_input_tokens: z.int().nonnegative().optional(),
  }).optional(),
});

const Fault = z.strictObject({
  status: z.int().min(400).max(599).optional(),
  body: z.union([z.string(), z.record(z.string(), z.unknown())]).optional(),
  retryAfter: z.number().nonnegative().optional(),
  headers: z.record(z.string(), z.string()).optional(),
  cut: z.strictObject({ afterEvents: z.int().nonnegative() }).optional(),
  slowFirstByteMs: z.int().nonnegative().optional(),
  idle: z.strictObject({ afterEvents: z.int().nonnegative(), ms: z.int().nonnegative() }).optional(),
}).refine((f) => f.status !== undefined || f.cut || f.idle || f.slowFirstByteMs !== undefined, {
  message: 'a fault needs one of status, cut, idle, slowFirstByteMs',
}).refine((f) => f.status === undefined || (!f.cut && !f.idle), {
  message: 'a status fault is an HTTP error and cannot also cut or stall a stream',
}).refine((f) => f.status !== undefined || (f.body === undefined && f.retryAfter === undefined && f.headers === undefined), {
  message: 'body, retryAfter and headers belong to a status fault',
});

const answer = {
  reply: z.array(ReplyBlock).min(1).optional(),
  stop_reason: z.enum(STOP_REASONS).optional(),
  usage: Usage.optional(),
  model: z.string().min(1).optional(),
  fault: Fault.optional(),
};

function checkAnswer(t: { reply?: unknown; fault?: { status?: number } }, ctx: z.RefinementCtx) {
  if (!t.reply && !t.fault) ctx.addIssue({ code: 'custom', message: 'expected reply or fault' });
  if (t.reply && t.fault?.status !== undefined) ctx.addIssue({ code: 'custom', message: 'a status fault has no reply (the request fails); put the reply in the next turn', path: ['fault', 'status'] });
}

const Turn = z.strictObject(answer).superRefine(checkAnswer);

const Side = z.strictObject({
  match: z.strictObject({
    source: z.enum(SOURCES).optional(),
    system: regex.optional(),
    lastUser: regex.optional(),
  }).refine((m) => Object.keys(m).length > 0, { message: 'match needs one of source, system, lastUser' }),
  ...answer,
}).superRefine(checkAnswer);

/** The zod schema of a scenario file. */
export const ScenarioSchema = z.strictObject({
  model: z.string().min(1).optional(),
  turns: z.array(Turn),
  side: z.array(Side).optional(),
});

export type Scenario = z.infer<typeof ScenarioSchema>;
export type ScenarioTurn = z.infer<typeof Turn>;
export type ScenarioSide = z.infer<typeof Side>;
export type ScenarioReplyBlock = z.infer<typeof ReplyBlock>;

/** A scenario that failed to parse or validate. `message` is `file:line:column: what was expected`. */
export class ScenarioError extends Error {
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
  /** Every problem found, one line each (message is the first). */
  readonly problems: string[];
  constructor(file: string, problems: { line?: number; column?: number; text: string }[]) {
    const first = problems[0]!;
    super(format(file, first));
    this.name = 'ScenarioError';
    this.file = file;
    this.line = first.line;
    this.column = first.column;
    this.problems = problems.map((p) => format(file, p));
  }
}

function format(file: string, p: { line?: number; column?: number; text: string }): string {
  return p.line ? `${file}:${p.line}:${p.column ?? 1}: ${p.text}` : `${file}: ${p.text}`;
}

function pathString(path: readonly PropertyKey[]): string {
  let s = '';
  for (const k of path) s += typeof k === 'number' ? `[${k}]` : s ? `.${String(k)}` : String(k);
  return s || '(top level)';
}

function unwrap(s: z.ZodType | undefined): z.ZodType | undefined {
  while (s) {
    if (s instanceof z.ZodOptional || s instanceof z.ZodNullable || s instanceof z.ZodDefault) s = s.unwrap() as z.ZodType;
    else if (s instanceof z.ZodPipe) s = s.in as z.ZodType;
    else return s;
  }
  return s;
}

function keysAt(path: readonly PropertyKey[]): string[] {
  let s = unwrap(ScenarioSchema as z.ZodType);
  for (const k of path) {
    if (s instanceof z.ZodArray) s = unwrap(s.element as z.ZodType);
    else if (s instanceof z.ZodObject) s = unwrap((s.shape as Record<string, z.ZodType>)[String(k)]);
    else return [];
  }
  return s instanceof z.ZodObject ? Object.keys(s.shape) : [];
}

/**
 * Parses and validates scenario YAML. `file` names the source in errors.
 * Throws ScenarioError (`file:line:column: ...`) on YAML syntax errors, duplicate keys and schema
 * violations (unknown keys get a "did you mean").
 */
export function parseScenario(text: string, file = '<scenario>'): Scenario {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length) {
    throw new ScenarioError(file, doc.errors.map((e) => {
      const pos = lineCounter.linePos(e.pos[0]);
      return { line: pos.line, column: pos.col, text: e.message.split('\n')[0]! };
    }));
  }
  let data: unknown;
  try {
    data = doc.toJS({ maxAliasCount: MAX_SCENARIO_ALIASES }) ?? {};
  } catch (err) {
    // yaml refuses a document whose aliases expand past the count (a billion-laughs bomb).
    let first: number | undefined;
    visit(doc, { Alias(_key, node) { first = node.range?.[0]; return visit.BREAK; } });
    const p = first !== undefined ? lineCounter.linePos(first) : undefined;
    const text = /alias/i.test((err as Error).message)
      ? `YAML: aliases expand to too many nodes (more than ${MAX_SCENARIO_ALIASES}); an alias bomb? Write the values out instead`
      : `YAML: ${(err as Error).message}`;
    throw new ScenarioError(file, [{ ...(p ? { line: p.line, column: p.col } : {}), text }]);
  }
  const result = ScenarioSchema.safeParse(data);
  if (result.success) return result.data;

  const at = (offset: number | undefined) => {
    if (offset === undefined) return {};
    const p = lineCounter.linePos(offset);
    return { line: p.line, column: p.col };
  };
  const nodeAt = (path: readonly PropertyKey[]): Node | undefined => {
    for (let n = path.length; n >= 0; n--) {
      const node = n === 0 ? doc.contents : doc.getIn(path.slice(0, n) as unknown[], true);
      if (node && typeof node === 'object' && 'range' in (node as object)) return node as Node;
    }
    return undefined;
  };
  const problems = result.error.issues.map((issue) => {
    const where = pathString(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const key = issue.keys[0]!;
      const map = nodeAt(issue.path);
      let offset = map?.range?.[0];
      if (map && isMap(map)) {
        const pair = map.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === key);
        if (pair && isScalar(pair.key)) offset = pair.key.range?.[0];
      }
      const allowed = keysAt(issue.path);
      const guess = allowed.length ? closest(key, allowed) : undefined;
      const hint = guess ? ` (did you mean "${guess}"?)` : '';
      return { ...at(offset), text: `${where}: unknown key "${key}"; expected one of ${allowed.join(', ')}${hint}` };
    }
    const node = nodeAt(issue.path);
    return { ...at(node?.range?.[0]), text: `${where}: ${issue.message}` };
  });
  throw new ScenarioError(file, problems);
}

/** Reads and validates a scenario file (UTF-8). Throws ScenarioError, also when the file cannot be read. */
export function loadScenario(path: string): Scenario {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === 'ENOENT' ? 'no such file' : e.code === 'EISDIR' ? 'a folder, not a file' : e.code === 'EACCES' || e.code === 'EPERM' ? 'permission denied' : e.message;
    throw new ScenarioError(path, [{ text: `cannot read the scenario: ${why}` }]);
  }
  return parseScenario(text, path);
}
