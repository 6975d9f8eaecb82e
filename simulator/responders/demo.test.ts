import { describe, expect, it } from 'vitest';
import { createDemoResponder, describeRead, pickFiles } from './demo.js';

describe('the demo responder', () => {
  it('reads the top-level README and manifest before deeper files', () => {
    expect(pickFiles(['examples/a/README.md', 'src/x.ts', 'README.md', 'logo.png', 'package.json', 'docs/z.md'])).toEqual(['README.md', 'package.json', 'docs/z.md']);
  });

  it('lists files, then reads some in one batch, then answers naming them', () => {
    const r = createDemoResponder();
    const tools = [{ name: 'Glob' }, { name: 'Read' }];
    const ask = (messages: unknown[]) => r.respond({ body: { tools, messages }, headers: {}, source: 'main_loop', mainTurn: 1 });
    const first = ask([{ role: 'user', content: 'hi' }]);
    expect(first).toMatchObject({ reply: { content: [{ type: 'text' }, { type: 'tool_use', name: 'Glob' }] } });
    const listing = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'tool_use', id: 'g', name: 'Glob', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'g', content: [{ type: 'text', text: 'src/a.ts\nREADME.md' }] }] }];
    const second = ask(listing);
    expect(second).toMatchObject({ reply: { content: [{ type: 'text' }, { type: 'tool_use', name: 'Read', input: { file_path: 'README.md' } }, { type: 'tool_use', name: 'Read', input: { file_path: 'src/a.ts' } }] } });
    const third = ask([...listing, { role: 'assistant', content: [{ type: 'tool_use', id: 'r1', name: 'Read', input: { file_path: 'README.md' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'r1', content: [{ type: 'text', text: '1\t# x\n2\tmore' }] }] }]);
    expect(JSON.stringify(third)).toContain('README.md: 2 lines');
  });

  it('gives a file\'s real length when Read showed only part of it, and says "1 line"', () => {
    const window = Array.from({ length: 2000 }, (_, i) => `${i + 1}\t${'x'.repeat(i % 3)}`).join('\n');
    expect(describeRead(`${window}\n\n(Showing lines 1-2000 of 5485. Pass offset and limit to read further.)`)).toBe('5,485 lines (I read lines 1–2,000)');
    expect(describeRead(`${window}\n\n(Showing lines 1-2000; the file is large. Pass offset and limit to read further.)`)).toBe('more than 2,000 lines (I read lines 1–2,000)');
    expect(describeRead('1\t# x')).toBe('1 line');
    // An empty line is still a line of the file.
    expect(describeRead('1\t# x\n2\t\n3\tend')).toBe('3 lines');
  });

  it('leaves dependency folders alone: node_modules is neither read nor counted as the project\'s files', () => {
    expect(pickFiles(['node_modules/a/README.md', 'README.md', 'node_modules/b/package.json', 'src/x.ts'])).toEqual(['README.md', 'src/x.ts']);
    const r = createDemoResponder();
    const messages = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'tool_use', id: 'g', name: 'Glob', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'g', content: [{ type: 'text', text: 'node_modules/a/index.js\nnode_modules/a/README.md\nREADME.md' }] }] }];
    const out = r.respond({ body: { tools: [{ name: 'Glob' }, { name: 'Read' }], messages }, headers: {}, source: 'main_loop', mainTurn: 2 });
    expect(JSON.stringify(out)).toContain('There is 1 file (2 more of those listed are inside dependency or build folders such as node_modules');
  });

  it('says what is missing when the preset has no Glob or Read', () => {
    const r = createDemoResponder();
    const out = r.respond({ body: { tools: [], messages: [{ role: 'user', content: 'hi' }] }, headers: {}, source: 'main_loop', mainTurn: 1 });
    expect(JSON.stringify(out)).toContain('no Glob and Read tools');
  });
});
