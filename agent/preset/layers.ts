/**
 * Finding the layer files with cosmiconfig. Layers, lowest first:
 *
 * 1. built-in defaults (BUILTIN_DEFAULTS below),
 * 2. user: `$XDG_CONFIG_HOME/rein/config.{yaml,yml,json,js,mjs,cjs,ts}` (default `~/.config/rein/`),
 * 3. project: `.reinrc`, `.reinrc.{json,yaml,yml,js,ts,mjs,cjs}`,
 *    `rein.config.{yaml,yml,json,js,ts,mjs,cjs}`, searched from the working directory up
 *    (a `rein` key in a package.json there is an error: see packageJsonProblems),
 * 4. local: `rein.local.{yaml,yml,json,js,ts,mjs,cjs}` (meant to be gitignored), searched the same way,
 * 5. `--preset` (a file or a built-in name),
 * 6. command-line flags.
 *
 * The upward search stops after the first directory that has a `.git` or a `package.json` (the
 * project root), at the home directory, or at the filesystem root. Two project (or two local) config
 * files in one directory are an error: only one would be read.
 *
 * cosmiconfig only finds the files here; rein parses them itself, to keep line and column positions.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import type { PresetDiagnostic } from './errors.js';
import type { LayerName } from './merge.js';

/**
 * The built-in defaults layer: what every run has unless a layer says otherwise. The model is Claude
 * Code's default Sonnet; the permission mode is Claude Code's default (ask before anything risky).
 */
export const BUILTIN_DEFAULTS = Object.freeze({
  model: Object.freeze({ provider: 'anthropic', name: 'claude-sonnet-4-6' }),
  permissions: Object.freeze({ mode: 'default' }),
});

const CONFIG_EXTS = ['yaml', 'yml', 'json', 'js', 'ts', 'mjs', 'cjs'];

/** Project config file names, in the order they are looked for in each directory. */
export const PROJECT_SEARCH_PLACES = [
  '.reinrc',
  ...CONFIG_EXTS.map((e) => `.reinrc.${e}`),
  ...CONFIG_EXTS.map((e) => `rein.config.${e}`),
];

/** Local (gitignored) config file names. */
export const LOCAL_SEARCH_PLACES = CONFIG_EXTS.map((e) => `rein.local.${e}`);

/** User config file names, inside the user config directory. */
export const USER_SEARCH_PLACES = CONFIG_EXTS.map((e) => `config.${e}`);

/** A found layer file. */
export interface LayerFile {
  layer: Extract<LayerName, 'user' | 'project' | 'local'>;
  file: string;
}

/** Loaders that only mark the file as found: the contents are parsed later by readPresetSource. */
function markerLoaders() {
  const mark = (filepath: string) => ({ __reinFile: filepath });
  return { '.json': mark, '.yaml': mark, '.yml': mark, '.js': mark, '.ts': mark, '.mjs': mark, '.cjs': mark, noExt: mark };
}

/**
 * A `rein` key at the top of a package.json in the project search's directories, as an error at
 * that key: it is not read. A config can add hooks (commands the next run starts), plugins (code)
 * and allow rules, so only files a write always asks for may hold one (the permissions plugin
 * protects `.reinrc*`, `rein.config.*` and `rein.local.*`); package.json is one an agent edits
 * as a matter of course, and so cannot be protected. Reading it would let an agent allowed to edit
 * files (acceptEdits) choose what the next run may do.
 */
function packageJsonProblems(dirs: readonly string[]): PresetDiagnostic[] {
  const out: PresetDiagnostic[] = [];
  for (const dir of dirs) {
    const file = join(dir, 'package.json');
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    try {
      if ((JSON.parse(text) as Record<string, unknown> | null)?.rein === undefined) continue;
    } catch {
      continue; // not JSON: npm's problem, not rein's
    }
    // The key's position: package.json is JSON, which YAML's parser reads with its positions.
    const lines = new LineCounter();
    const doc = parseDocument(text, { lineCounter: lines });
    if (!isMap(doc.contents)) continue;
    const key = doc.contents.items.find((p) => isScalar(p.key) && p.key.value === 'rein')?.key;
    if (!isScalar(key)) continue;
    const at = lines.linePos(key.range?.[0] ?? 0);
    out.push({
      file, line: at.line, column: at.col, key: 'rein',
      message: 'rein does not read its config from package.json: an agent allowed to edit files may change package.json, and a config can add hooks, plugins and allow rules for the next run; move this to rein.config.yaml (or .reinrc.*), which a write always asks for',
    });
  }
  return out;
}

