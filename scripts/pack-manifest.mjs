// The package.json that goes into the tarball: `npm pack` / `npm publish` run `prepack`, read the
// manifest, pack, then run `postpack`.
//
//   node scripts/pack-manifest.mjs strip    (prepack) keeps a copy, then drops the scripts that build
//                                           a clone (prepare, prepack, postpack): the package ships
//                                           its built files, and npm lists any package with a
//                                           `prepare` script as one whose install scripts need
//                                           approving, although it never runs it for a dependency
//   node scripts/pack-manifest.mjs restore  (postpack) puts the clone's package.json back
//
// npm runs `postpack` only when the pack succeeded: a tarball that cannot be written
// (`--pack-destination` a missing folder, a full disk) or a pack stopped by Ctrl-C ends npm between
// the two scripts. So `strip` also starts a watcher, a detached process that waits for the npm
// process to end and then puts the clone's package.json back if `postpack` did not. It restores only
// the copy this strip made (the same file, by device and inode), so it never undoes a later pack's.
//
//   node scripts/pack-manifest.mjs watch PID START DEV INO   (the watcher; started by strip)
import { spawn, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = join(root, 'package.json');
const kept = join(root, '.package.json.prepack');
/** Lifecycle scripts that only make sense in a clone. */
const CLONE_ONLY_SCRIPTS = ['prepare', 'prepack', 'postpack'];
/** How often the watcher looks whether npm has ended, in ms: the most a failed pack leaves package.json stripped. */
const WATCH_INTERVAL_MS = 100;

/** A process's parent pid, start time and command line, from /proc (Linux) or `ps` (macOS, BSD); undefined when it has ended. */
function processInfo(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may contain spaces: count from its end.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // A zombie has ended; only its parent has not collected its exit status yet.
    if (fields[0] === 'Z') return undefined;
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
    return { ppid: Number(fields[1]), start: fields[19], command };
  } catch {
    if (existsSync('/proc/self/stat')) return undefined; // Linux: the process is gone
  }
  try {
    const [ppid, start, ...command] = execFileSync('ps', ['-o', 'ppid=,lstart=,command=', '-p', String(pid)], { encoding: 'utf8' }).trim().split(/\s+/);
    // lstart is five words (Mon Dec  7 05:20:13 2026): the start time, the command after it.
    return { ppid: Number(ppid), start: [start, ...command.slice(0, 4)].join(' '), command: command.slice(4).join(' ') };
  } catch {
    return undefined;
  }
}

/**
 * The npm process running this script as its `prepack` (npm sets `npm_lifecycle_event`): the
 * nearest ancestor whose command line is npm's (npm titles its process `npm pack`, or runs as
 * `node .../npm-cli.js pack`). npm runs a lifecycle script as `sh -c '<script>'`, and a shell may or
 * may not fork the last command of a `&&` list, so it is one or two levels up. Undefined when the
 * script was run by hand (an npm further up, such as the `npm exec` of a test runner, is not the
 * pack's).
 */
function npmProcess() {
  if (process.env.npm_lifecycle_event !== 'prepack') return undefined;
  for (let pid = process.ppid, hops = 0; pid > 1 && hops < 2; hops++) {
    const info = processInfo(pid);
    if (!info) return undefined;
    if (/(^|\/)npm(-cli\.js)?( |$)|npm-cli\.js /.test(info.command)) return { pid, start: info.start };
    pid = info.ppid;
  }
  return undefined;
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

const mode = process.argv[2];
if (mode === 'strip') {
  // A copy left by a pack that died before postpack is the clone's own manifest: keep it.
  if (!existsSync(kept)) writeFileSync(kept, readFileSync(manifest));
  const pkg = JSON.parse(readFileSync(kept, 'utf8'));
  for (const s of CLONE_ONLY_SCRIPTS) delete pkg.scripts?.[s];
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
  const npm = npmProcess();
  if (npm) {
    const { dev, ino } = statSync(kept);
    spawn(process.execPath, [fileURLToPath(import.meta.url), 'watch', String(npm.pid), npm.start, String(dev), String(ino)], { detached: true, stdio: 'ignore' }).unref();
  }
} else if (mode === 'restore') {
  if (existsSync(kept)) renameSync(kept, manifest);
} else if (mode === 'watch') {
  const [pid, start, dev, ino] = process.argv.slice(3);
  // The same pid with another start time is another process: npm has ended.
  while (processInfo(Number(pid))?.start === start) sleep(WATCH_INTERVAL_MS);
  try {
    const st = statSync(kept);
    if (String(st.dev) === dev && String(st.ino) === ino) renameSync(kept, manifest);
  } catch {
    // postpack put it back
  }
} else {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore');
  process.exit(2);
}
