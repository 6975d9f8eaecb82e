/**
 * Where things are: rein's own root (for presets/ and agent.schema.json, from source or from dist/),
 * and how a string in a preset is read as a path.
 */
import { readdirSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { reinRoot } from '../../lib/node/root.js';

// rein's package root is the kernel's to find (the printer reports rein's version too).
export { reinRoot };

/** Directory of the built-in presets. */
export function builtinPresetsDir(): string {
  return join(reinRoot(), 'presets');
}

/** Names of the built-in presets (presets/*.yaml without the extension), sorted. */
export function builtinPresetNames(): string[] {
  try {
    return readdirSync(builtinPresetsDir()).filter((f) => f.endsWith('.yaml')).map((f) => f.slice(0, -5)).sort();
  } catch {
    return [];
  }
}

/** Path of agent.schema.json. */
export function agentSchemaPath(): string {
  return join(reinRoot(), 'agent.schema.json');
}

/**
 * True when a preset reference is a file rather than a built-in name: it contains a slash, starts
 * with `.` or `~`, or ends in a config extension.
 */
export function isPresetPath(ref: string): boolean {
  return /[/\\]/.test(ref) || ref.startsWith('.') || ref.startsWith('~') || /\.(ya?ml|json|[mc]?[jt]s)$/i.test(ref);
}

/** True when a plugin name is a file: starts with `.`, `/` or `~/`, or ends in .js/.ts (and friends). */
export function isPluginPath(spec: string): boolean {
  return spec.startsWith('.') || isAbsolute(spec) || spec.startsWith('~/') || /\.[mc]?[jt]s$/i.test(spec);
}

/** Resolves a path written in a preset: `~/x` is under the home directory, a relative path is relative to `baseDir`. */
export function resolvePresetPath(p: string, baseDir: string, homeDir: string): string {
  if (p === '~') return homeDir;
  if (p.startsWith('~/')) return join(homeDir, p.slice(2));
  return resolve(baseDir, p);
}
