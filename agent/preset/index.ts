/**
 * The preset loader: YAML presets, layered (defaults < user < project < local < --preset < flags),
 * merged, checked against agent.schema.json and each plugin's options schema, with every problem
 * reported as `file:line:column: message`. See README.md in this folder for the format.
 */
export { loadPreset, validatePresetFile, type LoadPresetOptions, type ResolvedPreset } from './load.js';
export { PresetError, formatDiagnostic, keyPath, type PresetDiagnostic } from './errors.js';
export { LAYERS, UNION_LISTS, type LayerName, type Origin } from './merge.js';
export { BUILTIN_DEFAULTS } from './layers.js';
export { resolvePlugin, loadPresetPlugins, PluginResolveError, type PresetPlugin } from './resolve-plugins.js';
export type { Preset, PresetInput } from './schema.js';
export { builtinPresetNames, builtinPresetsDir, agentSchemaPath, isPresetPath } from './paths.js';
