/**
 * CPU time and page faults of a process or thread, read from Linux's `/proc` (proc(5):
 * https://man7.org/linux/man-pages/man5/proc_pid_stat.5.html). The benchmarks use these where
 * wall time moves too much with the machine's load. Linux only: elsewhere the reads throw.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of the CPU times in a stat file (USER_HZ, 100 on Linux). */
export const USER_HZ = 100;

/**
 * The fields of a `stat` file after the command name, which may hold spaces and parentheses:
 * [0] state, [7] minflt, [11] utime, [12] stime, [13] cutime, [14] cstime (times in ticks of
 * USER_HZ). `path` is `/proc/PID/stat` or `/proc/PID/task/TID/stat`. Throws what readFileSync
 * throws (the process or thread has ended).
 */
export function statFields(path: string): string[] {
  const stat = readFileSync(path, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** User and system CPU, seconds, of the process or thread whose stat file is `path`. Throws as statFields does. */
export function cpuTimes(path: string): { user: number; system: number } {
  const f = statFields(path);
  return { user: Number(f[11]) / USER_HZ, system: Number(f[12]) / USER_HZ };
}

/**
 * User and system CPU, seconds, of each thread of process `pid` now: tid → times. Threads that end
 * while they are read are left out; an ended process gives an empty map.
 */
export function threadCpu(pid: number | 'self'): Map<string, { user: number; system: number }> {
  const out = new Map<string, { user: number; system: number }>();
  let tids: string[];
  try { tids = readdirSync(`/proc/${pid}/task`); } catch { return out; }
  for (const tid of tids) {
    try { out.set(tid, cpuTimes(`/proc/${pid}/task/${tid}/stat`)); } catch { /* the thread ended */ }
  }
  return out;
}
