/**
 * A built-in preset's text is loaded from the parse kept at build time (generated/builtin-presets.ts,
 * source.ts `builtinPresetSource`) instead of running the YAML parser: it must give what parsing the
 * text gives (the value, the position of every key and value, positions inside values), a fresh
 * value on every load, and any other text, even one character away, must still be parsed and have
 * its problems reported at file:line:column.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../../testing/support.js';
import { DiagnosticSink, type KeyPath } from '../errors.js';
import { builtinPresetNames, builtinPresetsDir, loadPreset, PresetError, validatePresetFile } from '../index.js';
import { parseYamlText, type IndexEntry } from '../source.js';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir('rein-kept-parse-');
});
afterEach(() => tmp.cleanup());

/** The text parsed by the YAML parser (`onParsed` skips the kept parse), with its position index. */
function parsed(file: string, text: string) {
  let index = new Map<string, IndexEntry>();
  const source = parseYamlText(file, text, new DiagnosticSink(), { onParsed: (i) => { index = i; } });
  return { source, paths: [...index.keys()].map((id) => JSON.parse(id) as KeyPath) };
}

describe('the built-in presets\' kept parse', () => {
  for (const name of builtinPresetNames()) {
    it(`${name}: the same value and positions as parsing the text`, () => {
      const file = join(builtinPresetsDir(), `${name}.yaml`);
      const text = readFileSync(file, 'utf8');
      const fresh = parsed(file, text);
      const sink = new DiagnosticSink();
      const kept = parseYamlText(file, text, sink);
      expect(sink.list).toEqual([]);
      expect(kept.broken).toBe(false);
      expect(kept.format).toBe('yaml');
      expect(kept.value).toEqual(fresh.source.value);
      expect(fresh.paths.length).toBeGreaterThan(5);
      for (const path of [...fresh.paths, ['no', 'such', 'key']]) {
        expect(kept.locate(path, 'key'), JSON.stringify(path)).toEqual(fresh.source.locate(path, 'key'));
        expect(kept.locate(path, 'value'), JSON.stringify(path)).toEqual(fresh.source.locate(path, 'value'));
        const v = path.reduce<unknown>((o, k) => (o as Record<string | number, unknown> | undefined)?.[k], fresh.source.value);
        if (typeof v === 'string' && v.length > 2) expect(kept.locateInside(path, v.slice(1, 3)), JSON.stringify(path)).toEqual(fresh.source.locateInside(path, v.slice(1, 3)));
      }
    });
  }

  it('gives a fresh value on every load: changing one does not change the next', () => {
    const file = join(builtinPresetsDir(), 'default.yaml');
    const text = readFileSync(file, 'utf8');
    const first = parseYamlText(file, text, new DiagnosticSink()).value as Record<string, unknown>;
    first.name = 'changed';
    (first.tools as string[]).push('Changed');
    const second = parseYamlText(file, text, new DiagnosticSink()).value as Record<string, unknown>;
    expect(second.name).toBe('default');
    expect(second.tools).not.toContain('Changed');
  });

  it('a copy of a built-in preset loads with its own file in the origins, at the lines the original has', async () => {
    const text = readFileSync(join(builtinPresetsDir(), 'default.yaml'), 'utf8');
    const copy = join(tmp.dir, 'mine.yaml');
    writeFileSync(copy, text);
    const r = await loadPreset({ preset: copy, cwd: tmp.dir, homeDir: tmp.dir, layers: false, env: { HOME: tmp.dir }, plugins: false });
    const line = text.split('\n').findIndex((l) => l.startsWith('  effort: high')) + 1;
    expect(r.origins.get('model.effort')).toMatchObject({ file: copy, line, col: 11 });
  });

  it('a text one character away from a built-in preset is parsed, and its problem named at file:line:column', async () => {
    const text = readFileSync(join(builtinPresetsDir(), 'default.yaml'), 'utf8');
    const lines = text.split('\n');
    const at = lines.findIndex((l) => l.startsWith('  effort: high'));
    lines[at] = '  effort: hihg';
    const copy = join(tmp.dir, 'typo.yaml');
    writeFileSync(copy, lines.join('\n'));
    const problems = await validatePresetFile(copy, { env: { HOME: tmp.dir }, homeDir: tmp.dir });
    expect(problems.map((d) => `${d.file}:${d.line}:${d.column}`)).toContain(`${copy}:${at + 1}:11`);
    const dup = join(tmp.dir, 'dup.yaml');
    writeFileSync(dup, `${text}name: twice\n`);
    const err = await loadPreset({ preset: dup, cwd: tmp.dir, homeDir: tmp.dir, layers: false, env: { HOME: tmp.dir } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PresetError);
    // The text ends with a newline: the appended key is on the line after the last one.
    const nameLine = lines.findIndex((l) => l.startsWith('name: ')) + 1;
    expect((err as PresetError).message).toContain(`${dup}:${lines.length}:1: YAML: duplicate key "name" (first at line ${nameLine})`);
  });
});
