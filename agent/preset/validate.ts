/**
 * Checks one preset value: the JSON Schema (the precompiled ajv validator, every error at once) and
 * the rules a schema cannot say (permission rule syntax, tool-name typos, one of text/file).
 * Each ajv error becomes a sentence that names the key, says what was expected and what was found,
 * and offers the nearest valid key or value.
 */
import { presetJsonSchema as generatedSchema, validate as validateCore } from './generated/preset-validator.js';
import { DiagnosticSink, keyPath, type KeyPath } from './errors.js';
import type { PresetSource } from './source.js';
import { closest, didYouMean } from './suggest.js';
import { parseRule, RuleSyntaxError } from '../../plugins/permissions/shared/rule.js';

type JsonSchema = Record<string, any>;

const presetJsonSchema = generatedSchema as JsonSchema;

/** An ajv error as the standalone validator reports it. */
interface AjvError {
  instancePath: string;
  schemaPath: string;
  keyword: string;
  params: Record<string, any>;
  propertyName?: string;
  message?: string;
}

/**
 * Claude Code's tool names (Claude Code settings docs), so permission rules and
 * `tools:` entries with a typo (`Bahs`, `read`) are caught. Tools from plugins and MCP servers
 * (`mcp__server__tool`) are allowed too: a name far from all of these is not an error.
 */
export const KNOWN_TOOL_NAMES = [
  'Agent', 'Bash', 'BashOutput', 'Edit', 'ExitPlanMode', 'Glob', 'Grep', 'KillShell', 'LS', 'MultiEdit',
  'NotebookEdit', 'NotebookRead', 'Read', 'Skill', 'SlashCommand', 'Task', 'TodoWrite', 'WebFetch', 'WebSearch', 'Write',
] as const;

/** Keys whose values are permission rules (`Tool` or `Tool(specifier)`). */
const RULE_LISTS = ['allow', 'ask', 'deny'] as const;

// ---------------------------------------------------------------------------------------------
// Schema navigation (for "did you mean" and "it belongs under ...")

function deref(s: JsonSchema | undefined): JsonSchema | undefined {
  if (!s || typeof s !== 'object') return undefined;
  if (typeof s.$ref === 'string' && s.$ref.startsWith('#/$defs/')) {
    return deref(presetJsonSchema.$defs?.[decodeURIComponent(s.$ref.slice(8))] as JsonSchema);
  }
  return s;
}

/** All schemas (union branches expanded) that apply at a data path. */
function schemasAt(path: KeyPath): JsonSchema[] {
  let current: JsonSchema[] = [presetJsonSchema as JsonSchema];
  const expand = (list: JsonSchema[]): JsonSchema[] => list.flatMap((s) => {
    const d = deref(s);
    if (!d) return [];
    const branches = (d.anyOf ?? d.oneOf) as JsonSchema[] | undefined;
    return branches ? expand(branches) : [d];
  });
  current = expand(current);
  for (const seg of path) {
    const next: JsonSchema[] = [];
    for (const s of current) {
      if (typeof seg === 'number' && s.items) next.push(s.items);
      else if (typeof seg === 'string' && s.properties?.[seg]) next.push(s.properties[seg]);
      else if (typeof seg === 'string' && s.additionalProperties && typeof s.additionalProperties === 'object') next.push(s.additionalProperties);
    }
    current = expand(next);
  }
  return current;
}

function propertyNamesAt(path: KeyPath): string[] {
  return [...new Set(schemasAt(path).flatMap((s) => Object.keys(s.properties ?? {})))];
}

/** Where else in the schema a key of this name is valid (`allow` → `permissions.allow`). */
function keyElsewhere(name: string): string | undefined {
  const found: string[] = [];
  const visit = (s: JsonSchema | undefined, path: string[], depth: number): void => {
    const d = deref(s);
    if (!d || depth > 3) return;
    for (const b of (d.anyOf ?? d.oneOf ?? []) as JsonSchema[]) visit(b, path, depth);
    for (const [k, v] of Object.entries((d.properties ?? {}) as Record<string, JsonSchema>)) {
      if (k === name && path.length) found.push([...path, k].join('.'));
      visit(v, [...path, k], depth + 1);
    }
  };
  visit(presetJsonSchema as JsonSchema, [], 0);
  return found[0];
}

// ---------------------------------------------------------------------------------------------
// Describing values and expectations

