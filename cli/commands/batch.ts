/**
 * `rein batch tasks.jsonl --preset P`: runs each task's prompt with `rein run` in its own working
 * directory, runs its check, and prints one JSON result line per task on stdout as it finishes.
 * Local by default (`--concurrency N` processes at once); with `--queue redis://...` the tasks are
 * jobs that `rein worker` runs on any machine.
 */
import { setMaxListeners } from 'node:events';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { InputError } from '../../lib/errors.js';
import { isInputError, printInputError } from './errors.js';
import { positiveInt } from './options.js';
import { onStopSignals, SIGNAL_EXIT } from './signals.js';

interface BatchFlags {
  preset: string;
  queue?: string;
  concurrency?: number;
  keep?: boolean;
  progress?: boolean;
}

type TaskResult = import('../../batch/run-task.js').TaskResult;

/** A task that ran and passed: no error, the run ended its turn, the check (if any) exited 0. */
function passed(r: TaskResult): boolean {
  return !r.error && r.terminal_reason === 'end_turn' && (r.check_exit_code === undefined || r.check_exit_code === 0);
}

/**
 * `rein batch`. Returns the exit code: 0 when every task passed, 1 when one did not, 2 for bad
 * input, 130 / 143 (SIGNAL_EXIT) when stopped by SIGINT / SIGTERM.
 *
 * The first signal stops the batch cleanly: no task starts any more (locally, or on the queue,
 * where the tasks no worker has taken are removed), the running ones are waited for (locally they
 * get the signal, so `rein run` ends them `aborted`), and every task still gets its result line.
 * A second signal exits at once; a local task's commands are then stopped (SIGKILL), a queued
 * task a worker is running finishes there without its line being printed here.
 */
