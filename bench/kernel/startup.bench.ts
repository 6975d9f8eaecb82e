/**
 * Cold start of the built `rein` command (dist/bundle/), measured as real processes:
 *   - `rein --version` until the process exits;
 *   - `rein run` until its first request reaches a simulator listening in this process
 *     (ANTHROPIC_BASE_URL), which is what a user waits for before anything happens; with the
 *     `minimal` and the `default` preset.
 * Targets (DESIGN.md): both under 150 ms median; `node -e 0` is the floor and is measured beside them.
 *
 * When NODE_EXTRA_CA_CERTS is set, Node parses that certificate file while it boots, before any
 * JavaScript runs (~35 ms on a 2-core machine for Debian's bundle), so the floor and a `rein run`
 * are measured once more without it: the difference is Node's, not rein's.
 * Needs `npm run build` first.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Bench } from 'tinybench';
import { createSimulator } from '../../simulator/simulator.js';
import { startSimServer } from '../../simulator/server.js';
import { parseScenario } from '../../simulator/scenario.js';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const BIN = join(REPO, 'bin/rein.js');

function exitTime(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { env, stdio: 'ignore' });
    child.on('error', fail);
    child.on('exit', () => done());
  });
}

export async function run(bench: Bench): Promise<void> {
  if (!existsSync(join(REPO, 'dist/bundle/rein.cjs'))) {
    console.warn('startup bench: dist/bundle/ is missing; run `npm run build` first');
    return;
  }
  const cwd = mkdtempSync(join(tmpdir(), 'rein-startup-'));
  // The simulator answers every request with a short text; a task ends when the request arrives.
  let arrived: (() => void) | undefined;
  const simulator = createSimulator({ scenario: parseScenario('turns:\n' + '  - reply: [{ text: "ok" }]\n'.repeat(10_000)) });
  const handle = simulator.handle.bind(simulator);
  simulator.handle = (body, o) => { arrived?.(); return handle(body, o); };
  const server = await startSimServer({ simulator, port: 0 });
  const env: NodeJS.ProcessEnv = { ...process.env, ANTHROPIC_BASE_URL: server.url, REIN_HOME: join(cwd, 'home') };
  delete env.ANTHROPIC_API_KEY;
  const withoutExtraCerts = { ...env };
  delete withoutExtraCerts.NODE_EXTRA_CA_CERTS;

  // Each run task ends when the request arrives; the process then finishes its run. afterEach
  // waits for it to exit, so its tail never overlaps the next iteration's start-up.
  let exited: Promise<void> = Promise.resolve();
  const firstRequest = (preset: string, runEnv: NodeJS.ProcessEnv) => () => new Promise<void>((done, fail) => {
    arrived = done;
    const child = spawn(process.execPath, [BIN, 'run', 'hi', '--preset', preset, '--no-layers', '--output-format', 'json'], { env: runEnv, cwd, stdio: 'ignore' });
    exited = new Promise((gone) => child.on('exit', () => gone()));
    child.on('error', fail);
  });
  const afterEach = () => exited;

  bench.add('node -e 0 (floor)', () => exitTime(['-e', '0'], env));
  bench.add('rein --version, cold', () => exitTime([BIN, '--version'], env));
  bench.add('rein run → first request, cold (minimal)', firstRequest('minimal', env), { afterEach });
  bench.add('rein run → first request, cold (default)', firstRequest('default', env), { afterEach });
  if (env.NODE_EXTRA_CA_CERTS) {
    bench.add('node -e 0 (floor), NODE_EXTRA_CA_CERTS unset', () => exitTime(['-e', '0'], withoutExtraCerts));
    bench.add('rein run → first request (default), NODE_EXTRA_CA_CERTS unset', firstRequest('default', withoutExtraCerts), { afterEach });
  }
  bench.addEventListener?.('complete', () => { void server.close(); });
}

/** tinybench options for this file: process spawns are slow, so few iterations. */
export const options = { iterations: 20, time: 0, warmupIterations: 2 };
