/**
 * The one line that says which model the run talks to when it is not the real API ("running
 * against the embedded simulator ..."). It is printed once the run has really started (the
 * kernel's `session_start` event: the preset, the flags and the session were accepted, and the
 * session's lock is held), not when the agent is built: a run refused at its start ("session X is
 * in use", no such session) prints its error alone, not this line and then the error.
 */
import type { Agent } from '../../agent/agent.js';

/** Prints `agent.client.notice` to stderr at the first `session_start` of `agent`'s kernel; nothing when there is none. */
export function printClientNoticeOnStart(agent: Agent): void {
  const notice = agent.client.notice;
  if (!notice) return;
  let printed = false;
  agent.kernel.hooks.event.tap('cli/client-notice', (e) => {
    if (printed || e.type !== 'session_start') return;
    printed = true;
    process.stderr.write(`rein: ${notice}\n`);
  });
}
