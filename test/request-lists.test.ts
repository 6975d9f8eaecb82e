/**
 * Request message lists in a real session (default preset, real SDK against the loopback
 * simulator): taps replace places in the list the kernel made for the request (the user-context
 * reminder, the cache markers) instead of copying it, and that must not leak anywhere. A request,
 * once sent, never changes afterwards; the history never carries what the taps put in; and two
 * successive requests name the few places where their lists differ.
 */
import { describe, expect, it } from 'vitest';
import { changedPlaces, type ModelRequest } from '../kernel/index.js';
import { startAgent } from '../testing/agent.js';
import { useTestEnv } from '../testing/env.js';
import { writeFiles } from '../testing/support.js';

const env = useTestEnv({ prefix: 'rein-request-lists-' });

const SCENARIO = `
turns:
  - reply: [{ tool_use: { name: Read, input: { file_path: a.txt } } }]
  - reply: [{ tool_use: { name: Read, input: { file_path: b.txt } } }]
  - reply: [{ tool_use: { name: Read, input: { file_path: a.txt } } }]
  - reply: [{ tool_use: { name: Read, input: { file_path: b.txt } } }]
  - reply: [{ text: "Both say hello." }]
`;

describe('request message lists', () => {
  it('leave every sent request and the history as they were, and name the places two successive requests differ', async () => {
    writeFiles(env.dir, { 'a.txt': 'hello\n', 'b.txt': 'hello\n' });
    const rig = await startAgent({ cwd: env.dir, preset: 'default', overrides: { plugins: { 'memory-files': { user: false } } }, scenario: SCENARIO });
    try {
      const sent: { request: ModelRequest; json: string }[] = [];
      rig.agent.kernel.hooks.response.tap('probe', (info) => {
        if (info.source === 'main_loop') sent.push({ request: info.request as ModelRequest, json: JSON.stringify(info.request) });
      });
      const { result } = await rig.run('What do the files say?');
      expect(result.terminalReason).toBe('end_turn');
      expect(sent).toHaveLength(5);
      // What each request was when it was sent, it still is after the later ones were built.
      for (const s of sent) expect(JSON.stringify(s.request)).toBe(s.json);
      // The bodies on the wire are those requests.
      expect(rig.requests().map((r) => JSON.stringify(r.body.messages))).toEqual(sent.map((s) => JSON.stringify(s.request.messages)));
      // The taps' changes are in the requests, never in the history.
      // (The user-context reminder is the first block of the first message.)
      const reminder = (sent[4]!.request.messages[0]!.content as { text: string }[])[0]!.text;
      expect(reminder).toContain('<system-reminder>');
      expect(sent[4]!.json).toContain('cache_control');
      const history = JSON.stringify(rig.agent.kernel.messages);
      expect(history).not.toContain('cache_control');
      expect(history).not.toContain(JSON.stringify(reminder));
      for (let i = 1; i < sent.length; i++) {
        const prev = sent[i - 1]!.request.messages;
        const cur = sent[i]!.request.messages;
        const places = changedPlaces(prev, cur);
        expect(places).toBeDefined();
        // The reminder on the first message, the tail markers of both requests (two-tail).
        expect(new Set(places).size).toBeLessThanOrEqual(4);
        const named = new Set(places);
        for (let p = 0; p < prev.length; p++) if (!named.has(p)) expect(cur[p]).toBe(prev[p]);
      }
    } finally {
      await rig.close();
    }
  });

  it('refuse an in-place edit of a history message in a request tap: the run ends with the tap named, nothing stale is sent', async () => {
    // The body writer sends a message object's kept bytes again while the object is the same, so
    // an edit in place would reach the history and never the wire. Both kinds of edit throw.
    for (const edit of ['push', 'assign'] as const) {
      writeFiles(env.dir, { 'a.txt': 'hello\n', 'b.txt': 'hello\n' });
      const rig = await startAgent({ cwd: env.dir, preset: 'minimal', scenario: SCENARIO });
      try {
        let calls = 0;
        rig.agent.kernel.hooks.request.tap('in-place-editor', (params) => {
          // The second request: the first message has been sent once already.
          if (++calls === 2) {
            const first = params.messages[0] as { content: unknown };
            if (edit === 'push') (first.content as unknown[]).push({ type: 'text', text: 'edited' });
            else first.content = 'edited';
          }
          return params;
        });
        const { result } = await rig.run('What do the files say?');
        expect(result.terminalReason).toBe('plugin_error');
        expect(result.terminalDetail).toContain('plugin "in-place-editor" failed in its request tap');
        expect(result.terminalDetail).toContain('read-only: replace one with withReplacedMessages');
        expect(rig.requests()).toHaveLength(1);
        expect(JSON.stringify(rig.agent.kernel.messages)).not.toContain('edited');
      } finally {
        await rig.close();
      }
    }
  });
});
