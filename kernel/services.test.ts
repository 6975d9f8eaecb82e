import { describe, expect, it } from 'vitest';
import { DEFAULT_SERVICES } from './services.js';
import { NO_SESSIONS, SessionError } from './session.js';

describe('a kernel given no session store', () => {
  it('fails closed: creating or resuming a session throws a SessionError that says what to pass', () => {
    expect(DEFAULT_SERVICES.sessions).toBe(NO_SESSIONS);
    expect(() => NO_SESSIONS.create({ cwd: '/tmp', model: 'm' })).toThrow(SessionError);
    expect(() => NO_SESSIONS.create({ cwd: '/tmp', model: 'm' })).toThrow(/pass a `sessions` service to createKernel/);
    expect(() => NO_SESSIONS.open('abc', { cwd: '/tmp' })).toThrow(/cannot resume/);
  });
});

describe('a kernel given no persistResult service', () => {
  it('keeps the first 2,000 characters of an oversized result and says the rest was dropped, writing nothing', () => {
    const text = DEFAULT_SERVICES.persistResult('/nonexistent/session', 't1', 'a'.repeat(2_000) + 'b'.repeat(5_000));
    expect(text.startsWith('a'.repeat(2_000) + '\n...\n')).toBe(true);
    expect(text).not.toContain('b');
    expect(text).toContain('output too large: 7000 characters');
    expect(text.startsWith('<persisted-output>')).toBe(false);
  });
});
