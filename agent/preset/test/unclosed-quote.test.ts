/**
 * A double-quoted (or single-quoted) string that never closes swallows the rest of the file; the
 * YAML parser only notices at the end. The diagnostic must point at the line and column where the
 * quote opens, which is where the mistake is.
 */
import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createAgent } from '../../agent.js';
import { PresetError } from '../errors.js';
import { useTestEnv } from '../../../testing/env.js';
import { writeFiles } from '../../../testing/support.js';

const env = useTestEnv({ prefix: 'rein-quote-' });

async function presetError(text: string): Promise<PresetError> {
  writeFiles(env.dir, { 'agent.yaml': text });
  const err = await createAgent({ preset: join(env.dir, 'agent.yaml'), cwd: env.dir, layers: false }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(PresetError);
  return err as PresetError;
}

describe('a quoted string that never closes', () => {
  it('is reported at the line and column where the double quote opens, not at the end of the file', async () => {
    const err = await presetError([
      'name: coding',
      'description: "A coding agent',
      'model:',
      '  name: claude-sonnet-4-6',
      'tools: [Read, Grep]',
      'limits: { maxTurns: 5 }',
      '',
    ].join('\n'));
    expect(err.diagnostics).toHaveLength(1);
    expect(err.diagnostics[0]).toMatchObject({ line: 2, column: 14 });
    expect(err.diagnostics[0]!.message).toBe('YAML: this double-quoted string is never closed, so everything up to line 7 became part of it; add the closing "');
  });

  it('inside a flow list, and for single quotes too', async () => {
    const err = await presetError("name: x\ntools: [Read, 'Grep]\nlimits: { maxTurns: 5 }\n");
    expect(err.diagnostics[0]).toMatchObject({ line: 2, column: 15 });
    expect(err.diagnostics[0]!.message).toMatch(/^YAML: this single-quoted string is never closed/);
  });

  it('a closed string with an escaped quote inside is not mistaken for the unclosed one', async () => {
    const err = await presetError('name: "say \\"hi\\""\ndescription: "never closed\n');
    expect(err.diagnostics[0]).toMatchObject({ line: 2, column: 14 });
  });
});
