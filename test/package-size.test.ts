/**
 * What `npm install rein` brings: the packed package (npm pack --dry-run) and the packages its
 * dependencies pull in, measured on the repository's node_modules (the versions the lockfile
 * pins). scripts/check-package.sh measures a real install from the registry.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, REPO } from '../testing/support.js';

/** Bytes of the files under `dir`, not counting nested node_modules (they are packages of their own). */
function ownBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) { if (e.name !== 'node_modules') n += ownBytes(p); } else if (e.isFile()) n += statSync(p).size;
  }
  return n;
}

/** The folder `name` resolves to from `fromDir`, as Node looks it up (node_modules of each parent). */
function findPackage(name: string, fromDir: string): string | undefined {
  for (let d = fromDir; ; d = dirname(d)) {
    const p = join(d, 'node_modules', name);
    if (existsSync(join(p, 'package.json'))) return p;
    if (dirname(d) === d) return undefined;
  }
}

/**
 * Every package a consumer install of rein gets: dependencies, required (non-optional) peer
 * dependencies, and theirs, recursively; optional dependencies that are installed here count too.
 */
function installTree(): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (dir: string, isRoot: boolean) => {
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const optionalPeers = new Set(Object.entries(pkg.peerDependenciesMeta ?? {}).filter(([, m]) => (m as { optional?: boolean }).optional).map(([k]) => k));
    const names = [
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.optionalDependencies ?? {}),
      ...Object.keys(pkg.peerDependencies ?? {}).filter((k) => !optionalPeers.has(k)),
    ];
    for (const name of names) {
      const found = findPackage(name, isRoot ? dir : join(dir, 'x'));
      if (!found || seen.has(found)) continue;
      seen.set(found, name);
      visit(found, false);
    }
  };
  visit(REPO, true);
  return seen;
}

const MB = 1024 * 1024;

describe('the size of `npm install rein`', () => {
  const pack = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: REPO, encoding: 'utf8', env: cleanEnv() }))[0] as { size: number; unpackedSize: number; entryCount: number; files: { path: string; size: number }[] };
  const tree = installTree();
  const depBytes = [...tree.keys()].reduce((n, d) => n + ownBytes(d), 0);
  console.log(`npm pack: ${(pack.size / MB).toFixed(2)} MB packed, ${(pack.unpackedSize / MB).toFixed(2)} MB unpacked, ${pack.entryCount} files; dependencies: ${tree.size} packages, ${(depBytes / MB).toFixed(1)} MB; installed: ${((pack.unpackedSize + depBytes) / MB).toFixed(1)} MB`);

  it('ships no source maps (they pointed at TypeScript files the package does not ship)', () => {
    expect(pack.files.filter((f) => f.path.endsWith('.map'))).toEqual([]);
    expect(pack.files.filter((f) => f.path.endsWith('.ts') && !f.path.endsWith('.d.ts'))).toEqual([]);
  });

  it('leaves out what only `rein bench --html` needs (vega, vega-lite) and the dev tools', () => {
    const names = new Set(tree.values());
    for (const heavy of ['vega', 'vega-lite', 'playwright-core', 'typescript', 'esbuild', 'vitest']) expect(names.has(heavy), heavy).toBe(false);
    expect(names.has('zod')).toBe(true);
  });

  it('stays small: package under 10 MB unpacked, everything it installs under 75 MB of files', () => {
    // Measured at 7.5 MB unpacked and 154 packages of 43 MB (before: 27.8 MB with 20 MB of source
    // maps, and 234 packages of 77 MB); the job queue (bullmq, ioredis, luxon, msgpackr) then added
    // about 15 MB, 62.9 MB in all. Sizes are file bytes; `du` counts disk blocks, so more.
    expect(pack.unpackedSize).toBeLessThan(10 * MB);
    expect(pack.unpackedSize + depBytes).toBeLessThan(75 * MB);
  });
});
