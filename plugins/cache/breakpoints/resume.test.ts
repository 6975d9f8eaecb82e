import { writeFileSync } from 'node:fs';

import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { REQUEST_STAGE, type ModelRequest, definePlugin } from '../../../kernel/index.js';
import { createSimulator } from '../../../simulator/index.js';
import { httpClient, loggedRequests, notices, plannedResponder, runPrompt, strategyKernel, withoutMarkers, writeAgentsMd } from '../../../testing/strategy.js';
import breakDetector, { detectorRecords } from '../break-detector/index.js';
import memoryFiles from '../../memory-files/index.js';
import systemPrompt from '../../system-prompt/index.js';
import breakpoints, { sessionCache } from './index.js';
import { useTestEnv } from '../../../testing/index.js';

// A fresh working folder and REIN_HOME for every test, removed after it.
const env = useTestEnv({ prefix: 'rein-resume-' });
let dir: string;
let home: string;
beforeEach(() => {
  dir = env.dir;
  home = env.home;
});

/** A plugin that asks for a beta on the second request only (a feature toggled mid-session). */
const betaOnce = definePlugin({
  name: 'test/beta-once',
  apply(kernel) {
    let n = 0;
    kernel.hooks.request.tap({ name: 'test/beta-once', stage: REQUEST_STAGE.PARAMS }, (p) => (++n === 2 ? { ...(p as ModelRequest), betas: ['interleaved-thinking-2025-05-14'] } : p));
  },
});

describe('a resumed session', () => {
  it('rebuilds byte-identical request prefixes: frozen context, recorded static sections, the session TTL and latched betas', async () => {
    writeAgentsMd(dir);
    writeFileSync(join(dir, 'guide.md'), 'Guide as the session started.');
    const simulator = createSimulator({ responder: plannedResponder([
      [{ type: 'text', text: 'Reading.' }, { type: 'tool_use', name: 'Read', input: { file_path: 'guide.md' } }],
      [{ type: 'text', text: 'First answer.' }],
      [{ type: 'text', text: 'Second answer.' }],
    ]) });
    const log = join(home, 'requests.jsonl');
    const plugins = (date: string, ttl: '5m' | '1h') => [
      { plugin: memoryFiles, options: { userDirs: [home] } },
      { plugin: systemPrompt, options: { date, userContext: { platform: false, git: false }, sections: [{ name: 'guide', file: 'guide.md' }] } },
      { plugin: breakpoints, options: { ttl } },
      { plugin: breakDetector },
    ];
    const first = await httpClient(simulator, log);
    const a = await strategyKernel({ cwd: dir, client: first.client, sessionId: 'resume-1', plugins: [...plugins('2026-04-01', '1h'), { plugin: betaOnce }] });
    try {
      await runPrompt(a, 'Read the guide.');
    } finally {
      await a.close();
    }
    // Everything that could change the prefix changes before the resume: the static section's file,
    // the memory file, today's date and the preset's TTL.
    writeFileSync(join(dir, 'guide.md'), 'Guide edited later.');
    writeFileSync(join(dir, 'AGENTS.md'), 'Edited rules.');
    const second = await httpClient(simulator, log);
    const b = await strategyKernel({ cwd: dir, client: second.client, resume: 'resume-1', plugins: plugins('2026-04-02', '5m') });
    try {
      const { events } = await runPrompt(b, 'And now?');
      expect(sessionCache(b)?.ttl).toBe('1h');
      expect(notices(events, 'cache/breakpoints')[0]).toMatch(/keeping this session's cache TTL 1h/);
      const reqs = loggedRequests(log).map((r) => r.body);
      expect(reqs).toHaveLength(3);
      const [, lastA, firstB] = reqs;
      expect(firstB!.tools).toEqual(lastA!.tools);
      expect(firstB!.system).toEqual(lastA!.system);
      expect(firstB!.system[0].text).toContain('Guide as the session started.');
      expect(firstB!.system[0].cache_control).toEqual({ type: 'ephemeral', ttl: '1h' });
      // The history as sent before, then the new prompt.
      expect(withoutMarkers(firstB!.messages.slice(0, lastA!.messages.length))).toEqual(withoutMarkers(lastA!.messages));
      expect(firstB!.messages[0].content[0].text).toContain("Today's date: 2026-04-01");
      // The beta sent once before the resume is still sent.
      expect(loggedRequests(log)[2]!.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
      // The detector continued from the recorded fingerprints: the resumed request is no break.
      const records = detectorRecords(b);
      expect(records).toHaveLength(1);
      expect(records[0]!.n).toBe(3);
      expect(records[0]!.verdict.kind).toBe('ok');
      expect(loggedRequests(log)[2]!.usage!.cache_read_input_tokens).toBeGreaterThan(0);
    } finally {
      await b.close();
    }
  });
});