type Explorer = { search(from?: string): Promise<{ config: unknown; filepath: string } | null> };

async function explorer(searchPlaces: string[]): Promise<Explorer> {
  const { cosmiconfig } = await import('cosmiconfig');
  return cosmiconfig('rein', { searchPlaces, searchStrategy: 'none', loaders: markerLoaders(), cache: false });
}

function isProjectRoot(dir: string): boolean {
  return existsSync(join(dir, '.git')) || existsSync(join(dir, 'package.json'));
}

/** Directories from `cwd` up to the project root, the home directory or `/`, nearest first. */
export function searchDirs(cwd: string, homeDir: string): string[] {
  const dirs: string[] = [];
  let dir = cwd;
  for (;;) {
    dirs.push(dir);
    if (isProjectRoot(dir) || dir === homeDir) break;
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return dirs;
}

/** Other config files in the same directory that would also have matched. */
function rivals(file: string, places: string[]): string[] {
  const dir = dirname(file);
  let entries: Set<string>;
  try {
    entries = new Set(readdirSync(dir));
  } catch {
    return [];
  }
  return places.filter((p) => {
    return p !== basename(file) && entries.has(p);
  });
}

/**
 * Whether `dir` holds a file named like one of `places`. One directory listing, so cosmiconfig is
 * asked (and loaded) only for directories that may hold a config: its search is a file-system
 * call per place, ~5 ms for the usual three directories with none. Names compare exactly, so
 * `Rein.config.yaml` is not a config on a case-insensitive file system either.
 */
function hasCandidate(dir: string, places: readonly string[]): boolean {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return false;
  }
  const wanted = new Set(places);
  return names.some((n) => wanted.has(n));
}

async function searchUp(places: string[], cwd: string, homeDir: string, layer: LayerFile['layer'], problems: PresetDiagnostic[]): Promise<LayerFile | undefined> {
  let ex: Explorer | undefined;
  for (const dir of searchDirs(cwd, homeDir)) {
    if (!hasCandidate(dir, places)) continue;
    ex ??= await explorer(places);
    const found = await ex.search(dir);
    if (!found) continue;
    const others = rivals(found.filepath, places);
    if (others.length) {
      problems.push({
        file: found.filepath, line: 0, column: 0, key: '',
        message: `more than one ${layer} config in ${dir}: ${basename(found.filepath)} and ${others.join(', ')}; rein reads only ${basename(found.filepath)}, so keep one`,
      });
    }
    return { layer, file: found.filepath };
  }
  return undefined;
}

/** The user config directory: `$XDG_CONFIG_HOME/rein`, default `~/.config/rein`. */
export function userConfigDir(homeDir: string, env: Record<string, string | undefined>): string {
  return join(env.XDG_CONFIG_HOME || join(homeDir, '.config'), 'rein');
}

/**
 * Finds the user, project and local layer files (each at most one), lowest layer first.
 * Ambiguities (two project configs in one directory) are returned as problems.
 */
export async function discoverLayerFiles(opts: { cwd: string; homeDir: string; env: Record<string, string | undefined> }): Promise<{ files: LayerFile[]; problems: PresetDiagnostic[] }> {
  const problems: PresetDiagnostic[] = [];
  const files: LayerFile[] = [];
  const userDir = userConfigDir(opts.homeDir, opts.env);
  if (hasCandidate(userDir, USER_SEARCH_PLACES)) {
    const found = await (await explorer(USER_SEARCH_PLACES)).search(userDir);
    if (found) {
      const others = rivals(found.filepath, USER_SEARCH_PLACES);
      if (others.length) {
        problems.push({ file: found.filepath, line: 0, column: 0, key: '', message: `more than one user config in ${userDir}: ${basename(found.filepath)} and ${others.join(', ')}; rein reads only ${basename(found.filepath)}, so keep one` });
      }
      files.push({ layer: 'user', file: found.filepath });
    }
  }
  problems.push(...packageJsonProblems(searchDirs(opts.cwd, opts.homeDir)));
  const project = await searchUp(PROJECT_SEARCH_PLACES, opts.cwd, opts.homeDir, 'project', problems);
  if (project && dirname(project.file) !== userDir) files.push(project);
  const local = await searchUp(LOCAL_SEARCH_PLACES, opts.cwd, opts.homeDir, 'local', problems);
  if (local) files.push(local);
  return { files, problems };
}