export async function batchCommand(file: string, flags: BatchFlags): Promise<number> {
  const cwd = process.cwd();
  // What runs now, for the second signal: local commands to kill, or queued tasks left running.
  let onForced: () => void = () => {};
  let onFirst: (signal: string) => void = () => {};
  const stop = onStopSignals((signal) => onFirst(signal), (signal) => {
    process.stderr.write(`\nrein: ${signal} again: stopping now\n`);
    onForced();
  });
  try {
    if (flags.queue && flags.concurrency) throw new InputError('--concurrency sets local processes; with --queue each worker sets its own (rein worker --concurrency N)');
    const { readTasks } = await import('../../batch/tasks.js');
    const { loadPreset, isPresetPath } = await import('../../agent/preset/index.js');
    const tasks = await readTasks(file);
    // Load it once here, so a bad preset stops the batch before anything runs.
    const loaded = await loadPreset({ preset: flags.preset, cwd, layers: false });
    const { queueProgress } = await import('./queue-progress.js');
    const progress = await queueProgress('tasks', flags.progress !== false);
    const counts = { total: tasks.length, done: 0, running: 0, failed: 0, workers: 0 };
    const print = (r: TaskResult) => {
      process.stdout.write(JSON.stringify(r) + '\n');
      counts.done++;
      if (!passed(r)) counts.failed++;
    };
    let results: TaskResult[];
    try {
      if (flags.queue) {
        const { parseQueueUrl, openRedis, asQueueError } = await import('../../queue/connection.js');
        const { openQueue, cancelWaiting } = await import('../../queue/jobs.js');
        const { submitBatch, awaitBatch } = await import('../../batch/queue.js');
        const target = parseQueueUrl(flags.queue);
        try {
          const q = await openQueue(target, await openRedis(target));
          try {
            const submitted = submitBatch(q, tasks, loaded.preset as Record<string, unknown>, { keep: !!flags.keep }).then(({ batchId, jobs }) => {
              process.stderr.write(`rein: batch ${batchId}: ${jobs.length} task${jobs.length === 1 ? '' : 's'} on queue ${q.queue.name} at ${target.shown}\n`);
              return jobs;
            });
            // A signal while the jobs are being added takes effect once they are (so none is missed).
            onFirst = (signal) => {
              process.stderr.write(`\nrein: ${signal}: no more tasks start; waiting for the running ones (${signal} again to stop now)\n`);
              void submitted.then((jobs) => cancelWaiting(q, jobs)).catch(() => {});
            };
            const jobs = await submitted;
            if (stop.signal) await cancelWaiting(q, jobs);
            onForced = () => {
              const left = counts.total - counts.done;
              if (left) process.stderr.write(`rein: ${left} task${left === 1 ? '' : 's'} without a result line here; a task a worker had taken finishes there\n`);
            };
            const { withWorkerHint, stillWaiting } = await import('./queue-progress.js');
            const update = withWorkerHint(progress.update, q);
            results = await awaitBatch(q, tasks, jobs, {
              onResult: (r) => { print(r); },
              onError: await stillWaiting(q),
              // The queue counts jobs; a task that ran but did not pass counts as failed here.
              onProgress: (c) => update({ ...c, done: counts.done, failed: counts.failed }),
            });
          } finally {
            await q.close();
          }
        } catch (err) {
          throw asQueueError(target, err);
        }
      } else {
        const { runBatchLocal } = await import('../../batch/local.js');
        const concurrency = flags.concurrency ?? availableParallelism();
        counts.workers = Math.min(concurrency, tasks.length);
        const preset = isPresetPath(flags.preset) ? resolve(cwd, flags.preset) : flags.preset;
        const started = new Set<number>();
        const kill = new AbortController();
        setMaxListeners(0, kill.signal);
        onFirst = (signal) => process.stderr.write(`\nrein: ${signal}: no more tasks start; the running ones get ${signal} and report how they ended (${signal} again to stop now)\n`);
        onForced = () => {
          kill.abort();
          const left = counts.total - counts.done;
          if (left) process.stderr.write(`rein: ${left} task${left === 1 ? '' : 's'} without a result line\n`);
        };
        results = await runBatchLocal(tasks, {
          preset, concurrency, keep: !!flags.keep, signal: stop.aborted, kill: kill.signal,
          onStart: (t) => { started.add(t.line); counts.running++; progress.update(counts); },
          onResult: (r) => { if (started.delete(r.line)) counts.running--; print(r); progress.update(counts); },
        });
      }
    } finally {
      progress.stop();
    }
    const bad = results.filter((r) => !passed(r));
    for (const r of bad) {
      const why = r.error ?? (r.terminal_reason !== 'end_turn' ? `the run ended with ${r.terminal_reason}` : `the check exited ${r.check_exit_code ?? 'on a signal'}`);
      process.stderr.write(`rein: task ${r.id} (line ${r.line}): ${why}\n`);
    }
    if (stop.signal) return SIGNAL_EXIT[stop.signal];
    return bad.length ? 1 : 0;
  } catch (err) {
    if (isInputError(err)) { printInputError(err); return 2; }
    throw err;
  } finally {
    stop.dispose();
  }
}

/** Registers `rein batch`. */
export function registerBatchCommand(program: Command): void {
  program
    .command('batch')
    .description('Run a file of tasks (JSON lines: prompt, cwd or repo+rev, check) with `rein run`, each in its own directory; print one result line per task.')
    .argument('<tasks.jsonl>', 'one task per line: {"id", "prompt", "cwd" | "repo" and "rev", "check"}')
    .requiredOption('-p, --preset <file|name>', 'the preset every task runs with (its config layers are not read)')
    .option('--queue <redis-url>', 'run the tasks on the workers serving this Redis queue (start them with `rein worker --queue URL`)')
    .option('-c, --concurrency <n>', 'tasks at once on this machine (default: one per core)', (v) => positiveInt(v, '--concurrency'))
    .option('--keep', 'keep the fresh directories tasks ran in (clones, empty ones) instead of removing them')
    .option('--no-progress', 'no progress on stderr')
    .action(async (file: string, opts: BatchFlags) => {
      process.exitCode = await batchCommand(file, opts);
    });
}
