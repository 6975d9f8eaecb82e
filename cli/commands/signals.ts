/**
 * Two-step stopping for the queue and batch commands (`rein worker`, `rein bench --queue`,
 * `rein batch`): the first SIGINT or SIGTERM asks the command to stop cleanly (finish or hand over
 * what is running), a second one stops the process at once. Either way the exit code is what a
 * shell expects of a process ended by that signal.
 */
import { setMaxListeners } from 'node:events';

/** The signals a user stops a command with: Ctrl-C in a terminal, and `kill` / a service manager. */
export type StopSignal = 'SIGINT' | 'SIGTERM';

/** Exit code after a stop by each signal: 128 + the signal's number (SIGINT 2, SIGTERM 15), as shells report a process killed by it; cli/main.ts EXIT. */
export const SIGNAL_EXIT: Readonly<Record<StopSignal, number>> = Object.freeze({ SIGINT: 130, SIGTERM: 143 });

export interface StopHandle {
  /** The first signal received, if any. */
  readonly signal: StopSignal | undefined;
  /** Aborted (reason: the signal's name) at the first signal. */
  readonly aborted: AbortSignal;
  /** Removes the handlers (the process's default behaviour again). */
  dispose(): void;
}

/**
 * Installs SIGINT and SIGTERM handlers. The first signal calls `first` and aborts `aborted`; a
 * second one calls `forced` (which may end what this process started) and exits the process at
 * once with SIGNAL_EXIT of that second signal.
 *
 * @param first called once, with the first signal.
 * @param forced called at the second signal, just before `process.exit`.
 */
export function onStopSignals(first: (signal: StopSignal) => void, forced: (signal: StopSignal) => void = () => {}): StopHandle {
  const controller = new AbortController();
  // One listener per running command (a batch of --concurrency 64 has 64): no leak warning.
  setMaxListeners(0, controller.signal);
  let received: StopSignal | undefined;
  const handler = (signal: StopSignal) => {
    if (received) {
      forced(signal);
      process.exit(SIGNAL_EXIT[signal]);
    }
    received = signal;
    controller.abort(signal);
    first(signal);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    get signal() { return received; },
    aborted: controller.signal,
    dispose: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
