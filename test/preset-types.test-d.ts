/**
 * Type checks of the public preset type, run by `npm run typecheck` (tsconfig.json includes test/),
 * never executed. Each `@ts-expect-error` line must have a type error, so a looser `PresetObject`
 * (one that let a misspelt key or an unknown mode through) fails the type check.
 */
import { createAgent, type BuiltinPluginOptions, type PresetObject } from '../index.js';

export async function presetTypeChecks(): Promise<void> {
  // @ts-expect-error `modle` is not a preset key (the schema is strict).
  await createAgent({ preset: { modle: { name: 'claude-sonnet-4-6' } } });
  // @ts-expect-error 'yolo' is not a permission mode.
  await createAgent({ preset: { permissions: { mode: 'yolo' } } });
  // @ts-expect-error `effort` is one of low, medium, high, max.
  await createAgent({ preset: { model: { effort: 'extreme' } } });
  // @ts-expect-error compaction/auto has no option `triggerTokenz`.
  await createAgent({ preset: { plugins: { 'compaction/auto': { triggerTokenz: 1000 } } } });
  // @ts-expect-error retry's maxRetries is a number.
  await createAgent({ preset: { plugins: { retry: { maxRetries: 'many' } } } });

  // What the schema allows type-checks: built-in plugins with their own options, `false` to switch
  // one off, and plugins of your own with any options object.
  const preset: PresetObject = {
    model: { name: 'claude-sonnet-4-6', effort: 'high' },
    tools: ['Read', 'Grep'],
    permissions: { mode: 'acceptEdits', allow: ['Bash(npm test)'] },
    plugins: { 'compaction/auto': { triggerTokens: 150_000 }, retry: false, './audit-log.ts': { file: 'audit.jsonl' } },
  };
  await createAgent({ preset });

  // Each built-in plugin's options type comes from its schema.
  const auto: BuiltinPluginOptions['compaction/auto'] = { enabled: false };
  // @ts-expect-error `enabled` is a boolean.
  const bad: BuiltinPluginOptions['compaction/auto'] = { enabled: 'no' };
  void auto; void bad;
}
