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
  // CommonJS dependencies inside an ES module bundle need a `require`.
  banner: { js: "import { createRequire as __reinCreateRequire } from 'node:module'; const require = __reinCreateRequire(import.meta.url);" },
  // Loaded from node_modules at run time: loaders and test/report tooling, and modules that are
  // large and needed only on some paths (they are imported lazily where they are used).
  external: ['jiti', 'mvdan-sh', 'vega', 'vega-lite', 'playwright-core', 'tinypool', 'cli-progress', 'esbuild', 'typescript'],
});
