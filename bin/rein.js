#!/usr/bin/env node
// The `rein` command. `--version` answers before anything else is loaded, so it stays fast.
//
// Everything else runs dist/bundle/rein.cjs (built by `npm install` / `npm run build`), compiled
// with V8's code cache dist/bundle/rein.cjs.cache: V8 then skips parsing and compiling the
// functions a run needs, which is most of a cold start (rein.cjs is ~2 MB minified, the Anthropic
// SDK and zod included). A missing or stale cache (another Node version) only costs speed: the bundle is
// compiled from source and, on a `rein run`, a fresh cache is written when the process exits.
//
// This file is CommonJS (bin/package.json): a CommonJS entry starts ~4 ms sooner than an ES module.
'use strict';
const { readFileSync, renameSync, writeFileSync } = require('node:fs');
const { createRequire } = require('node:module');
const { dirname, join } = require('node:path');
const { Script } = require('node:vm');

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  const pkg = JSON.parse(readFileSync(join(__dirname, '../package.json'), 'utf8'));
  process.stdout.write(`${pkg.version}\n`);
} else {
  const bundle = join(__dirname, '../dist/bundle/rein.cjs');
  const cacheFile = `${bundle}.cache`;
  let source;
  try {
    source = readFileSync(bundle, 'latin1');
  } catch (err) {
    if (err && err.code === 'ENOENT') {
      process.stderr.write('rein: the compiled files are missing; run `npm install` (or `npm run build`) in the rein folder first\n');
      process.exit(70);
    }
    throw err;
  }
  let cachedData;
  try {
    cachedData = readFileSync(cacheFile);
  } catch {
    // no cache yet: compile from source
  }
  // The same wrapper Node gives a CommonJS module, so the bundle sees exports/require/module.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: bundle, cachedData });
  if (process.env.REIN_TRACE_STARTUP === '1') {
    const state = !cachedData ? 'missing' : script.cachedDataRejected ? 'rejected (built by another Node or with other V8 flags)' : 'used';
    process.stderr.write(`rein: +${performance.now().toFixed(1)} ms bundle compiled; code cache ${state}\n`);
  }
  const bundleModule = { exports: {} };
  script.runInThisContext()(bundleModule.exports, createRequire(bundle), bundleModule, bundle, dirname(bundle));

  const writeCache = process.env.REIN_CODE_CACHE === 'write' || ((!cachedData || script.cachedDataRejected) && argv[0] === 'run');
  if (writeCache) {
    // At exit the cache also holds every function the run compiled, not only the top level.
    process.once('exit', () => {
      try {
        const tmp = `${cacheFile}.${process.pid}.tmp`;
        writeFileSync(tmp, script.createCachedData());
        renameSync(tmp, cacheFile);
      } catch (err) {
        if (process.env.REIN_CODE_CACHE === 'write') process.stderr.write(`rein: could not write ${cacheFile}: ${err.message}\n`);
      }
    });
  }
  // A script compiled from a code cache cannot run `import()` on Node 20; the bundle imports
  // packages that stay outside it through this function (kernel/import-external.ts).
  globalThis.__reinImport = (specifier) => import(specifier);
  bundleModule.exports.main(argv);
}
