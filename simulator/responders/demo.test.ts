import { describe, expect, it } from 'vitest';
import { createDemoResponder, pickFiles } from './demo.js';

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

  it('says what is missing when the preset has no Glob or Read', () => {
    const r = createDemoResponder();
    const out = r.respond({ body: { tools: [], messages: [{ role: 'user', content: 'hi' }] }, headers: {}, source: 'main_loop', mainTurn: 1 });
    expect(JSON.stringify(out)).toContain('no Glob and Read tools');
  });
});
