/**
 * Finding skills: folders holding a `SKILL.md` (YAML frontmatter, Markdown body) in the places
 * Claude Code and the Agent Skills format keep them. Each folder under a skills directory is one
 * skill; files beside `SKILL.md` are its resources, read on demand with the normal tools.
 *
 * Frontmatter fields: https://code.claude.com/docs/en/skills#frontmatter-reference and
 * https://agentskills.io/specification (`name`, `description`, `allowed-tools`, `paths`,
 * `when_to_use`, `argument-hint`, `model`, `disable-model-invocation`, `user-invocable`,
 * `context`, `agent`, `license`, `metadata`, ...). Every field is kept in `fields`, the unknown ones
 * included, so a plugin of your own can read them.
 */
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fields, FrontmatterError, readFrontmatter } from '../shared/frontmatter.js';
import { projectLevels } from '../shared/project-levels.js';

/** Where a skill was found. */
export type SkillSource = 'preset' | 'user' | 'project';

export interface Skill {
  name: string;
  description: string;
  /** Absolute folder of the skill (`${CLAUDE_SKILL_DIR}`). */
  dir: string;
  /** Absolute path of its SKILL.md. */
  file: string;
  /** The Markdown body (the instructions loaded on invocation). */
  body: string;
  source: SkillSource;
  /** `allowed-tools`: while the skill is active, only these tools (rules like `Bash(git log:*)`) run. */
  allowedTools?: string[];
  /** `paths`: gitignore-style patterns; the skill is offered once a file tool touches a matching file. */
  paths?: string[];
  whenToUse?: string;
  argumentHint?: string;
  model?: string;
  /** `disable-model-invocation`: only a person may invoke it; it is not listed for the model. */
  disableModelInvocation: boolean;
  /** Every frontmatter field as written, unknown ones included. */
  fields: Record<string, unknown>;
}

/** Skill names: letters, digits and `-_.:` (no spaces: the listing writes `- name: description`). */
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/;

/** Parses one SKILL.md. Throws FrontmatterError at the field that is wrong. */
export function loadSkill(file: string, source: SkillSource): Skill {
  const fm = readFrontmatter(file);
  const f = fields(fm);
  const dir = dirname(file);
  const name = f.string('name') ?? dir.split(/[\\/]/).pop()!;
  if (!NAME.test(name)) f.fail('name', `skill name "${name}" must be 1-64 letters, digits, "-", "_", "." or ":", starting with a letter or digit`);
  // Claude Code falls back to the body's first paragraph when there is no description.
  const description = (f.string('description') ?? fm.body.split(/\n\s*\n/)[0]!.replace(/^#+\s*/, '')).trim().replace(/\s+/g, ' ');
  if (!description) f.fail('description', `skill "${name}" has no description (add "description:" to the frontmatter, saying what it does and when to use it)`);
  const context = f.string('context');
  if (context !== undefined && context !== 'fork' && context !== 'inline') f.fail('context', `"context" must be fork or inline, got "${context}"`);
  const skill: Skill = {
    name, description, dir, file, body: fm.body, source,
    disableModelInvocation: f.boolean('disable-model-invocation') ?? false,
    fields: fm.data,
  };
  const allowed = f.list('allowed-tools');
  if (allowed) skill.allowedTools = allowed;
  const paths = f.list('paths');
  if (paths?.length) skill.paths = paths;
  const when = f.string('when_to_use') ?? f.string('when-to-use');
  if (when) skill.whenToUse = when;
  const hint = f.string('argument-hint');
  if (hint) skill.argumentHint = hint;
  const model = f.string('model');
  if (model) skill.model = model;
  f.boolean('user-invocable');
  return skill;
}

/** A skills directory and what kind of place it is. */
export interface SkillDir {
  dir: string;
  source: SkillSource;
}

/**
 * The skills directories, highest priority first: the preset's `dirs`, then the user's
 * (`~/.claude/skills`, `~/.agents/skills`), then the project's (`.claude/skills` and
 * `.agents/skills` in the working directory and each parent up to the repository root, the
 * nearest first). Claude Code's order: managed, user, project.
 */
export function skillDirs(o: { cwd: string; home?: string; dirs: string[]; user: boolean; project: boolean }): SkillDir[] {
  const out: SkillDir[] = o.dirs.map((d) => ({ dir: d, source: 'preset' as const }));
  if (o.user && o.home) for (const d of ['.claude/skills', '.agents/skills']) out.push({ dir: join(o.home, d), source: 'user' });
  if (o.project) {
    for (const at of projectLevels(resolve(o.cwd))) {
      if (at === o.home) continue; // the user's own folders are the user level
      for (const d of ['.claude/skills', '.agents/skills']) out.push({ dir: join(at, d), source: 'project' });
    }
  }
  return out;
}


/** What discovery found: the skills (first of each name wins) and the ones a higher-priority skill of the same name hid. */
export interface Discovery {
  skills: Skill[];
  shadowed: { skill: Skill; by: Skill }[];
}

/**
 * Loads every `<dir>/<name>/SKILL.md` of `dirs`. A SKILL.md reached twice (a symbolic link, a
 * directory listed twice) counts once, by its real path. Throws FrontmatterError for the first
 * malformed file: a broken skill is reported, never skipped.
 */
export function discoverSkills(dirs: SkillDir[]): Discovery {
  const seen = new Set<string>();
  const byName = new Map<string, Skill>();
  const shadowed: Discovery['shadowed'] = [];
  for (const { dir, source } of dirs) {
    let entries: string[];
    try {
      if (!statSync(dir).isDirectory()) continue;
      entries = readdirSync(dir).sort();
    } catch {
      continue; // no such directory: nothing kept there
    }
    for (const entry of entries) {
      const file = join(dir, entry, 'SKILL.md');
      let real: string;
      try {
        real = realpathSync(file);
      } catch {
        continue; // a folder without SKILL.md is not a skill
      }
      if (seen.has(real)) continue;
      seen.add(real);
      const skill = loadSkill(file, source);
      const first = byName.get(skill.name);
      if (first) shadowed.push({ skill, by: first });
      else byName.set(skill.name, skill);
    }
  }
  return { skills: [...byName.values()], shadowed };
}

/**
 * A cheap fingerprint of what `discoverSkills(dirs)` would find: every `<dir>/<name>/SKILL.md` with
 * its size and modification time (ms). Two equal fingerprints mean nothing was added, removed or
 * changed, so the skills need not be read again.
 */
export function skillsFingerprint(dirs: SkillDir[]): string {
  const parts: string[] = [];
  for (const { dir } of dirs) {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      continue;
    }
    for (const entry of entries.sort()) {
      try {
        const st = statSync(join(dir, entry, 'SKILL.md'));
        parts.push(`${dir}/${entry}:${st.size}:${st.mtimeMs}`);
      } catch { /* not a skill folder */ }
    }
  }
  return parts.join('\n');
}

export { FrontmatterError };