function describeValue(v: unknown): string {
  if (v === null || v === undefined) return 'nothing (the key has no value)';
  if (typeof v === 'string') return `a string (${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)})`;
  if (typeof v === 'number') return `${Number.isInteger(v) ? 'an integer' : 'a number'} (${v})`;
  if (typeof v === 'boolean') return `${v}`;
  if (Array.isArray(v)) return 'a list';
  return 'a mapping';
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a string', number: 'a number', integer: 'an integer', boolean: 'true or false',
  object: 'a mapping', array: 'a list', null: 'nothing',
};

function expectWords(types: string[]): string {
  const uniq = [...new Set(types)];
  const words = uniq.flatMap((t) => (t === 'boolean' && uniq.length > 1 ? ['true', 'false'] : [TYPE_WORDS[t] ?? t]));
  return words.length <= 2 ? words.join(' or ') : `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}

function pointerToPath(pointer: string): (string | number)[] {
  if (!pointer) return [];
  return pointer.slice(1).split('/').map((s) => {
    const k = s.replace(/~1/g, '/').replace(/~0/g, '~');
    return /^\d+$/.test(k) ? Number(k) : k;
  });
}

function getAt(value: unknown, path: KeyPath): unknown {
  let v: any = value;
  for (const seg of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = v[seg as any];
  }
  return v;
}

function where(path: KeyPath): string {
  return path.length ? `in ${keyPath(path)}` : 'at the top level';
}

function prefix(path: KeyPath): string {
  return path.length ? `${keyPath(path)}: ` : '';
}

// ---------------------------------------------------------------------------------------------
// ajv errors → diagnostics

/** Replaces each failed anyOf/oneOf and its branches' errors by the errors of the branch the value most likely meant. */
function resolveUnions(errors: AjvError[]): AjvError[] {
  let list = [...errors];
  const unions = list.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').sort((a, b) => b.schemaPath.length - a.schemaPath.length);
  for (const u of unions) {
    if (!list.includes(u)) continue;
    const pre = `${u.schemaPath}/`;
    const branchErrs = list.filter((e) => e !== u && e.schemaPath.startsWith(pre) && (e.instancePath === u.instancePath || e.instancePath.startsWith(`${u.instancePath}/`)));
    const groups = new Map<number, AjvError[]>();
    for (const e of branchErrs) {
      const i = Number.parseInt(e.schemaPath.slice(pre.length), 10);
      if (!groups.has(i)) groups.set(i, []);
      groups.get(i)!.push(e);
    }
    list = list.filter((e) => e !== u && !branchErrs.includes(e));
    const branches = [...groups.values()];
    const typeOk = branches.filter((b) => !b.some((e) => e.keyword === 'type' && e.instancePath === u.instancePath));
    let chosen: AjvError[];
    if (typeOk.length === 0) {
      const types = branches.flatMap((b) => b.filter((e) => e.keyword === 'type' && e.instancePath === u.instancePath).map((e) => String(e.params.type)));
      chosen = [{ instancePath: u.instancePath, schemaPath: u.schemaPath, keyword: 'type', params: { type: types.join(',') } }];
    } else if (typeOk.length === 1) {
      chosen = typeOk[0]!;
    } else {
      const discPath = `${u.instancePath}/type`;
      const discOk = typeOk.filter((b) => !b.some((e) => e.keyword === 'const' && e.instancePath === discPath));
      if (discOk.length) {
        chosen = discOk.reduce((a, b) => (b.length < a.length ? b : a));
      } else {
        const allowed = typeOk.flatMap((b) => b.filter((e) => e.keyword === 'const' && e.instancePath === discPath).map((e) => String(e.params.allowedValue)));
        chosen = [{ instancePath: discPath, schemaPath: `${u.schemaPath}/type`, keyword: 'enum', params: { allowedValues: [...new Set(allowed)] } }];
      }
    }
    list.push(...chosen);
  }
  return list;
}

function ajvMessage(e: AjvError, data: unknown): { path: (string | number)[]; part: 'key' | 'value'; message: string } | undefined {
  const path = pointerToPath(e.instancePath);
  const value = getAt(data, path);
  switch (e.keyword) {
    case 'additionalProperties': {
      const key = String(e.params.additionalProperty);
      const full = [...path, key];
      if (key === '<<') return { path: full, part: 'key', message: 'YAML merge keys ("<<") are not supported; use extends to build on another preset' };
      const names = propertyNamesAt(path);
      const near = closest(key, names);
      if (near) return { path: full, part: 'key', message: `unknown key "${key}" ${where(path)}; did you mean "${near}"?` };
      const elsewhere = keyElsewhere(key);
      if (elsewhere && elsewhere !== keyPath(full)) return { path: full, part: 'key', message: `unknown key "${key}" ${where(path)}; it belongs under ${elsewhere.split('.').slice(0, -1).join('.')} (${elsewhere})` };
      return { path: full, part: 'key', message: `unknown key "${key}" ${where(path)} (expected one of: ${names.join(', ')})` };
    }
    case 'required': {
      const key = String(e.params.missingProperty);
      return { path, part: 'key', message: `${prefix(path)}missing required key "${key}"` };
    }
    case 'type': {
      const types = String(e.params.type).split(',');
      let hint = '';
      if (types.includes('boolean') && typeof value === 'string' && /^(yes|no|on|off|y|n)$/i.test(value)) hint = '; YAML 1.2 reads yes/no/on/off as strings, write true or false';
      else if (types.includes('object') && typeof value === 'string' && keyPath(path) === 'model') hint = `; write model: { name: ${value} }`;
      else if (types.includes('array') && typeof value === 'string') hint = `; write [${value}] for a list of one`;
      return { path, part: 'value', message: `${prefix(path)}expected ${expectWords(types)}, got ${describeValue(value)}${hint}` };
    }
    case 'enum': {
      const allowed = (e.params.allowedValues as unknown[]).map(String);
      const got = typeof value === 'string' ? `"${value}"` : describeValue(value);
      if (value === undefined) return { path, part: 'value', message: `${prefix(path)}missing (one of ${allowed.join(', ')})` };
      return { path, part: 'value', message: `${prefix(path)}${got} is not one of ${allowed.join(', ')}${typeof value === 'string' ? didYouMean(value, allowed) : ''}` };
    }
    case 'const':
      return { path, part: 'value', message: `${prefix(path)}must be ${JSON.stringify(e.params.allowedValue)}, got ${describeValue(value)}` };
    case 'minLength':
      return { path, part: 'value', message: `${prefix(path)}must not be empty` };
    case 'minItems':
      return { path, part: 'value', message: `${prefix(path)}must list at least ${e.params.limit} item${e.params.limit === 1 ? '' : 's'}` };
    case 'minimum':
      return { path, part: 'value', message: `${prefix(path)}must be at least ${e.params.limit}, got ${describeValue(value)}` };
    case 'exclusiveMinimum':
      return { path, part: 'value', message: `${prefix(path)}must be greater than ${e.params.limit}, got ${describeValue(value)}` };
    case 'maximum':
      return { path, part: 'value', message: `${prefix(path)}must be at most ${e.params.limit}, got ${describeValue(value)}` };
    case 'pattern':
      if (e.params.pattern === '^https?:\\/\\/') return { path, part: 'value', message: `${prefix(path)}must be an http:// or https:// URL, got ${describeValue(value)}` };
      return { path, part: 'value', message: `${prefix(path)}${describeValue(value)} does not match /${e.params.pattern}/` };
    case 'propertyNames': {
      const key = String(e.params.propertyName);
      const full = [...path, key];
      if (keyPath(path) === 'env') return { path: full, part: 'key', message: `env: "${key}" is not a valid environment variable name (letters, digits and _, not starting with a digit)` };
      if (key === '') return { path: full, part: 'key', message: `${prefix(path)}a name must not be empty` };
      return { path: full, part: 'key', message: `${prefix(path)}"${key}" is not a valid name` };
    }
    default:
      return { path, part: 'value', message: `${prefix(path)}${e.message ?? e.keyword}` };
  }
}

