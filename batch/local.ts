/**
 * `rein batch` on this machine: up to `concurrency` tasks at once, each `rein run` a process of its
 * own (runTask), results handed over as they finish.
 */
import { runTask, type RunTaskOptions, type TaskResult } from './run-task.js';
import type { BatchTask } from './tasks.js';

/**
 * Runs every task, at most `concurrency` at a time, in file order as slots free up. Calls
 * `onResult` with each result as it finishes; resolves with all of them in file order.
 *
 * Once `opts.signal` is aborted no task starts: the running ones get the signal (runTask) and
 * report how they ended, and each task not started is a result with `error` "not run: stopped
 * by SIGNAL", so every task still has its line.
 */
export async function runBatchLocal(tasks: readonly BatchTask[], opts: RunTaskOptions & { concurrency: number; onResult?: (r: TaskResult) => void; onStart?: (t: BatchTask) => void }): Promise<TaskResult[]> {
  const results: TaskResult[] = new Array(tasks.length);
  let next = 0;
  const lane = async () => {
    while (next < tasks.length && !opts.signal?.aborted) {
      const i = next++;
      opts.onStart?.(tasks[i]!);
      results[i] = await runTask(tasks[i]!, opts);
      opts.onResult?.(results[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(opts.concurrency, tasks.length) }, lane));
  for (let i = next; i < tasks.length; i++) {
    const t = tasks[i]!;
    results[i] = { id: t.id, line: t.line, duration_ms: 0, error: `not run: stopped by ${String(opts.signal?.reason)}` };
    opts.onResult?.(results[i]!);
  }
  return results;
}
