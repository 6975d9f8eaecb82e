#!/usr/bin/env node
// The `rein` command. `--version` answers before anything else is loaded, so it stays fast.
//
// Everything else runs dist/bundle/rein.cjs (every command in one esbuild bundle, built by
// `npm install` / `npm run build`), compiled with V8's code cache dist/bundle/rein.cjs.cache
// (rein.cjs.<hash>.cache when Node runs with options): V8 then skips parsing and compiling the
// functions a run needs, which was most of a cold start.
// The build writes the cache after a warm-up run; a missing or unusable cache only costs speed:
// the bundle is compiled from source and, on a `rein run`, a fresh cache is written at exit.
//
// V8 checks little of a code cache by itself (its own version and flags, and the source's
// length), and a cache made by another Node build, or a damaged one, can crash the process. So the
// cache file starts with what it was made from (Node version and binary, the bundle's path, size
// and mtime) and a CRC-32 of the cache bytes; anything else is ignored. The checksum line is padded
// with spaces so the cache bytes start at a multiple of 8 in the file: V8 copies cache data that is
// not pointer-aligned (AlignedCachedData in V8's code-serializer.cc) before it reads it, 2.4 MB of
// fresh memory at every start.
//
// This file is CommonJS (bin/package.json): a CommonJS entry starts ~4 ms sooner than an ES module.
'use strict';
const { accessSync, constants, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname, join } = require('node:path');
const { Script } = require('node:vm');

const argv = process.argv.slice(2);
// This file's real folder, also when it is run through a link with --preserve-symlinks-main.
const here = dirname(realpathSync(__filename));
// `-v` alone too, as `claude -v` prints Claude Code's version (with a prompt it is `--verbose`).
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V' || argv[0] === '-v')) {
  const pkg = JSON.parse(readFileSync(join(here, '../package.json'), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  // A script compiled from a code cache cannot run `import()` on Node 20; the bundle imports
  // packages that stay outside it through this function (lib/node/import-external.ts).
  globalThis.__reinImport = (specifier) => import(specifier);
  const bundle = join(here, '../dist/bundle/rein.cjs');
  let bundleStat;
  try {
    bundleStat = statSync(bundle);
  } catch (err) {
    if (err && err.code === 'ENOENT') {
      process.stderr.write('rein: the compiled files are missing; run `npm install` (or `npm run build`) in the rein folder first\n');
      process.exit(70);
    }
    throw err;
  }
  // With --enable-source-maps, Node's own loader: it maps stack traces to the TypeScript sources
  // (it does not for a vm.Script).
  if (process.sourceMapsEnabled) require(bundle).main(argv);
  else runFromCodeCache(bundle, bundleStat);
}

function runFromCodeCache(bundle, bundleStat) {
  // V8 rejects a cache made under other V8 flags; one file per set of Node options, so runs with
  // and without (say) NODE_OPTIONS=--max-old-space-size do not keep replacing each other's cache.
  const options = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ').trim();
  const cacheFile = options ? `${bundle}.${checksum(Buffer.from(options)).split(':')[1].slice(0, 16)}.cache` : `${bundle}.cache`;
  const exe = statSync(process.execPath);
  const identity = JSON.stringify(['rein code cache 2', process.version, process.arch, process.execPath, exe.size, exe.mtimeMs, bundle, bundleStat.size, bundleStat.mtimeMs]);
  const cachedData = readCache(cacheFile, identity);
  // The bundle is pure ASCII (scripts/bundle.mjs checks), so latin1 reads it exactly and fastest.
  // Its text is already the wrapper Node gives a CommonJS module (scripts/bundle.mjs): compiled as
  // read, without a copy, it evaluates to that function.
  const script = new Script(readFileSync(bundle, 'latin1'), { filename: bundle, cachedData });
  const used = cachedData !== undefined && !script.cachedDataRejected;
  if (process.env.REIN_TRACE_STARTUP === '1') {
    const state = used ? 'used' : cachedData ? 'rejected by V8 (other V8 flags?)' : 'missing or made by another Node or bundle';
    const cpu = process.cpuUsage();
    process.stderr.write(`rein: +${performance.now().toFixed(1)} ms bundle compiled; code cache ${state} (cpu ${((cpu.user + cpu.system) / 1000).toFixed(1)})\n`);
  }
  if (process.env.REIN_CODE_CACHE === 'write' || (!used && argv[0] === 'run')) {
    // At exit the cache also holds every function the run compiled, not only the top level.
    process.once('exit', () => writeCache(cacheFile, identity, script));
  }
  const bundleModule = { exports: {} };
  script.runInThisContext()(bundleModule.exports, createRequire(bundle), bundleModule, bundle, dirname(bundle));
  bundleModule.exports.main(argv);
}

/** The cache bytes when the file was made from this identity and is intact; otherwise undefined. */
function readCache(cacheFile, identity) {
  let file;
  try {
    file = readFileSync(cacheFile);
  } catch {
    return undefined;
  }
  const end = file.indexOf(10);
  const sumEnd = end < 0 ? -1 : file.indexOf(10, end + 1);
  if (sumEnd < 0 || file.toString('utf8', 0, end) !== identity) return undefined;
  const data = file.subarray(sumEnd + 1);
  return file.toString('latin1', end + 1, sumEnd).trimEnd() === checksum(data) ? data : undefined;
}

function writeCache(cacheFile, identity, script) {
  const loud = process.env.REIN_CODE_CACHE === 'write';
  try {
    // A read-only install: do not serialise 2 MB that cannot be written.
    accessSync(dirname(cacheFile), constants.W_OK);
  } catch (err) {
    if (loud) process.stderr.write(`rein: cannot write ${cacheFile}: ${err.message}\n`);
    return;
  }
  const tmp = `${cacheFile}.${process.pid}.tmp`;
  try {
    const data = script.createCachedData();
    const header = `${identity}\n${checksum(data)}`;
    // +1 for the newline; the file is read into a buffer of its own, which starts aligned.
    const padding = ' '.repeat((8 - ((Buffer.byteLength(header) + 1) % 8)) % 8);
    writeFileSync(tmp, Buffer.concat([Buffer.from(`${header}${padding}\n`), data]), { flag: 'wx' });
    renameSync(tmp, cacheFile);
  } catch (err) {
    try { unlinkSync(tmp); } catch { /* it was not created */ }
    if (loud) process.stderr.write(`rein: could not write ${cacheFile}: ${err.message}\n`);
  }
}

/** CRC-32 (zlib.crc32, Node ≥ 20.15) or, on older Node 20 releases, SHA-1 of the cache bytes. */
function checksum(data) {
  const { crc32 } = require('node:zlib');
  return crc32 ? `crc32:${crc32(data)}` : `sha1:${require('node:crypto').createHash('sha1').update(data).digest('hex')}`;
}
