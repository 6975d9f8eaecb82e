/** The merge rules, one by one, and the origins they record. */
import { describe, expect, it } from 'vitest';
import { applyDenyWins, findOrigin, mergeLayers, type MergeLayer } from '../merge.js';

const layer = (name: MergeLayer['layer'], value: Record<string, unknown>, file?: string): MergeLayer => ({
  layer: name,
  value,
  file,
  // Every path is at line = depth, so origins can be told apart.
  locate: file ? (path) => ({ value: { line: path.length + 1, col: 1 }, key: { line: path.length + 1, col: 1 } }) : undefined,
});

describe('mergeLayers', () => {
  it('merges objects deeply and lets the higher layer win per key', () => {
    const s = mergeLayers([
      layer('user', { model: { name: 'a', maxTokens: 100 }, limits: { maxTurns: 3 } }, '/u.yaml'),
      layer('project', { model: { name: 'b' } }, '/p.yaml'),
    ]);
    expect(s.value).toEqual({ model: { name: 'b', maxTokens: 100 }, limits: { maxTurns: 3 } });
    expect(s.origins.get('model.name')).toMatchObject({ layer: 'project', file: '/p.yaml' });
    expect(s.origins.get('model.maxTokens')).toMatchObject({ layer: 'user', file: '/u.yaml' });
  });

  it('replaces arrays other than rule lists, and forgets the replaced items\' origins', () => {
    const s = mergeLayers([layer('user', { tools: ['Read', 'Write', 'Bash'] }, '/u'), layer('local', { tools: ['Grep'] }, '/l')]);
    expect(s.value.tools).toEqual(['Grep']);
    expect(s.origins.get('tools.0')).toMatchObject({ layer: 'local' });
    expect(s.origins.has('tools.2')).toBe(false);
  });

  it('unions permission and autoMode lists, keeping the first origin of a repeated rule', () => {
    const s = mergeLayers([
      layer('user', { permissions: { allow: ['A', 'B'], additionalDirectories: ['/x'] }, autoMode: { hard_deny: ['rm'] } }, '/u'),
      layer('project', { permissions: { allow: ['B', 'C'], additionalDirectories: ['/y'] }, autoMode: { hard_deny: ['rm', 'dd'] } }, '/p'),
    ]);
    expect(s.value.permissions).toEqual({ allow: ['A', 'B', 'C'], additionalDirectories: ['/x', '/y'] });
    expect(s.value.autoMode).toEqual({ hard_deny: ['rm', 'dd'] });
    expect(s.origins.get('permissions.allow.1')).toMatchObject({ file: '/u' });
    expect(s.origins.get('permissions.allow.2')).toMatchObject({ file: '/p' });
  });

  it('switches plugins off with false (dropping options) and on with true, null or options', () => {
    const s = mergeLayers([
      layer('user', { plugins: { a: { x: 1 }, b: { y: 2 }, c: {} } }, '/u'),
      layer('project', { plugins: { a: false, b: true, d: null } }, '/p'),
      layer('local', { plugins: { a: { z: 3 } } }, '/l'),
    ]);
    expect(s.value.plugins).toEqual({ a: { z: 3 }, b: { y: 2 }, c: {}, d: {} });
    expect(s.origins.has('plugins.a.x')).toBe(false);
    expect(s.origins.get('plugins.a.z')).toMatchObject({ file: '/l' });
    const off = mergeLayers([layer('user', { plugins: { a: { x: 1 } } }), layer('flags', { plugins: { a: false } })]);
    expect(off.value.plugins).toEqual({ a: false });
    expect(off.origins.get('plugins.a')).toEqual({ layer: 'flags' });
  });

  it('merges plugin options deeply, with arrays inside them replaced', () => {
    const s = mergeLayers([
      layer('user', { plugins: { p: { keep: [1, 2], nested: { a: 1, b: 2 } } } }),
      layer('project', { plugins: { p: { keep: [3], nested: { b: 3 } } } }),
    ]);
    expect(s.value.plugins).toEqual({ p: { keep: [3], nested: { a: 1, b: 3 } } });
  });

  it('does not mutate the layers it merges', () => {
    const a = { permissions: { allow: ['A'] }, model: { name: 'x' } };
    const b = { permissions: { allow: ['B'] }, model: { effort: 'low' } };
    const before = JSON.stringify([a, b]);
    mergeLayers([layer('user', a), layer('project', b)]);
    expect(JSON.stringify([a, b])).toBe(before);
  });
});

describe('applyDenyWins', () => {
  it('removes denied rules from allow and ask wherever they came from, and keeps origins aligned', () => {
    const s = mergeLayers([
      layer('user', { permissions: { deny: ['Bash(rm:*)'] } }, '/u'),
      layer('flags', { permissions: { allow: ['Read', 'Bash(rm:*)', 'Grep'], ask: ['Bash(rm:*)'] } }),
    ]);
    expect(applyDenyWins(s)).toEqual([{ list: 'allow', rule: 'Bash(rm:*)' }, { list: 'ask', rule: 'Bash(rm:*)' }]);
    expect(s.value.permissions).toEqual({ deny: ['Bash(rm:*)'], allow: ['Read', 'Grep'], ask: [] });
    expect(s.origins.get('permissions.allow.1')).toEqual({ layer: 'flags' });
    expect(s.origins.has('permissions.allow.2')).toBe(false);
  });
});

describe('findOrigin', () => {
  it('falls back to the nearest ancestor with an origin', () => {
    const s = mergeLayers([layer('project', { plugins: { p: { deep: { er: 1 } } } }, '/p')]);
    expect(findOrigin(s.origins, ['plugins', 'p', 'deep', 'er', 'missing'])).toMatchObject({ file: '/p', line: 5 });
  });
});
