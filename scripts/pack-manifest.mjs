// The package.json that goes into the tarball: `npm pack` / `npm publish` run `prepack`, read the
// manifest, pack, then run `postpack`.
//
//   node scripts/pack-manifest.mjs strip    (prepack) keeps a copy, then drops the scripts that build
//                                           a clone (prepare, prepack, postpack): the package ships
//                                           its built files, and npm lists any package with a
//                                           `prepare` script as one whose install scripts need
//                                           approving, although it never runs it for a dependency
//   node scripts/pack-manifest.mjs restore  (postpack) puts the clone's package.json back
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const manifest = join(root, 'package.json');
const kept = join(root, '.package.json.prepack');
/** Lifecycle scripts that only make sense in a clone. */
const CLONE_ONLY_SCRIPTS = ['prepare', 'prepack', 'postpack'];

const mode = process.argv[2];
if (mode === 'strip') {
  // A copy left by a pack that died before postpack is the clone's own manifest: keep it.
  if (!existsSync(kept)) writeFileSync(kept, readFileSync(manifest));
  const pkg = JSON.parse(readFileSync(kept, 'utf8'));
  for (const s of CLONE_ONLY_SCRIPTS) delete pkg.scripts?.[s];
  writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
} else if (mode === 'restore') {
  if (existsSync(kept)) renameSync(kept, manifest);
} else {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore');
  process.exit(2);
}
