import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { acquireLock, releaseLock, SessionLockedError } from './lock.js';

let dir: string;
let lock: string;
let children: ChildProcess[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rein-lock-'));
  lock = join(dir, 's.jsonl.lock');
});
afterEach(() => {
  releaseLock(lock);
  releaseLock(lock);
  for (const c of children) c.kill('SIGKILL');
  children = [];
  rmSync(dir, { recursive: true, force: true });
});

/** A live process that is not this one. */
function otherProcess(): number {
  const c = spawn('sleep', ['30'], { stdio: 'ignore' });
  children.push(c);
  return c.pid!;
}

function procStart(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]!;
}

const holderFile = (h: Record<string, unknown>) => writeFileSync(lock, JSON.stringify({ host: hostname(), startedAt: '2026-01-01T00:00:00.000Z', nonce: 'n', ...h }));

describe('session lock', () => {
  it('is a file naming this process, counted within the process, removed with the last release', () => {
    acquireLock(lock, 'session s');
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toMatchObject({ pid: process.pid, host: hostname() });
    acquireLock(lock, 'session s');
    releaseLock(lock);
    expect(existsSync(lock)).toBe(true);
    releaseLock(lock);
    expect(existsSync(lock)).toBe(false);
  });

  it('refuses while another live process holds it, naming the process', () => {
    const pid = otherProcess();
    holderFile({ pid, procStart: procStart(pid) });
    expect(() => acquireLock(lock, 'session s')).toThrow(SessionLockedError);
    expect(() => acquireLock(lock, 'session s')).toThrow(new RegExp(`^session s is in use by rein process ${pid} \\(since 2026-01-01T00:00:00.000Z\\); wait for it to end, or stop it \\(kill ${pid}\\)$`));
  });

  it('a lock file rein did not write (no host, no start time): names the pid, prints no undefined, and says to delete the file rather than kill the pid', () => {
    const pid = otherProcess();
    writeFileSync(lock, JSON.stringify({ pid }) + '\n');
    // No host: rein did not write it, so the advice is to delete it, not to kill the pid it names.
    expect(() => acquireLock(lock, 'session s')).toThrow(`session s is in use by rein process ${pid}; if pid ${pid} is no rein process, delete ${lock}`);
  });

  it('takes over the lock of a process that has died', () => {
    const gone = spawnSync('true').pid!;
    holderFile({ pid: gone });
    acquireLock(lock, 'session s');
    expect(JSON.parse(readFileSync(lock, 'utf8')).pid).toBe(process.pid);
  });

  it('takes over a lock whose pid now belongs to another process (started later)', () => {
    const pid = otherProcess();
    holderFile({ pid, procStart: '1' });
    acquireLock(lock, 'session s');
    expect(JSON.parse(readFileSync(lock, 'utf8')).pid).toBe(process.pid);
  });

  it('takes over an unreadable lock (a crash while it was being written)', () => {
    writeFileSync(lock, '{"pid": 12');
    acquireLock(lock, 'session s');
    expect(JSON.parse(readFileSync(lock, 'utf8')).pid).toBe(process.pid);
  });

  it('respects a lock from another host, and says how to remove it', () => {
    writeFileSync(lock, JSON.stringify({ pid: 1, host: 'elsewhere', startedAt: 'then', nonce: 'n' }));
    expect(() => acquireLock(lock, 'session s')).toThrow(`session s is in use by rein process 1 on elsewhere (since then); if no rein runs there any more, delete ${lock}`);
  });

  it('does not remove a lock that is no longer its own', () => {
    acquireLock(lock, 'session s');
    holderFile({ pid: 999_999, nonce: 'someone else' });
    releaseLock(lock);
    expect(JSON.parse(readFileSync(lock, 'utf8')).nonce).toBe('someone else');
  });
});
