import { describe, expect, it } from 'vitest';
import { formatPersistedOutput, isPersistedOutput } from './persisted-output.js';

describe('formatPersistedOutput', () => {
  it('writes the <persisted-output> block with a preview, and a tail when given', () => {
    const one = formatPersistedOutput({ size: '60000 characters', file: '/s/tool-results/t1.txt', preview: { label: 'Preview (first 5 bytes)', text: 'hello' } });
    expect(one).toBe('<persisted-output>\nOutput too large (60000 characters). Full output saved to: /s/tool-results/t1.txt\n\nPreview (first 5 bytes):\nhello\n...\n</persisted-output>');
    const two = formatPersistedOutput({ size: '9 bytes', file: '/s/b.log', preview: { label: 'First lines', text: 'a' }, tail: { label: 'Last lines', text: 'z' } });
    expect(two).toBe('<persisted-output>\nOutput too large (9 bytes). Full output saved to: /s/b.log\n\nFirst lines:\na\n...\n\nLast lines:\nz\n</persisted-output>');
    expect(isPersistedOutput(one) && isPersistedOutput(two)).toBe(true);
    expect(isPersistedOutput('plain output')).toBe(false);
  });
});
