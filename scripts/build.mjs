// Builds rein: the library (tsc → dist/) and the `rein` command (scripts/bundle.mjs → dist/bundle/).
//
//   node scripts/build.mjs               build both (`npm run build`)
//   node scripts/build.mjs --if-changed  build only the parts whose inputs changed since they were
//                                         last built (`npm install` in a clone runs this through
//                                         `prepare`, the test suites through their global setup,
//                                         `npm pack` through `prepack`)
//
// The inputs of a part are the files under the folders tsconfig.build.json compiles, the build
// configuration and the lockfile; the bundle's also include the Node version (its code cache is
// made for one Node binary) and REIN_SOURCEMAP (a debugging build with source maps). Their SHA-256
// is kept in dist/.build-inputs.json; a part whose hash matches is up to date.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ignore from 'ignore';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const stampFile = join(root, 'dist/.build-inputs.json');
const ifChanged = process.argv.includes('--if-changed');

// What git would not track (build output, benchmark results) is no input.
const ignored = ignore().add(existsSync(join(root, '.gitignore')) ? readFileSync(join(root, '.gitignore'), 'utf8') : '');

/** Every file under `dir`, relative to the repository root (tests and ignored files left out). */
function walk(dir, out = []) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    const rel = relative(root, p);
    if (ignored.ignores(e.isDirectory() ? `${rel}/` : rel)) continue;
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile() && !/\.test\.ts$/.test(e.name)) out.push(rel);
  }
  return out;
}

/** SHA-256 over the names and contents of the given files, plus extra strings. */
function hashOf(files, extra) {
  const h = createHash('sha256');
  for (const f of [...files].sort()) {
    h.update(f).update('\0');
    h.update(existsSync(join(root, f)) ? readFileSync(join(root, f)) : '').update('\0');
  }
  for (const x of extra) h.update(x).update('\0');
  return h.digest('hex');
}

const buildConfig = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8'));
const sources = (buildConfig.include ?? []).flatMap((d) => walk(join(root, d)));
const shared = ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs', 'presets'].flatMap((f) => (f === 'presets' ? walk(join(root, f)) : [f]));
const wanted = {
  library: hashOf([...sources, ...shared], []),
  bundle: hashOf([...sources, ...shared, 'scripts/bundle.mjs', 'bin/rein.js'], [process.version, process.env.REIN_SOURCEMAP === '1' ? 'sourcemap' : '']),
};

let stamp = {};
try {
  stamp = JSON.parse(readFileSync(stampFile, 'utf8'));
} catch {
  // Never built (or the stamp is damaged): build everything.
}

const outputs = { library: 'dist/kernel/index.js', bundle: 'dist/bundle/rein.cjs' };
const stale = (part) => !ifChanged || stamp[part] !== wanted[part] || !existsSync(join(root, outputs[part]));
const steps = {
  library: () => {
    // Emptied first, so a deleted source leaves no compiled file behind (the package would ship it).
    for (const d of buildConfig.include ?? []) rmSync(join(root, 'dist', d), { recursive: true, force: true });
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  },
  bundle: () => execFileSync(process.execPath, [join(root, 'scripts/bundle.mjs')], { cwd: root, stdio: 'inherit' }),
};

const todo = Object.keys(steps).filter(stale);
if (!todo.length) {
  if (process.env.REIN_BUILD_QUIET !== '1') console.log('rein build: up to date');
} else {
  for (const part of todo) {
    const started = Date.now();
    steps[part]();
    stamp[part] = wanted[part];
    mkdirSync(dirname(stampFile), { recursive: true });
    writeFileSync(stampFile, `${JSON.stringify(stamp, null, 2)}\n`);
    console.log(`rein build: ${part} built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}
