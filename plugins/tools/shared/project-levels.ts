/**
 * The folders of a project that definition files (skills, agents) are looked for in: the working
 * directory and each parent up to the repository root (the nearest folder holding `.git`), nearest
 * first; outside a repository, the working directory alone (a checkout in /tmp must not pick up
 * whatever lies in /tmp/.claude).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The project's folders, nearest first (see the module comment). `cwd` is absolute. */
export function projectLevels(cwd: string): string[] {
  const levels: string[] = [];
  for (let at = cwd; ; at = dirname(at)) {
    levels.push(at);
    if (existsSync(join(at, '.git'))) return levels;
    if (dirname(at) === at) return [cwd];
  }
}
