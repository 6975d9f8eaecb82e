/**
 * node:child_process, loaded when a tool first starts a process rather than when its module loads.
 * Loading it (with the dgram module it brings) was ~19 M instructions of a cold `rein run` before
 * its first request, where no process is started (`valgrind --tool=cachegrind`, beside the net,
 * stream, crypto and http modules a run loads anyway).
 */
import { createRequire } from 'node:module';
import type * as ChildProcessModule from 'node:child_process';

const load = createRequire(import.meta.url);
let loaded: typeof ChildProcessModule | undefined;

/** Node's child_process module, required on the first call. */
export function childProcess(): typeof ChildProcessModule {
  return (loaded ??= load('node:child_process') as typeof ChildProcessModule);
}
