// Lint rules: the recommended sets of eslint and typescript-eslint, and the import boundaries
// between rein's layers (see `layers` below and the README's "Layout").
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root: the folder tree below is read from here, whatever folder eslint runs in. */
const ROOT = dirname(fileURLToPath(import.meta.url));

// ---------------------------------------------------------------------------------------------
// Import boundaries, checked on the module specifier as written (static imports, re-exports and
// `import()` alike), with ESLint's own `no-restricted-imports` and `no-restricted-syntax`:
//
//   kernel/     imports nothing outside kernel/ (its tests may use the harness in testing/);
//   lib/        token counting, prices, cache models, model facts, the Anthropic client, fs and
//               text helpers: imports only the kernel's public entry from outside lib/; other
//               layers import it through lib/index.js (agent/, bench/ and the CLI may go deeper);
//   plugins/    import the kernel and lib/ through their public entries (kernel/index.js,
//               lib/index.js) only; share code
//               through the `shared/` folder of their own family (plugins/tools/shared/), never
//               another plugin's module; tests may also import testing/, simulator/index.js and
//               other plugins' index.js (to compose them);
//   simulator/  imports the kernel's public entry only, and nothing of plugins/ or agent/;
//   examples/   import only the package's entry (../../index.js) and rein/testing;
//   bench/      nothing outside bench/ imports it, except the `rein bench` commands and `rein worker`
//               (which runs the replays of `rein bench --queue`);
//   queue/      the job queue (BullMQ on Redis) knows no kind of job: nothing of bench/, batch/, cli/;
//   batch/      `rein batch` runs `rein run` processes: nothing of bench/ or cli/.
// A folder of plugins/ with an index.ts is a plugin; the rules are generated per folder depth, so
// a relative specifier tells exactly where it leads.
// ---------------------------------------------------------------------------------------------

const BENCH = { regex: String.raw`^\.{1,2}/(.*/)?bench/`, message: 'bench/ is imported only by bench itself, the `rein bench` commands and `rein worker`.' };
const KERNEL_DEEP = { regex: String.raw`(^|/)kernel/(?!index\.js$)`, message: 'Import the kernel through its public entry, kernel/index.js (export what you need there).' };
const LIB_DEEP = { regex: String.raw`(^|/)lib/(?!index\.js$)`, message: 'Import lib/ through its public entry, lib/index.js (export what you need there).' };
const up = (n) => String.raw`^(\.\./){${n}}`;

/** `*.ts` files exactly `depth` folders below `root`. */
const atDepth = (root, depth, name = '*.ts') => `${root}/${'*/'.repeat(depth)}${name}`;

/** Deepest folder level holding a .ts file under `dir` (0 = files directly in it). */
function maxDepth(dir) {
  let max = 0;
  for (const e of readdirSync(join(ROOT, dir))) {
    const p = join(dir, e);
    if (statSync(join(ROOT, p)).isDirectory() && e !== 'node_modules') max = Math.max(max, 1 + maxDepth(p));
  }
  return max;
}

/** One config object that restricts `patterns` in `files`, for static and dynamic imports. */
function restrict(files, patterns, ignores = []) {
  const selectors = patterns.map((p) => ({
    selector: `ImportExpression[source.value=/${p.regex.replaceAll('/', '\\/')}/]`,
    message: p.message,
  }));
  return {
    files, ignores,
    rules: {
      'no-restricted-imports': ['error', { patterns: patterns.map((p) => ({ regex: p.regex, message: p.message })) }],
      'no-restricted-syntax': ['error', ...selectors],
    },
  };
}

/** Boundary rules of one folder (a layer, a plugin, a family's shared folder), level by level. */
function folderRules(root, { prod, test, ignores = [] }) {
  const out = [];
  if (!existsSync(join(ROOT, root))) return out;
  for (let k = 0; k <= maxDepth(root); k++) {
    out.push(restrict([atDepth(root, k)], prod(k), ignores));
    // Test files at this level: *.test.ts, and the files of a test/ folder (its helpers).
    if (test) out.push(restrict([atDepth(root, k, '*.test.ts'), ...(k > 0 ? [atDepth(root, k - 1, 'test/*.ts')] : [])], test(k), ignores));
  }
  return out;
}

/** Plugin folders (those with an index.ts), family `shared/` folders, and family roots. */
function pluginUnits() {
  const units = [];
  const walk = (dir, depth) => {
    for (const e of readdirSync(join(ROOT, dir))) {
      const p = `${dir}/${e}`;
      if (!statSync(join(ROOT, p)).isDirectory()) continue;
      if (existsSync(join(ROOT, p, 'index.ts')) || e === 'shared') units.push({ root: p, nested: depth === 2 });
      else if (depth === 1) units.push({ root: p, nested: false, familyRoot: true });
      if (depth < 2) walk(p, depth + 1);
    }
  };
  walk('plugins', 1);
  return units;
}

