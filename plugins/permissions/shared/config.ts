/**
 * The preset's `permissions` key and the per-kernel permission context built from it: compiled
 * rules, working directories, protected paths and the current mode. Mode plugins, the classifier,
 * shell hooks and host callbacks all read the same context through `permissionContext(kernel)`.
 */
import { homedir } from 'node:os';
import { z } from 'zod';
import { createKernelState, type Kernel } from '../../../kernel/index.js';
import { codeMatchers } from './code.js';
import { absolutePath, compilePathSpec, pathForms, type PathBase, type PathMatcher } from './paths.js';
import { compileRules, type CompiledRules } from './rules.js';

/** Permission modes (Claude Code's names). */
export const PERMISSION_MODES = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions', 'auto'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/** The preset's `permissions` key. */
export const permissionsConfigSchema = z.object({
  /** How calls no rule decides are answered. */
  mode: z.enum(PERMISSION_MODES).default('default').register(z.globalRegistry, { description: 'How calls no rule decides are answered (Claude Code\'s permission modes).' }),
  /** Rules that allow a call without asking (`Tool` or `Tool(specifier)`). */
  allow: z.array(z.string()).default([]).register(z.globalRegistry, { description: 'Rules that allow a call without asking (`Tool` or `Tool(specifier)`); as plugin options, added to the preset\'s.' }),
  /** Rules that always ask, even in bypassPermissions. */
  ask: z.array(z.string()).default([]).register(z.globalRegistry, { description: 'Rules that always ask, even in bypassPermissions; as plugin options, added to the preset\'s.' }),
  /** Rules that always deny. A bare tool name also removes the tool from the request. */
  deny: z.array(z.string()).default([]).register(z.globalRegistry, { description: 'Rules that always deny; a bare tool name also removes the tool from the request; as plugin options, added to the preset\'s.' }),
  /** More directories besides the working directory that count as the project (absolute, `~/…`, or relative to the working directory). */
  additionalDirectories: z.array(z.string()).default([]).register(z.globalRegistry, { description: 'More directories besides the working directory that count as the project (absolute, `~/…`, or relative to the working directory); as plugin options, added to the preset\'s.' }),
  /** The explicit opt-in `bypassPermissions` mode requires. */
  allowBypassPermissions: z.boolean().default(false).register(z.globalRegistry, { description: 'The explicit opt-in that the `bypassPermissions` mode requires.' }),
  /** More paths (rule path syntax) that no mode may write without asking. */
  protectedPaths: z.array(z.string()).default([]).register(z.globalRegistry, { description: 'More paths (rule path syntax) that no mode may write without asking; as plugin options, added to the preset\'s.' }),
});

export type PermissionsConfig = z.output<typeof permissionsConfigSchema>;

export interface PermissionContext {
  config: PermissionsConfig;
  base: PathBase;
  /** Working directory and additional directories, absolute, each with its symlink-resolved form. */
  workingDirs: string[];
  rules: CompiledRules;
  protect: PathMatcher[];
  /** The mode now in force (plan mode hands over to another after its plan is approved). */
  mode: PermissionMode;
}

/**
 * The context lives in kernel state under `permissions`, so a plugin outside this family (the
 * printer's `permissionMode`) reads the mode in force without importing this module: it declares
 * `createKernelState('permissions', () => ({ context: undefined as { mode: string } | undefined }))`.
 */
const contextState = createKernelState('permissions', () => ({ context: undefined as PermissionContext | undefined }));

/**
 * Kernel state `shell`, which a shell tool (tools/bash) fills with `cwd()`: where its next command
 * runs. Declared here by key so the families stay apart (see plugins/tools/bash/tool.ts).
 */
const shellState = createKernelState('shell', () => ({ cwd: undefined as (() => string) | undefined }));

/**
 * Reads and validates `kernel.preset.permissions`, merged with `extra` (plugin options: lists are
 * appended, scalars override). Throws an Error naming each bad field or rule.
 */
export function readPermissionsConfig(kernel: Kernel, extra: Partial<PermissionsConfig> = {}): PermissionsConfig {
  const parsed = permissionsConfigSchema.safeParse(kernel.preset.permissions ?? {});
  if (!parsed.success) {
    throw new Error(`preset permissions: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(permissions)'}: ${i.message}`).join('; ')}`);
  }
  const p = parsed.data;
  return {
    mode: extra.mode ?? p.mode,
    allow: [...p.allow, ...(extra.allow ?? [])],
    ask: [...p.ask, ...(extra.ask ?? [])],
    deny: [...p.deny, ...(extra.deny ?? [])],
    additionalDirectories: [...p.additionalDirectories, ...(extra.additionalDirectories ?? [])],
    allowBypassPermissions: extra.allowBypassPermissions ?? p.allowBypassPermissions,
    protectedPaths: [...p.protectedPaths, ...(extra.protectedPaths ?? [])],
  };
}

/** Builds a context from a config. Throws RuleSyntaxError for a bad rule. */
export function buildPermissionContext(kernel: Kernel, config: PermissionsConfig): PermissionContext {
  const base: PathBase = { cwd: kernel.cwd, presetDir: kernel.presetDir, home: homedir(), shellCwd: () => shellState(kernel).cwd?.() ?? kernel.cwd };
  const dirs = [kernel.cwd, ...config.additionalDirectories.map((d) => absolutePath(d, kernel.cwd, base.home))];
  // Each directory as written and where it really leads (a working directory reached through a link).
  const workingDirs = [...new Set(dirs.flatMap((d) => pathForms(d)))];
  base.workingDirs = workingDirs;
  const protect = config.protectedPaths.map((s) => compilePathSpec(s, base));
  // The preset files themselves (`preset.file` / `preset.files`, set by the loader when known).
  const files = [kernel.preset.file, ...(Array.isArray(kernel.preset.files) ? kernel.preset.files : [])].filter((f): f is string => typeof f === 'string' && f !== '');
  for (const f of files) protect.push(compilePathSpec(`//${absolutePath(f, kernel.presetDir).replace(/^\/+/, '')}`, base));
  // The code rein runs from the project: plugin files and the modules loaded with them, hook scripts.
  protect.push(...codeMatchers(kernel, base));
  return { config, base, workingDirs, rules: compileRules(config, base), protect, mode: config.mode };
}

/** Installs the context for a kernel (the `permissions` plugin does this). */
export function setPermissionContext(kernel: Kernel, ctx: PermissionContext): void {
  contextState(kernel).context = ctx;
}

/**
 * The kernel's permission context. When the `permissions` plugin is not loaded, one is built from
 * the preset, so a mode plugin used alone still knows the working directories.
 */
export function permissionContext(kernel: Kernel): PermissionContext {
  const state = contextState(kernel);
  state.context ??= buildPermissionContext(kernel, readPermissionsConfig(kernel));
  return state.context;
}
