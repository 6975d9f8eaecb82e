// Builds the `rein` command into dist/bundle/ with esbuild, then warms V8's code cache for it.
//
//   dist/bundle/rein.cjs        every command in one CommonJS file, written as the function a module
//                               is wrapped in (see the banner). Lazily imported modules become
//                               lazily initialised sections of the file, so a command still runs only
//                               what it uses.
//   dist/bundle/rein.cjs.cache  V8's code cache for rein.cjs, written after a warm-up `rein run`
//                               against the embedded simulator, so it holds the functions a run
//                               compiles and not only the top level. bin/rein.js compiles rein.cjs
//                               with it (Node 20 has no compile cache for ES modules; a code cache
//                               needs a classic script, hence CommonJS). It is valid only for this
//                               Node binary and this bundle, so it is not published (package.json).
//   dist/bundle/worker.js       the `rein bench` worker thread (an ES module; tinypool loads it).
//
// No source maps by default: the package does not ship the TypeScript sources a map would point
// at, and the maps were most of its size. REIN_SOURCEMAP=1 writes linked maps (with the sources'
// paths, for debugging a crash of the bundle in a clone: `node --enable-source-maps bin/rein.js`).
//
// The library API stays in dist/ (tsc output). `npm run build` runs this through scripts/build.mjs.
import { build, transform } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const outdir = 'dist/bundle';
rmSync(outdir, { recursive: true, force: true });

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  sourcemap: process.env.REIN_SOURCEMAP === '1' ? 'linked' : false,
  sourcesContent: false,
  logLevel: 'warning',
  // Function and class names are not kept (esbuild's keepNames), except in the few bundled files
  // that read their own classes' names (keepNamesWhereRead below). keepNames wraps every function
  // and class of the bundle in a call that redefines its `name`: ~30 M of the ~530 M instructions a
  // cold `rein run` adds to `node -e 0` before its first request, ~2 MB of short-lived objects (more
  // scavenges) and ~1,000 page faults.
};

/**
 * commander requires node:child_process when it loads, for the one thing it uses it for: running a
 * subcommand that is an executable of its own, which rein has none of. Loading child_process (and
 * the net and dgram modules it loads) was ~49 M instructions of every command's start, before
 * anything of rein ran (`valgrind --tool=cachegrind`: `node -e "require('child_process')"` against
 * `node -e 0`). In the bundle commander gets an object that loads child_process on first use;
 * rein's own modules require it as they are.
 */
const lazyChildProcessForCommander = {
  name: 'lazy-child-process-for-commander',
  setup(b) {
    b.onResolve({ filter: /^(node:)?child_process$/ }, (args) => (/[\\/]commander[\\/]lib[\\/]command\.js$/.test(args.importer) ? { path: 'child_process', namespace: 'rein-lazy' } : undefined));
    b.onLoad({ filter: /.*/, namespace: 'rein-lazy' }, () => ({
      contents: "module.exports = new Proxy({}, { get: (_target, key) => require('node:child_process')[key] });",
      loader: 'js',
    }));
  },
};

/**
 * The bundled files that read the `name` of their own classes, compiled with esbuild's keepNames
 * (which sets each class's and function's `name` to the one written) so they see the names they
 * expect in a bundle whose identifiers are minified:
 *   - proxy-chain (the sandbox's proxy) tells its own refusals from crashes by
 *     `error.name === 'RequestError'`, a name it takes from `RequestError.name`: with a minified
 *     class name the sandbox's 403 for a host not allowed became a 500;
 *   - commander's errors, a JSON parse error class (json-parse-even-better-errors, through
 *     cosmiconfig) and the MCP SDK's auth errors take `error.name` from `this.constructor.name`.
 * Found by searching the bundled packages for `constructor.name` and `<Class>.name`.
 */
const KEEP_NAMES_IN = /[\\/]node_modules[\\/](?:proxy-chain[\\/]dist[\\/]request_error\.js|commander[\\/]lib[\\/]error\.js|json-parse-even-better-errors[\\/]index\.js|@modelcontextprotocol[\\/]sdk[\\/]dist[\\/]esm[\\/]server[\\/]auth[\\/]errors\.js)$/;
const keepNamesWhereRead = {
  name: 'keep-names-where-read',
  setup(b) {
    b.onLoad({ filter: KEEP_NAMES_IN }, async (args) => {
      const { code } = await transform(await readFile(args.path, 'utf8'), { loader: 'js', keepNames: true, sourcefile: args.path });
      return { contents: code, loader: 'js' };
    });
  },
};