function pluginRules() {
  const units = pluginUnits();
  return units.flatMap((u) => {
    // Folders inside this one that are units of their own (permissions/default) have their own rules.
    const inner = units.filter((o) => o.root.startsWith(`${u.root}/`)).map((o) => `${o.root}/**`);
    const shared = u.nested ? '|shared/' : '';
    const outside = (k) => ({ regex: `${up(k + 1)}(?!(\\.\\./)*(kernel|lib)/index\\.js$${shared})`, message: `${u.root}: outside its own folder, a plugin imports only kernel/index.js, lib/index.js${u.nested ? ' and its family\'s shared/ folder' : ''}, never another plugin's module (share state with createKernelState).` });
    const outsideInTests = (k) => ({ regex: `${up(k + 1)}(?!(\\.\\./)*(kernel/index|lib/index|simulator/index|testing/[\\w-]+)\\.js$|(\\.\\./)*([\\w-]+/){0,2}index\\.js$${shared})`, message: `${u.root}: a plugin's test imports other plugins through their index.js only, and the harness from testing/.` });
    const layers = { regex: String.raw`(^|/)(agent|simulator|testing|cli)/`, message: 'Plugins do not import the assembly layer (agent/), the simulator, the test harness or the CLI.' };
    const layersInTests = { regex: String.raw`(^|/)(agent|cli)/|(^|/)simulator/(?!index\.js$)`, message: 'Plugin tests use the harness (testing/) and the simulator\'s public entry (simulator/index.js).' };
    if (u.familyRoot) {
      // Only the files directly in a family folder (plugins/tools/*.ts); its subfolders are units.
      return [restrict([atDepth(u.root, 0)], [BENCH, KERNEL_DEEP, LIB_DEEP, layers, outside(0)]), restrict([atDepth(u.root, 0, '*.test.ts')], [BENCH, KERNEL_DEEP, LIB_DEEP, layersInTests])];
    }
    return folderRules(u.root, { prod: (k) => [BENCH, KERNEL_DEEP, LIB_DEEP, layers, outside(k)], test: (k) => [BENCH, KERNEL_DEEP, LIB_DEEP, layersInTests, outsideInTests(k)], ignores: inner });
  });
}

const layers = [
  // Everything but bench/ itself and the commands that run it.
  restrict(['**/*.ts', '**/*.js', '**/*.mjs'], [BENCH], ['bench/**', 'cli/commands/bench.ts', 'cli/commands/bench-compare.ts', 'cli/commands/worker.ts', 'dist/**', 'node_modules/**']),
  ...folderRules('kernel', {
    prod: (k) => [BENCH, { regex: up(k + 1), message: 'kernel/ imports nothing outside kernel/.' }],
    test: (k) => [BENCH, { regex: `${up(k + 1)}(?!testing/)`, message: 'kernel/ tests import nothing outside kernel/ but the harness in testing/.' }],
  }),
  ...folderRules('lib', {
    prod: (k) => [BENCH, KERNEL_DEEP, { regex: `${up(k + 1)}(?!(\\.\\./)*kernel/index\\.js$)`, message: 'lib/ imports only the kernel\'s public entry from outside lib/.' }],
    test: (k) => [BENCH, KERNEL_DEEP, { regex: `${up(k + 1)}(?!(\\.\\./)*(kernel/index\\.js$|testing/))`, message: 'lib/ tests import only the kernel\'s public entry and testing/ from outside lib/.' }],
  }),
  ...pluginRules(),
  ...folderRules('simulator', {
    prod: (k) => [BENCH, KERNEL_DEEP, LIB_DEEP, { regex: `${up(k + 1)}(?!(\\.\\./)*(kernel|lib)/index\\.js$)`, message: 'simulator/ imports only the public entries of the kernel and lib/ from outside its folder.' }],
    test: (k) => [BENCH, KERNEL_DEEP, LIB_DEEP, { regex: `${up(k + 1)}(?!(\\.\\./)*((kernel|lib)/index\\.js$|testing/))`, message: 'simulator/ tests import only the public entries of the kernel and lib/, and testing/, from outside their folder.' }],
  }),
  ...folderRules('agent', {
    prod: () => [BENCH, { regex: String.raw`(^|/)(testing|cli)/`, message: 'The assembly layer (agent/) does not import the test harness or the CLI.' }],
    test: () => [BENCH, { regex: String.raw`(^|/)cli/`, message: 'agent/ tests do not import the CLI.' }],
  }),
  ...folderRules('queue', { prod: () => [BENCH, { regex: String.raw`(^|/)(batch|cli)/`, message: 'queue/ runs any kind of job: it imports nothing of bench/, batch/ or cli/.' }] }),
  ...folderRules('batch', { prod: () => [BENCH, { regex: String.raw`(^|/)cli/`, message: 'batch/ does not import the CLI.' }] }),
  ...folderRules('testing', { prod: () => [BENCH, { regex: String.raw`(^|/)cli/`, message: 'testing/ does not import the CLI.' }] }),
  restrict(['examples/*/*.ts'], [BENCH, { regex: String.raw`^\.\./(?!\.\./(index|testing/index)\.js$)`, message: 'Examples import only the package entry (../../index.js, `rein` in your project) and ../../testing/index.js (`rein/testing`).' }]),
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', structuredClone: 'readonly', performance: 'readonly', fetch: 'readonly', queueMicrotask: 'readonly', setImmediate: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
    },
  },
  ...layers,
  // bin/ is CommonJS (bin/package.json): the command's entry starts faster that way.
  {
    files: ['bin/**/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', __dirname: 'readonly', __filename: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
