/**
 * The demo responder: what `rein run` answers with when there is no API key and no scenario. It
 * drives the real read-only tools on the working directory — list the files with `Glob`, read a few
 * with `Read` (in one parallel batch), then answer with what it found — so a first run shows the
 * loop, tools, parallel calls and the usage report rather than an echo.
 */
import type { Responder, ResponderRequest, ResponderResult } from './types.js';

/** Files read in the second step, at most. */
export const DEMO_READ_COUNT = 3;

type Block = { type: string; [k: string]: any };

function blocks(content: unknown): Block[] {
  return Array.isArray(content) ? (content as Block[]) : typeof content === 'string' ? [{ type: 'text', text: content }] : [];
}

function resultText(b: Block): string {
  return blocks(b.content).filter((x) => x.type === 'text').map((x) => String(x.text)).join('\n');
}

function toolNames(body: Record<string, any>): Set<string> {
  return new Set(((body.tools ?? []) as { name: string }[]).map((t) => t.name));
}

/** Folders of installed dependencies and tool state: counted apart and never read by the demo. */
const SKIPPED_DIRS = ['node_modules', '.git', 'vendor', 'dist', 'build', '.venv', '__pycache__', 'target'];

/** Whether a listed path lies inside one of SKIPPED_DIRS. */
export function inSkippedDir(path: string): boolean {
  return path.split('/').slice(0, -1).some((seg) => SKIPPED_DIRS.includes(seg));
}

/** `1 line`, `2,000 lines`. */
function count(n: number, unit: string): string {
  return `${n.toLocaleString('en-US')} ${unit}${n === 1 ? '' : 's'}`;
}

/**
 * What a Read result says about the file's length: its numbered lines, and the total when Read
 * showed only part of it (plugins/tools/read: "(Showing lines A-B of N. ...)", or "(Showing lines
 * A-B; the file is large. ...)" when it stopped counting).
 */
export function describeRead(text: string): string {
  const shown = text.split('\n').filter((l) => /^\s*\d+\t/.test(l)).length;
  const of = /\(Showing lines (\d+)-(\d+) of (\d+)\./.exec(text);
  if (of) return `${count(Number(of[3]), 'line')} (I read lines ${Number(of[1]).toLocaleString('en-US')}–${Number(of[2]).toLocaleString('en-US')})`;
  const large = /\(Showing lines (\d+)-(\d+); the file is large\./.exec(text);
  if (large) return `more than ${count(Number(large[2]), 'line')} (I read lines ${Number(large[1]).toLocaleString('en-US')}–${Number(large[2]).toLocaleString('en-US')})`;
  return count(shown, 'line');
}

/** Picks files worth reading first: a README, a manifest, then other text files; shallower first. */
export function pickFiles(paths: string[], n = DEMO_READ_COUNT): string[] {
  const kind = (p: string) => {
    const base = p.split('/').pop()!.toLowerCase();
    if (base.startsWith('readme')) return 0;
    if (['package.json', 'pyproject.toml', 'cargo.toml', 'go.mod', 'makefile'].includes(base)) return 1;
    if (/\.(md|txt|ts|js|py|rs|go|json|ya?ml|toml|sh)$/.test(base)) return 2;
    return -1;
  };
  const depth = (p: string) => p.split('/').length;
  return paths
    .filter((p) => kind(p) >= 0 && !inSkippedDir(p))
    .sort((a, b) => depth(a) - depth(b) || kind(a) - kind(b) || a.localeCompare(b))
    .slice(0, n);
}

export function createDemoResponder(): Responder {
  return {
    respond(req: ResponderRequest): ResponderResult {
      const messages = (req.body.messages ?? []) as { role: string; content: unknown }[];
      const tools = toolNames(req.body);
      const lastAssistant = [...messages].reverse().find((m) => m.role === 'assistant');
      const lastUser = messages[messages.length - 1];
      const calls = blocks(lastAssistant?.content).filter((b) => b.type === 'tool_use');
      const results = blocks(lastUser?.content).filter((b) => b.type === 'tool_result');

      if (!calls.length) {
        if (!tools.has('Glob') || !tools.has('Read')) {
          return { reply: { content: [{ type: 'text', text: 'This is rein\'s demo. The preset offers no Glob and Read tools, so there is nothing to look at; try `--preset minimal`.' }] } };
        }
        return { reply: { content: [
          { type: 'text', text: 'I\'ll look at what is in this directory.' },
          { type: 'tool_use', name: 'Glob', input: { pattern: '**/*' } },
        ] } };
      }
      if (calls[0]!.name === 'Glob') {
        const listing = resultText(results[0] ?? { type: 'tool_result' });
        const paths = listing.split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('(') && !l.startsWith('No files'));
        // Glob lists at most its limit, and then says how many matched.
        const matched = Number(/^\((\d+) files matched; showing the (\d+) newest/m.exec(listing)?.[1] ?? paths.length);
        const skipped = paths.filter(inSkippedDir).length;
        const own = paths.length - skipped;
        const chosen = pickFiles(paths);
        const seen = matched > paths.length
          ? `Glob matched ${count(matched, 'file')} and listed the ${paths.length.toLocaleString('en-US')} newest`
          : `There ${own === 1 ? 'is' : 'are'} ${count(own, 'file')}`;
        const apart = skipped ? ` (${skipped.toLocaleString('en-US')} more of those listed are inside dependency or build folders such as node_modules, which I leave alone)` : '';
        if (!chosen.length) {
          return { reply: { content: [{ type: 'text', text: `${seen}${apart}, and none of them is a text file I would read first.` }] } };
        }
        return { reply: { content: [
          { type: 'text', text: `${seen}${apart}. I'll read ${chosen.length} of them.` },
          ...chosen.map((file_path) => ({ type: 'tool_use' as const, name: 'Read', input: { file_path } })),
        ] } };
      }
      const summary = calls.map((c, i) => {
        const r = results[i];
        const text = r ? resultText(r) : '';
        return r?.is_error ? `- ${c.input.file_path}: could not be read (${text.split('\n').find(Boolean) ?? 'error'})` : `- ${c.input.file_path}: ${describeRead(text)}`;
      });
      return { reply: { content: [{ type: 'text', text: `Here is what I read:\n${summary.join('\n')}\n\nThis answer came from rein's embedded simulator (no ANTHROPIC_API_KEY is set): the tool calls it made were real (run with -v to see them); its token counts and cost are simulated, and nothing was billed.` }] } };
    },
  };
}
