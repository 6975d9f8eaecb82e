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
