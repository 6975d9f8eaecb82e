// Bundles the `rein` command into dist/bundle/ with esbuild: one file per entry plus shared chunks,
// dynamic imports kept as separate chunks (so a command loads only what it uses). Start-up reads a
// few large files instead of hundreds of small ones, which is most of what a cold `rein run` costs.
// bin/rein.js loads dist/bundle/main.js; the library API stays in dist/ (tsc output).
import { build } from 'esbuild';

await build({
  entryPoints: { main: 'cli/main.ts', worker: 'bench/worker.ts' },
  outdir: 'dist/bundle',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
  // Class and function names stay as written (`rein hooks` prints the tapable class names).
  keepNames: true,
  // CommonJS dependencies inside an ES module bundle need a `require`.
  banner: { js: "import { createRequire as __reinCreateRequire } from 'node:module'; const require = __reinCreateRequire(import.meta.url);" },
  // Loaded from node_modules at run time: loaders and test/report tooling, modules that are large
  // and needed only on some paths, and CommonJS packages that are imported lazily (a dynamic
  // import of a bundled CommonJS module exposes only `default`, not its named exports).
  external: ['jiti', 'mvdan-sh', 'vega', 'vega-lite', 'playwright-core', 'tinypool', 'cli-progress', 'esbuild', 'typescript', 'cosmiconfig', 'node-html-markdown'],
});
