/**
 * The virtual workspace on a real pi session that reads and edits a file under the user's home
 * (`~/.pi/agent/themes/nord.json` in `large-session.jsonl` of the shared traces).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importPiSession } from '../workloads/importers/pi.js';
import { VirtualWorkspace } from './workspace.js';

const SESSION = fileURLToPath(new URL('../../../shared/traces/pi__badlogic-pi-mono/large-session.jsonl', import.meta.url));

describe('pi session: files under `~/`', () => {
  it('keeps the theme file pi read and edited at `~/` under the stand-in home, edits applied', async () => {
    const w = await importPiSession(SESSION);
    const ws = new VirtualWorkspace(w, '/tmp/rein-bench-x/work', '/tmp/rein-bench-x/home');
    ws.advanceTo(w.steps.length);
    const file = ws.get('/tmp/rein-bench-x/home/.pi/agent/themes/nord.json');
    expect(file).toBeDefined();
    // The three recorded edits were applied on top of the read: the file is Nord's, not the dark theme it was copied from.
    expect(file!.content).not.toContain('"name": "dark"');
    expect(file!.partial).toBe(false);
    // Nothing of it is kept under the working folder, where a `~` folder would have put it.
    expect(ws.paths().filter((p) => p.includes('/~/'))).toEqual([]);
    expect(ws.paths()).toContain('~/.pi/agent/themes/nord.json');
  });
});
