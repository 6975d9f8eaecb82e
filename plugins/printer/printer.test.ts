import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHooks, type AgentEvent } from '../../kernel/index.js';
import printer from './index.js';

let written: string[] = [];
beforeEach(() => {
  written = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => { written.push(String(s)); return true; });
});
afterEach(() => { vi.restoreAllMocks(); });

/** The printer applied to a bare hook table; returns a function that emits an event. */
function printing(options: Record<string, unknown>): (e: AgentEvent) => void {
  const hooks = createHooks();
  printer.apply({ hooks, sessionId: 's' } as never, printer.options.parse(options) as never);
  return (e) => hooks.event.call(e);
}

const notice = (level: 'debug' | 'info' | 'warn' | 'error', message: string) => ({ type: 'notice', level, source: 'compaction/auto', message }) as AgentEvent;

describe('printer notices (text)', () => {
  it('-v prints info but never a routine debug notice (the thresholds of every run); warnings always', () => {
    const emit = printing({ verbose: true });
    emit(notice('debug', 'auto-compaction at 167000 tokens'));
    emit(notice('info', 'cleared 3 old tool results'));
    emit(notice('warn', 'context at 150000 tokens; auto-compaction will not run'));
    expect(written).toEqual(['rein: info: cleared 3 old tool results\n', 'rein: warn: context at 150000 tokens; auto-compaction will not run\n']);
  });

  it('without -v prints only warnings and errors', () => {
    const emit = printing({});
    emit(notice('debug', 'a'));
    emit(notice('info', 'b'));
    emit(notice('error', 'c'));
    expect(written).toEqual(['rein: error: c\n']);
  });
});
