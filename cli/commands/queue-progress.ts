/**
 * What the submitting commands (`rein bench --queue`, `rein bench collect`, `rein batch --queue`,
 * `rein batch collect`) share about the queue: opening it (withQueue), and the progress of its jobs
 * on stderr: a bar with done / running / failed on a terminal, and otherwise (a log, CI) a plain
 * line when the counts change, at most every LINE_EVERY_MS, plus the final counts.
 */
import type { JobCounts, OpenQueue } from '../../queue/jobs.js';
import { queueCommand } from '../../queue/connection.js';

/** Least time between two plain progress lines, ms. */
const LINE_EVERY_MS = 2_000;

export interface QueueProgress {
  update(c: JobCounts): void;
  /** Prints the last counts (plain lines) or removes the bar. */
  stop(): void;
}

function line(c: JobCounts): string {
  return `${c.done}/${c.total} done, ${c.running} running, ${c.failed} failed; ${c.workers} worker${c.workers === 1 ? '' : 's'}`;
}

/** A progress display for `what` ("replays", "tasks"); a no-op when `enabled` is false. */
export async function queueProgress(what: string, enabled: boolean): Promise<QueueProgress> {
  if (!enabled) return { update: () => {}, stop: () => {} };
  if (process.stderr.isTTY) {
    const { SingleBar, Presets } = await import('cli-progress');
    const bar = new SingleBar({
      format: `${what} [{bar}] {value}/{total} done, {running} running, {failed} failed; {workers} workers`,
      stream: process.stderr, hideCursor: true, clearOnComplete: true,
    }, Presets.shades_classic);
    let started = false;
    return {
      update: (c) => {
        if (!started) { bar.start(c.total, 0, { running: 0, failed: 0, workers: 0 }); started = true; }
        bar.update(c.done, { running: c.running, failed: c.failed, workers: c.workers });
      },
      stop: () => { if (started) bar.stop(); },
    };
  }
  let last: JobCounts | undefined;
  let shown = '';
  let at = 0;
  let timer: NodeJS.Timeout | undefined;
  const show = () => {
    timer = undefined;
    const text = line(last!);
    if (text === shown) return;
    shown = text;
    at = Date.now();
    process.stderr.write(`rein: ${what}: ${text}\n`);
  };
  return {
    update: (c) => {
      last = c;
      if (timer) return;
      const wait = at + LINE_EVERY_MS - Date.now();
      // A change within LINE_EVERY_MS of the last line is shown when that time is up.
      if (wait <= 0) show();
      else timer = setTimeout(show, wait).unref();
    },
    stop: () => {
      clearTimeout(timer);
      if (last) show();
    },
  };
}

/**
 * `update`, after saying once, when no worker serves the queue while jobs wait, how to start one:
 * otherwise a first try without workers would wait with no word of why.
 */
export function withWorkerHint(update: (c: JobCounts) => void, q: OpenQueue): (c: JobCounts) => void {
  let said = false;
  return (c) => {
    if (!said && c.workers === 0 && c.done < c.total) {
      said = true;
      process.stderr.write(`rein: no worker serves queue ${q.queue.name} at ${q.target.shown} yet; the jobs wait for one (${queueCommand(q.target, 'rein worker')} on any machine with rein ${q.queue.name.replace(/^rein-/, '')})\n`);
    }
    update(c);
  };
}

/**
 * For awaitJobs' onError: each distinct Redis problem met while waiting (BullMQ reconnects and
 * the wait goes on), once, as a line naming the URL.
 */
export async function stillWaiting(q: OpenQueue): Promise<(err: Error) => void> {
  const { redisProblem, queueProblemLine } = await import('../../queue/connection.js');
  const seen = new Set<string>();
  return (err) => {
    const text = queueProblemLine(q.target, redisProblem(err, q.target) ?? err.message.split('\n')[0]!);
    if (!seen.has(text)) process.stderr.write(`rein: ${text} (still waiting)\n`);
    seen.add(text);
  };
}

/**
 * Opens the queue named by `--queue`, runs `fn`, closes it. A Redis problem on the way (a refusal,
 * a lost connection) becomes an InputError naming the URL (asQueueError); a note about the URL
 * (a password the server does not need) is one `rein:` line on stderr.
 */
export async function withQueue<T>(url: string, fn: (q: OpenQueue) => Promise<T>): Promise<T> {
  const { parseQueueUrl, openRedis, asQueueError } = await import('../../queue/connection.js');
  const { openQueue } = await import('../../queue/jobs.js');
  const target = parseQueueUrl(url);
  try {
    const q = await openQueue(target, await openRedis(target, { warn: (line) => process.stderr.write(`rein: ${line}\n`) }));
    try {
      return await fn(q);
    } finally {
      await q.close();
    }
  } catch (err) {
    throw asQueueError(target, err);
  }
}
