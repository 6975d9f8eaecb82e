/**
 * `rein sim serve`: the simulator on 127.0.0.1, speaking the Messages API wire protocol, until
 * SIGINT/SIGTERM. Prints `listening on URL` on stdout so scripts can read the port.
 */
import { statSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadScenario } from '../../simulator/scenario.js';
import { createSimulator } from '../../simulator/simulator.js';
import { startSimServer } from '../../simulator/server.js';
import { InputError, isInputError, printInputError } from './errors.js';
import { EXIT } from '../main.js';

/** Throws InputError when `--scenario` names no regular file (checked before reading: a FIFO would block). */
function checkScenario(given: string): void {
  const file = resolve(given);
  let st;
  try {
    st = statSync(file);
  } catch {
    throw new InputError(`--scenario: scenario file ${given} does not exist (looked for ${file})`);
  }
  if (!st.isFile()) throw new InputError(`--scenario: ${given} is ${st.isDirectory() ? 'a directory' : 'not a regular file'} (${file}); it takes a scenario YAML file`);
}

export async function simServeCommand(opts: { port: number; scenario?: string; log?: string }): Promise<number> {
  let simulator;
  try {
    if (opts.scenario) checkScenario(opts.scenario);
    simulator = createSimulator(opts.scenario ? { scenario: loadScenario(resolve(opts.scenario)) } : {});
  } catch (err) {
    if (isInputError(err)) { printInputError(err); return EXIT.BAD_INPUT; }
    throw err;
  }
  let server;
  try {
    server = await startSimServer({ simulator, port: opts.port, log: opts.log ? resolve(opts.log) : undefined });
  } catch (err) {
    process.stderr.write(`rein: cannot listen on 127.0.0.1:${opts.port}: ${(err as Error).message}\n`);
    return EXIT.BAD_INPUT;
  }
  // The handlers go in before the line scripts wait for: a signal sent on reading it must meet
  // them, not Node's default action (an exit by the signal, not 0).
  const stopped = new Promise<void>((done) => {
    const stop = () => { process.off('SIGINT', stop); process.off('SIGTERM', stop); done(); };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  process.stdout.write(`listening on ${server.url}\n`);
  await stopped;
  await server.close();
  return EXIT.OK;
}