await build({
  ...common,
  entryPoints: { rein: 'cli/main.ts' },
  outdir,
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  minify: true,
  legalComments: 'external',
  // `import.meta.url` of every bundled module is the bundle's own URL (rein's root is found from it).
  define: { 'import.meta.url': '__reinImportMetaUrl' },
  // The file is the function Node would wrap a CommonJS module in, written out, so bin/rein.js
  // compiles the file's text as it is read: wrapping the source in a template string there made V8
  // copy the 2.5 MB source into one more string, ~630 fresh memory pages (page faults cost several
  // µs each on a small VM). Compiled as a script (bin/rein.js, where `this` is the global object)
  // its value is that function; required as a module (`node --enable-source-maps`, Node's loader,
  // where `this` is module.exports) it runs it with the module's own arguments. The parentheses
  // around the function keep V8 compiling it at once rather than pre-parsing it first.
  // Strict throughout, as the ES modules it is built from are ("use strict" must come first).
  banner: { js: "(function (run) { if (this !== globalThis) run.call(this, exports, require, module, __filename, __dirname); return run; }).call(this, (function (exports, require, module, __filename, __dirname) {\"use strict\";\nconst __reinImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  footer: { js: '\n}))' },
  // Loaded from node_modules at run time: loaders and report tooling that resolve files next to
  // themselves, ES-module-only packages (through lib/node/import-external.ts), and large modules
  // needed on few paths (the job queue's BullMQ and ioredis: only `--queue` and `rein worker` load them).
  external: ['jiti', 'mvdan-sh', 'vega', 'vega-lite', 'playwright-core', 'tinypool', 'esbuild', 'typescript', 'node-html-markdown', 'bullmq', 'ioredis'],
  plugins: [lazyChildProcessForCommander, keepNamesWhereRead],
});

// bin/rein.js reads the bundle as latin1, which is exact only for ASCII (esbuild escapes non-ASCII
// characters in strings; minifying drops the comments that could hold any).
const nonAscii = readFileSync(`${outdir}/rein.cjs`).findIndex((byte) => byte > 0x7f);
if (nonAscii >= 0) throw new Error(`${outdir}/rein.cjs has a non-ASCII byte at offset ${nonAscii}; bin/rein.js reads it as latin1`);

await build({
  ...common,
  entryPoints: { worker: 'bench/worker.ts' },
  outdir,
  format: 'esm',
  // Minified like rein.cjs: unminified it was half of the package's unpacked size. Without kept
  // names (nothing a replay runs reads a function's or class's name; the sandbox's proxy does not
  // run in a replay): keeping them wraps every function expression in a call that redefines its
  // `name`, each time a closure is made, which was a few per cent of a replay's CPU and allocation.
  minify: true,
  keepNames: false,
  legalComments: 'external',
  banner: { js: "import { createRequire as __reinCreateRequire } from 'node:module'; const require = __reinCreateRequire(import.meta.url);" },
  // cosmiconfig too: in an ES module bundle, a dynamic import of a bundled CommonJS module exposes
  // only `default`, not the named export the preset loader uses.
  external: ['jiti', 'mvdan-sh', 'esbuild', 'typescript', 'cosmiconfig'],
});

// Warm-up: one `rein run` with the default preset against the embedded simulator (no API key, no
// config layers, a scratch directory), which writes the code cache when it exits. A failed warm-up
// does not fail the install: without the cache rein works, it only starts slower.
const scratch = mkdtempSync(join(tmpdir(), 'rein-warmup-'));
try {
  const env = { ...process.env, REIN_HOME: join(scratch, 'home'), REIN_CODE_CACHE: 'write' };
  delete env.ANTHROPIC_API_KEY;
  delete env.ANTHROPIC_BASE_URL;
  execFileSync(process.execPath, ['bin/rein.js', 'run', '--preset', 'default', '--no-layers', '--cwd', scratch, '--output-format', 'json', 'warm up'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  // rein.cjs.cache, or rein.cjs.<hash>.cache when NODE_OPTIONS is set (bin/rein.js).
  if (!readdirSync(outdir).some((f) => /^rein\.cjs\.(\w+\.)?cache$/.test(f))) throw new Error('no cache was written');
} catch (err) {
  console.warn(`rein build: the code-cache warm-up failed, so \`rein\` will start slower: ${String(err.stderr || err.message).trim()}`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
