/**
 * Ctrl-C in the middle of `rein bench` (the built command, a real process): it stops with the
 * signal's exit code, says that it stopped and that no report was written, writes no report file,
 * and leaves no replay folder in the temporary directory. A stop after the JSON report is whole but
 * before the HTML one is says which was written and which was not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { closeSync, constants, existsSync, mkdirSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { cleanEnv, REIN_BIN, tempDir } from '../testing/support.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => { tmp = tempDir('rein-bench-interrupt-'); });
afterAll(() => tmp?.cleanup());

describe('rein bench stopped by a signal', () => {
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
    it(`${signal} mid-run: exit ${code}, no report, no replay folders left`, async () => {
      const tmpdir = join(tmp.dir, `tmp-${signal}`);
      mkdirSync(tmpdir);
      // Two replays, so they run in a worker thread; long enough to be running when the signal comes.
      const child = spawn(process.execPath, [REIN_BIN, 'bench', '-w', 'gen:turns=3000,results=3000,seed=9', '--preset', 'minimal', '--preset', 'default', '-j', '1', '--json', 'out.json', '--html', 'out.html'],
        { cwd: tmp.dir, env: { ...cleanEnv(), TMPDIR: tmpdir, REIN_HOME: join(tmp.dir, 'home') }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      let stdout = '';
      child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
      const exited = new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
      child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
      // The replays have started once the folder of the first one exists.
      try {
        await expect.poll(() => readdirSync(tmpdir).some((f) => f.startsWith('rein-bench-')), { timeout: 20_000, interval: 50 }).toBe(true);
      } catch (err) {
        child.kill('SIGKILL');
        throw err;
      }
      child.kill(signal);
      expect(await exited).toBe(code);
      expect(stderr).toContain(`rein: ${signal}: stopped; no report written`);
      expect(stdout).toBe('');
      expect(existsSync(join(tmp.dir, 'out.json'))).toBe(false);
      expect(existsSync(join(tmp.dir, 'out.html'))).toBe(false);
      expect(readdirSync(tmpdir).filter((f) => f.startsWith('rein-bench-'))).toEqual([]);
    });
  }

  it('a stop while the HTML report is being written says the JSON report was written and the HTML one was not', async () => {
    const dir = join(tmp.dir, 'reports');
    mkdirSync(dir);
    // The HTML report is written to out.html.partial first: made a named pipe that nobody reads,
    // it holds rein in the HTML write (the report is larger than the pipe's 64 KiB buffer) after
    // the JSON report has been renamed into place, for as long as the test keeps the pipe open.
    const fifo = join(dir, 'out.html.partial');
    execFileSync('mkfifo', [fifo]);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const child = spawn(process.execPath, [REIN_BIN, 'bench', '-w', 'gen:turns=300,results=300,seed=9', '--preset', 'minimal', '--json', 'out.json', '--html', 'out.html', '--no-progress'],
      { cwd: dir, env: { ...cleanEnv(), REIN_HOME: join(tmp.dir, 'home') }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.resume();
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const exited = new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
    try {
      await expect.poll(() => stderr, { timeout: 20_000, interval: 20 }).toContain('rein: JSON report written to');
      // Stopped once the HTML write has begun (its first byte is in the pipe): between the two
      // reports rein renders the page, and a stop then leaves no HTML file of rein's to remove.
      const byte = Buffer.alloc(1);
      await expect.poll(() => { try { return readSync(reader, byte, 0, 1, null); } catch { return 0; } }, { timeout: 20_000, interval: 20 }).toBe(1);
      child.kill('SIGINT');
      await expect.poll(() => stderr, { timeout: 10_000, interval: 20 }).toContain('rein: SIGINT: stopped');
    } catch (err) {
      child.kill('SIGKILL');
      throw err;
    } finally {
      // Lets a write still pending in the stopped process end (EPIPE), so it can exit.
      closeSync(reader);
    }
    expect(await exited).toBe(130);
    expect(stderr).toContain(`rein: SIGINT: stopped; JSON report written to ${join(dir, 'out.json')}; HTML report not written\n`);
    expect(JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8'))).toHaveProperty('workloads');
    expect(existsSync(join(dir, 'out.html'))).toBe(false);
    expect(existsSync(fifo)).toBe(false);
  });
});