/** Schema-checks one source's value; returns false when it does not match the schema. */
export function checkSchema(source: PresetSource, value: unknown, sink: DiagnosticSink): boolean {
  if (value === undefined || value === null) {
    sink.add(source.file, source.locate([]), '', 'the preset is empty; expected a mapping of keys such as model, tools, permissions, plugins');
    return false;
  }
  if (validateCore(value)) return true;
  const raw = ((validateCore as unknown as { errors: AjvError[] }).errors ?? [])
    // propertyNames reports the name's own error too; the propertyNames error says it better.
    .filter((e) => e.propertyName === undefined);
  const errors = resolveUnions(raw);
  for (const e of errors) {
    // A missing key next to an unknown key that is its near miss (`commnd` for `command`) is one
    // mistake; the unknown key's "did you mean" says it.
    if (e.keyword === 'required' && errors.some((o) => o.keyword === 'additionalProperties' && o.instancePath === e.instancePath
      && closest(String(o.params.additionalProperty), [String(e.params.missingProperty)]) !== undefined)) continue;
    // An integer too large for a double was reported by the parser already.
    if (e.keyword === 'maximum' && typeof getAt(value, pointerToPath(e.instancePath)) === 'number' && !Number.isSafeInteger(getAt(value, pointerToPath(e.instancePath)))) continue;
    const m = ajvMessage(e, value);
    if (m) sink.add(source.file, source.locate(m.path, m.part), m.path, m.message);
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// Rules the schema cannot express

/** Tool names known to rein: Claude Code's plus the built-in tool plugins'. */
export function knownToolNames(extra: Iterable<string> = []): Set<string> {
  return new Set<string>([...KNOWN_TOOL_NAMES, ...extra]);
}

/**
 * Why a permission rule is malformed, or undefined when it is fine. The syntax check is the
 * permissions plugin's own parser (`Tool` or `Tool(specifier)`, Claude Code's syntax),
 * so the preset and the engine never disagree. On top of it: `:*` (prefix match) only at the end, and
 * a tool name that is a near miss of a known tool is an error.
 */
export function ruleProblem(text: string, known: ReadonlySet<string>, list: 'allow' | 'ask' | 'deny' = 'allow'): string | undefined {
  let rule;
  try {
    rule = parseRule(text, list);
  } catch (err) {
    if (err instanceof RuleSyntaxError) return err.message;
    throw err;
  }
  const spec = rule.content;
  if (spec !== undefined) {
    const star = spec.indexOf(':*');
    if (star >= 0 && star !== spec.length - 2) return `permission rule "${rule.text}": ":*" (prefix match) is only allowed at the end of the specifier`;
  }
  const name = rule.toolName;
  if (!known.has(name) && !name.startsWith('mcp__')) {
    const near = closest(name, known);
    if (near) return `permission rule "${rule.text}": unknown tool "${name}"; did you mean "${near}"?`;
  }
  return undefined;
}

/**
 * Checks what the schema cannot: permission rules, tool names, system sections. Only parts whose
 * shape is right are checked (the schema already reported the rest).
 */
export function checkSemantics(source: PresetSource, value: Record<string, unknown>, sink: DiagnosticSink, known: ReadonlySet<string>): void {
  const perms = value.permissions as Record<string, unknown> | undefined;
  if (perms && typeof perms === 'object') {
    for (const list of RULE_LISTS) {
      const rules = perms[list];
      if (!Array.isArray(rules)) continue;
      rules.forEach((rule, i) => {
        if (typeof rule !== 'string' || rule === '') return;
        const problem = ruleProblem(rule, known, list);
        const path = ['permissions', list, i];
        if (problem) sink.add(source.file, source.locate(path), path, `permissions.${list}: ${problem}`);
      });
    }
  }
  const tools = value.tools;
  if (Array.isArray(tools)) {
    const seen = new Map<string, number>();
    tools.forEach((tool, i) => {
      if (typeof tool !== 'string' || tool === '') return;
      const path = ['tools', i];
      if (tool.includes('(')) {
        sink.add(source.file, source.locate(path), path, `tools: "${tool}" is a permission rule; list the tool name here and put the rule under permissions.allow`);
      } else if (seen.has(tool)) {
        sink.add(source.file, source.locate(path), path, `tools: "${tool}" is listed twice (first as item ${seen.get(tool)! + 1})`);
      } else if (!known.has(tool) && !tool.startsWith('mcp__')) {
        const near = closest(tool, known);
        if (near) sink.add(source.file, source.locate(path), path, `tools: unknown tool "${tool}"; did you mean "${near}"?`);
      }
      if (!seen.has(tool)) seen.set(tool, i);
    });
  }
  const sections = (value.system as Record<string, unknown> | undefined)?.sections;
  if (Array.isArray(sections)) {
    sections.forEach((s, i) => {
      if (!s || typeof s !== 'object') return;
      // With an unknown key (`txt`), the schema error's "did you mean" is the useful message.
      if (Object.keys(s).some((k) => !['name', 'text', 'file', 'kind'].includes(k))) return;
      const has = ['text', 'file'].filter((k) => k in s);
      const path = ['system', 'sections', i];
      if (has.length !== 1) {
        sink.add(source.file, source.locate(path), path, `system.sections.${i}: give exactly one of text and file${has.length ? ' (both are set)' : ''}`);
      }
    });
  }
}
