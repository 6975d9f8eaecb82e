/**
 * rein's own package folder, from source or from dist/: where presets/, agent.schema.json and
 * package.json (rein's version) are.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let rootCache: string | undefined;

/**
 * The directory of rein's package.json (the one named "rein"), found by walking up from this module,
 * so it is the same whether running from source or from dist/. Throws when there is none.
 */
export function reinRoot(): string {
  if (rootCache) return rootCache;
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'rein') return (rootCache = dir);
      } catch {
        // Not a readable package.json; keep walking.
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('rein: cannot find the rein package root (a package.json named "rein") above lib/node/');
    dir = up;
  }
}
