/**
 * `rein batch tasks.jsonl --preset P`: runs each task's prompt with `rein run` in its own working
 * directory, runs its check, and prints one JSON result line per task on stdout as it finishes.
 * Local by default (`--concurrency N` processes at once); with `--queue redis://...` the tasks are
 * jobs that `rein worker` runs on any machine, and `rein batch collect ID --queue URL` prints a
 * queued batch's lines from any machine (after the submitting process stopped, say).
 */
import { setMaxListeners } from 'node:events';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { Command } from 'commander';
import { InputError } from '../../lib/errors.js';
import { queueCommand, type QueueTarget } from '../../queue/connection.js';
import { isInputError, printInputError } from './errors.js';
import { positiveInt } from './options.js';
import { onStopSignals, SIGNAL_EXIT, type StopHandle } from './signals.js';

interface BatchFlags {
  /** Required for a batch file; optional to commander only because `rein batch collect` has none. */
  preset?: string;
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

/** The counts behind the progress display, and the printing of result lines that keeps them. */
function resultLines(total: number): { counts: { total: number; done: number; running: number; failed: number; workers: number }; print: (r: TaskResult) => void } {
  const counts = { total, done: 0, running: 0, failed: 0, workers: 0 };
  return {
    counts,
    print: (r) => {
      process.stdout.write(JSON.stringify(r) + '\n');
      counts.done++;
      if (!passed(r)) counts.failed++;
    },
  };
}

/**
 * Says on stderr why each task that did not pass did not, and returns the exit code: SIGNAL_EXIT
 * when `stop` has a signal, else 1 when a task did not pass, else 0.
 */
function finish(results: readonly TaskResult[], stop: StopHandle): number {
  const bad = results.filter((r) => !passed(r));
  for (const r of bad) {
    const why = r.error ?? (r.terminal_reason !== 'end_turn' ? `the run ended with ${r.terminal_reason}` : `the check exited ${r.check_exit_code ?? 'on a signal'}`);
    process.stderr.write(`rein: task ${r.id} (line ${r.line}): ${why}\n`);
  }
  if (stop.signal) return SIGNAL_EXIT[stop.signal];
  return bad.length ? 1 : 0;
}

/** The command that prints a queued batch's lines. */
function collectHint(batchId: string, target: QueueTarget): string {
  return queueCommand(target, `rein batch collect ${batchId}`);
}

/**
 * `rein batch`. Returns the exit code: 0 when every task passed, 1 when one did not, 2 for bad
 * input, 130 / 143 (SIGNAL_EXIT) when stopped by SIGINT / SIGTERM.
 *
 * The first signal stops the batch cleanly: no task starts any more (locally, or on the queue,
 * where the tasks no worker has taken are removed), the running ones are waited for (locally they
 * get the signal, so `rein run` ends them `aborted`), and every task still gets its result line.
 * A second signal exits at once; a local task's commands are then stopped (SIGKILL), a queued
 * task a worker is running finishes there, and `rein batch collect ID` prints every line.
 */
export async function batchCommand(file: string, flags: BatchFlags & { preset: string }): Promise<number> {
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
    const { counts, print } = resultLines(tasks.length);
    let results: TaskResult[];
    try {
      if (flags.queue) {
        const { submitBatch, awaitBatch, cancelBatch } = await import('../../batch/queue.js');
        const { withQueue } = await import('./queue-progress.js');
        results = await withQueue(flags.queue, async (q) => {
          let batchId: string | undefined;
          const submitted = submitBatch(q, tasks, loaded.preset as Record<string, unknown>, {
            keep: !!flags.keep,
            onId: (id) => {
              batchId = id;
              process.stderr.write(`rein: batch ${id}: ${tasks.length} task${tasks.length === 1 ? '' : 's'} on queue ${q.queue.name} at ${q.target.shown}\n`);
              process.stderr.write(`rein: ${collectHint(id, q.target)} prints their result lines later too\n`);
            },
          });
          // Once, whether the signal came before the jobs were all added or after.
          let cancelling: Promise<unknown> | undefined;
          const cancel = () => (cancelling ??= submitted.then(({ batchId: id, jobs }) => cancelBatch(q, id, jobs)));
          // A signal while the jobs are being added takes effect once they are (so none is missed).
          onFirst = (signal) => {
            process.stderr.write(`\nrein: ${signal}: no more tasks start; waiting for the running ones (${signal} again to stop now)\n`);
            void submitted.then(({ batchId: id }) => {
              process.stderr.write(`rein: should this stop first, ${collectHint(id, q.target)} prints every task's line once the workers are done\n`);
              return cancel();
            }).catch(() => {});
          };
          onForced = () => {
            const left = counts.total - counts.done;
            if (!left) return;
            const tasksLeft = `${left} task${left === 1 ? '' : 's'} without a result line here`;
            process.stderr.write(batchId
              ? `rein: ${tasksLeft}; a task a worker had taken finishes there, and ${collectHint(batchId, q.target)} prints every line\n`
              : `rein: ${tasksLeft}; a task a worker had taken finishes there\n`);
          };
          const { jobs } = await submitted;
          if (stop.signal) await cancel();
          const { withWorkerHint, stillWaiting } = await import('./queue-progress.js');
          const update = withWorkerHint(progress.update, q);
          return awaitBatch(q, tasks, jobs, {
            onResult: print,
            onError: await stillWaiting(q),
            // The queue counts jobs; a task that ran but did not pass counts as failed here.
            onProgress: (c) => update({ ...c, done: counts.done, failed: counts.failed }),
          });
        });
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
    return finish(results, stop);
  } catch (err) {
    if (isInputError(err)) { printInputError(err); return 2; }
    throw err;
  } finally {
    stop.dispose();
  }
}

interface CollectFlags {
  queue: string;
  progress?: boolean;
}

/**
 * `rein batch collect ID --queue URL`: waits for the tasks of a batch submitted with `rein batch
 * --queue` and prints their result lines as the submitting run would have (each as it finishes,
 * stragglers' reasons on stderr), from the queue alone. Returns the exit code: 0 when every task
 * passed, 1 when one did not, 2 for a batch the queue does not have (or a Redis problem), 130 /
 * 143 when stopped by SIGINT / SIGTERM: the tasks go on on the workers, and collecting again
 * prints them.
 */
export async function batchCollectCommand(batchId: string, flags: CollectFlags): Promise<number> {
  const stop = onStopSignals(() => {});
  try {
    const { readBatch, awaitBatch } = await import('../../batch/queue.js');
    const { queueProgress, withWorkerHint, stillWaiting, withQueue } = await import('./queue-progress.js');
    return await withQueue(flags.queue, async (q) => {
      const { manifest, jobs } = await readBatch(q, batchId);
      const { counts, print } = resultLines(manifest.tasks.length);
      const progress = await queueProgress('tasks', flags.progress !== false);
      const update = withWorkerHint(progress.update, q);
      let results: TaskResult[];
      try {
        results = await awaitBatch(q, manifest.tasks, jobs, {
          onResult: print,
          onError: await stillWaiting(q),
          onProgress: (c) => update({ ...c, done: counts.done, failed: counts.failed }),
          signal: stop.aborted,
        });
      } catch (err) {
        if (!stop.signal) throw err;
        progress.stop();
        process.stderr.write(`rein: ${stop.signal}: stopped waiting; the tasks go on on the queue's workers, and ${collectHint(batchId, q.target)} prints their lines\n`);
        return SIGNAL_EXIT[stop.signal];
      } finally {
        progress.stop();
      }
      return finish(results, stop);
    });
  } catch (err) {
    if (isInputError(err)) { printInputError(err); return 2; }
    throw err;
  } finally {
    stop.dispose();
  }
}

/** Registers `rein batch` and `rein batch collect`. */
export function registerBatchCommand(program: Command): void {
  const batch = program
    .command('batch')
    // Options after `collect` are its own (`rein batch collect ID --queue URL`), though `rein
    // batch` has --queue too.
    .enablePositionalOptions()
    .description('Run a file of tasks (JSON lines: prompt, cwd or repo+rev, check) with `rein run`, each in its own directory; print one result line per task.')
    .argument('<tasks.jsonl>', 'one task per line: {"id", "prompt", "cwd" | "repo" and "rev", "check"}')
    // Required, but checked in the action: commander checks a parent's required options for its
    // subcommands too, and `rein batch collect` takes no preset.
    .option('-p, --preset <file|name>', 'the preset every task runs with (its config layers are not read); required')
    .option('--queue <redis-url>', 'run the tasks on the workers serving this Redis queue (start them with `rein worker --queue URL`)')
    .option('-c, --concurrency <n>', 'tasks at once on this machine (default: one per core)', (v) => positiveInt(v, '--concurrency'))
    .option('--keep', 'keep the fresh directories tasks ran in (clones, empty ones) instead of removing them')
    .option('--no-progress', 'no progress on stderr')
    .action(async (file: string, opts: BatchFlags, cmd: Command) => {
      const preset = cmd.options.find((o) => o.attributeName() === 'preset')!;
      // commander's own words for a missing required option.
      if (opts.preset === undefined) cmd.error(`error: required option '${preset.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue' });
      process.exitCode = await batchCommand(file, { ...opts, preset: opts.preset });
    });

  batch
    .command('collect')
    .description('Wait for a batch submitted with `rein batch --queue` and print its result lines and exit code, as the submitting run would have.')
    .argument('<id>', 'the batch id `rein batch --queue` printed')
    .requiredOption('--queue <redis-url>', 'the Redis queue it was submitted to (redis://HOST:PORT)')
    .option('--no-progress', 'no progress on stderr')
    .action(async (id: string, opts: CollectFlags) => {
      process.exitCode = await batchCollectCommand(id, opts);
    });
}
