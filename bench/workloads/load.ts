/**
 * Loads workloads from what `rein bench --workload` names: a file (format detected from its
 * content), a directory (searched recursively), or a generator spec (`gen:turns=200,...`). Files
 * that are not sessions are listed with the reason, so nothing is dropped without an explanation.
 * When a directory holds the same session in several formats (a Claude Code session JSONL, the
 * stream-json of the same run, its ATIF conversion), the richest format is replayed and the others
 * are listed as duplicates.
 */
import { open, readdir, realpath, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { InputError } from '../../lib/errors.js';
import { generateWorkload, isGeneratorSpec } from './generator.js';
import { importAtif } from './importers/atif.js';
import { importClaudeCodeSession, importClaudeCodeStreamJson } from './importers/claude-code.js';
import { importOpenHands } from './importers/openhands.js';
import { importPiSession } from './importers/pi.js';
import { importSweAgent } from './importers/swe-agent.js';
import { loadScenario } from './scenario.js';
import type { Workload, WorkloadFormat } from './types.js';

/** A file that was looked at and not replayed, with why. */
export interface SkippedFile {
  path: string;
  reason: string;
}

export interface LoadResult {
  workloads: Workload[];
  skippedFiles: SkippedFile[];
}

/** Reads the first `bytes` of a file as text. */
async function head(path: string, bytes = 4096): Promise<string> {
  const fh = await open(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await fh.close();
  }
}

/** Detects a file's format from its first bytes; undefined when it is not a session format rein reads. */
export async function detectFormat(path: string): Promise<WorkloadFormat | undefined> {
  if (/\.ya?ml$/i.test(path)) {
    const text = await head(path);
    return /^\s*(?:#.*\n\s*)*(?:scenario|steps|turns)\s*:/m.test(text) ? 'scenario' : undefined;
  }
  const text = (await head(path)).trimStart();
  const firstLine = text.split('\n', 1)[0] ?? '';
  if (text.startsWith('[')) return /"(action|observation)"\s*:/.test(text) ? 'openhands' : undefined;
  if (!text.startsWith('{')) return undefined;
  if (/"schema_version"\s*:\s*"ATIF/.test(text)) return 'harbor-atif';
  // JSON Lines formats: the first line is a whole object with a recognisable shape.
  if (/"type"\s*:\s*"session"/.test(firstLine) && /"(cwd|timestamp)"/.test(firstLine)) return 'pi';
  if (/"type"\s*:\s*"system"/.test(firstLine) && /"subtype"\s*:\s*"init"/.test(firstLine)) return 'claude-code-stream-json';
  if (/"(parentUuid|leafUuid|isSidechain)"\s*:|"type"\s*:\s*"(summary|file-history-snapshot|queue-operation)"/.test(firstLine)) return 'claude-code';
  if (/"(action|observation)"\s*:/.test(firstLine) && /"source"\s*:/.test(firstLine)) return 'openhands';
  // Single JSON documents.
  if (/^\{\s*"events"\s*:/.test(text)) return 'openhands';
  if (/"trajectory_format"\s*:\s*"mini-swe-agent/.test(text) || /\.traj(\.json)?$/.test(path)) return 'swe-agent';
  if (/"(history|messages)"\s*:\s*\[/.test(text) && /"role"\s*:/.test(text)) return 'swe-agent';
  return undefined;
}

/** Imports one file of a known format. */
export async function importFile(path: string, format: WorkloadFormat): Promise<Workload[]> {
  switch (format) {
    case 'claude-code': return [await importClaudeCodeSession(path)];
    case 'claude-code-stream-json': return importClaudeCodeStreamJson(path);
    case 'harbor-atif': return [await importAtif(path)];
    case 'pi': return [await importPiSession(path)];
    case 'swe-agent': return [await importSweAgent(path)];
    case 'openhands': return [await importOpenHands(path)];
    case 'scenario': return [await loadScenario(path)];
    case 'generator': throw new Error('a generator spec is not a file');
  }
}

/** Why a file or folder could not be read, from what node:fs threw. */
function unreadable(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const why = e.code === 'EACCES' || e.code === 'EPERM' ? 'permission denied'
    : e.code === 'ENOENT' ? 'it does not exist (a symbolic link to a missing file?)'
    : e.code === 'ELOOP' ? 'a loop of symbolic links'
    : e.message;
  return `cannot read it: ${why}`;
}

/**
 * Collects the files under `dir`, in name order. Symbolic links are followed (a folder of links to
 * sessions kept elsewhere is common); a folder reached twice (a link to an ancestor) is searched
 * once. A folder that cannot be listed, and a link that leads nowhere, go to `skipped` with why.
 */
async function walk(dir: string, out: string[], skipped: SkippedFile[], seen = new Set<string>()): Promise<void> {
  let entries;
  try {
    const real = await realpath(dir);
    if (seen.has(real)) return;
    seen.add(real);
    entries = await readdir(dir, { withFileTypes: true });
  } catch (err) {
    skipped.push({ path: dir, reason: `folder not searched: ${unreadable(err)}` });
    return;
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const p = join(dir, e.name);
    let kind: { isDirectory(): boolean; isFile(): boolean } = e;
    if (e.isSymbolicLink()) {
      try {
        kind = await stat(p);
      } catch (err) {
        skipped.push({ path: p, reason: unreadable(err) });
        continue;
      }
    }
    if (kind.isDirectory()) await walk(p, out, skipped, seen);
    else if (kind.isFile()) out.push(p);
  }
}

/** How good a format is as a replay source when the same session exists in several (higher first). */
const FORMAT_RANK: Partial<Record<WorkloadFormat, number>> = { 'claude-code': 3, 'claude-code-stream-json': 2, 'harbor-atif': 1 };

/** Files never taken as sessions, by name. */
const DOC_FILE = /(^|\/)(README|LICENSE|NOTICE)(\.[a-z]+)?$/i;

/**
 * Loads everything `spec` names. Throws for a path that does not exist or a generator spec that is
 * invalid; a file that cannot be read or fails to import, and a folder that cannot be listed, is
 * listed in `skippedFiles` with the reason.
 */
export async function loadWorkloads(spec: string): Promise<LoadResult> {
  if (isGeneratorSpec(spec)) return { workloads: [generateWorkload(spec)], skippedFiles: [] };
  const st = await stat(spec).catch(() => undefined);
  if (!st) throw new InputError(`workload not found: ${spec} (expected a session file, a directory of them, or a generator spec such as gen:turns=50,results=2000)`);
  const files: string[] = [];
  const workloads: Workload[] = [];
  const skippedFiles: SkippedFile[] = [];
  if (st.isDirectory()) await walk(spec, files, skippedFiles);
  else files.push(spec);
  for (const path of files) {
    if (DOC_FILE.test(path)) { skippedFiles.push({ path, reason: 'documentation, not a session' }); continue; }
    let format: WorkloadFormat | undefined;
    try {
      format = await detectFormat(path);
    } catch (err) {
      skippedFiles.push({ path, reason: unreadable(err) });
      continue;
    }
    if (!format) {
      const name = basename(path);
      skippedFiles.push({ path, reason: name === 'result.json' ? 'a run result (verifier outcome and job config), not a session' : 'not a session format rein reads' });
      continue;
    }
    try {
      const ws = await importFile(path, format);
      for (const w of ws) {
        if (w.steps.length === 0) skippedFiles.push({ path, reason: `no model requests in this ${format} file` });
        else workloads.push(w);
      }
    } catch (err) {
      skippedFiles.push({ path, reason: `import failed: ${(err as Error).message}` });
    }
  }
  return { workloads: dedupeSessions(workloads, skippedFiles), skippedFiles };
}

/** Keeps one workload per (session id, sidechain, parent) among Claude Code formats; lists the rest. */
function dedupeSessions(workloads: Workload[], skipped: SkippedFile[]): Workload[] {
  const best = new Map<string, Workload>();
  const keyOf = (w: Workload) => (w.sessionId && FORMAT_RANK[w.format] ? `${w.sessionId}|${w.sidechain ? w.agentId ?? w.parentToolUseId ?? 'side' : 'main'}` : undefined);
  for (const w of workloads) {
    const key = keyOf(w);
    if (!key) continue;
    const cur = best.get(key);
    if (!cur || (FORMAT_RANK[w.format] ?? 0) > (FORMAT_RANK[cur.format] ?? 0)) best.set(key, w);
  }
  // Sidechains of a stream-json capture are keyed by the parent tool_use id, session files by agent
  // id, so the keys differ: a stream-json subagent is a duplicate when a session-file subagent of
  // the same session made the same tool calls.
  const out: Workload[] = [];
  for (const w of workloads) {
    const key = keyOf(w);
    if (key && best.get(key) !== w) {
      const kept = best.get(key)!;
      skipped.push({ path: w.path ?? w.name, reason: `same session as ${kept.path ?? kept.name} in another format (${w.format}); the ${kept.format} file is replayed` });
      continue;
    }
    if (w.sidechain && w.format !== 'claude-code' && w.sessionId) {
      const ids = toolUseIds(w);
      const twin = workloads.find((o) => o !== w && o.format === 'claude-code' && o.sidechain && o.sessionId === w.sessionId && [...toolUseIds(o)].some((id) => ids.has(id)));
      if (twin) {
        skipped.push({ path: `${w.path ?? w.name} (${w.name})`, reason: `same subagent as ${twin.path ?? twin.name} in another format (${w.format}); the claude-code file is replayed` });
        continue;
      }
    }
    out.push(w);
  }
  return out;
}

function toolUseIds(w: Workload): Set<string> {
  const ids = new Set<string>();
  for (const s of w.steps) for (const b of s.reply) if (b.type === 'tool_use') ids.add((b as { id: string }).id);
  return ids;
}
