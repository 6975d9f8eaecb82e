/**
 * Session and run events: `sessionStart` once per session (new or resumed, with `source`),
 * `runStart`/`runEnd` around each `run()`, `sessionEnd` once when the session closes; and shell
 * `SessionStart`/`SessionEnd` hooks once for an agent that runs several prompts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAgent } from '../agent/agent.js';
import { definePlugin } from '../kernel/index.js';
import { cleanEnv } from '../testing/support.js';
import { useTestEnv } from '../testing/env.js';

const env = useTestEnv({ prefix: 'rein-session-events-' });

const SCENARIO = 'turns:\n  - reply: [{ text: "one" }]\n  - reply: [{ text: "two" }]\n  - reply: [{ text: "three" }]\n';

/** A plugin that writes down each session and run event, in order. */
function recorder(log: string[]) {
  return definePlugin({
    name: 'test/recorder',
    apply(kernel) {
      kernel.hooks.sessionStart.tap('test/recorder', (s) => { log.push(`sessionStart ${s.source}`); });
      kernel.hooks.runStart.tap('test/recorder', (r) => { log.push(`runStart ${r.run}`); });
      kernel.hooks.runEnd.tap('test/recorder', (r) => { log.push(`runEnd ${r.run} ${r.result.text}`); });
      kernel.hooks.sessionEnd.tap('test/recorder', (s) => { log.push(`sessionEnd ${s.result?.text}`); });
    },
  });
}

describe('session and run events', () => {
  it('a reused agent: one sessionStart, a runStart/runEnd per run, one sessionEnd at close; a resume starts with source resume', async () => {
    writeFileSync(join(env.dir, 's.yaml'), SCENARIO);
    const log: string[] = [];
    const agent = await createAgent({ preset: 'minimal', cwd: env.dir, layers: false, sim: join(env.dir, 's.yaml'), env: cleanEnv(), plugins: [{ plugin: recorder(log) }] });
    expect((await agent.run('first').result).text).toBe('one');
    expect((await agent.run('second').result).text).toBe('two');
    expect(log).toEqual(['sessionStart startup', 'runStart 1', 'runEnd 1 one', 'runStart 2', 'runEnd 2 two']);
    await agent.close();
    expect(log.at(-1)).toBe('sessionEnd two');
    await agent.close(); // a second close ends nothing more
    expect(log.filter((l) => l.startsWith('sessionEnd'))).toHaveLength(1);

    const resumedLog: string[] = [];
    const resumed = await createAgent({ preset: 'minimal', cwd: env.dir, layers: false, sim: join(env.dir, 's.yaml'), env: cleanEnv(), resume: agent.kernel.sessionId, plugins: [{ plugin: recorder(resumedLog) }] });
    expect((await resumed.run('third').result).text).toBe('three');
    await resumed.close();
    expect(resumedLog).toEqual(['sessionStart resume', 'runStart 1', 'runEnd 1 three', 'sessionEnd three']);
  });

  it('an agent closed before any run has no session events', async () => {
    const log: string[] = [];
    const agent = await createAgent({ preset: 'minimal', cwd: env.dir, layers: false, env: cleanEnv(), plugins: [{ plugin: recorder(log) }] });
    await agent.close();
    expect(log).toEqual([]);
  });

  it('shell SessionStart and SessionEnd hooks run once for an agent that runs two prompts; the SessionStart output joins only the first prompt', async () => {
    writeFileSync(join(env.dir, 's.yaml'), SCENARIO);
    const events = join(env.dir, 'events.txt');
    writeFileSync(join(env.dir, 'agent.yaml'), [
      'extends: minimal',
      'hooks:',
      '  SessionStart:',
      `    - hooks: [{ type: command, command: "echo start >> ${events}; echo 'Session note.'" }]`,
      '  UserPromptSubmit:',
      `    - hooks: [{ type: command, command: "echo prompt >> ${events}" }]`,
      '  SessionEnd:',
      `    - hooks: [{ type: command, command: "echo end >> ${events}" }]`,
      '',
    ].join('\n'));
    const agent = await createAgent({ preset: join(env.dir, 'agent.yaml'), cwd: env.dir, layers: false, sim: join(env.dir, 's.yaml'), env: cleanEnv() });
    await agent.run('first').result;
    await agent.run('second').result;
    expect(readFileSync(events, 'utf8')).toBe('start\nprompt\nprompt\n');
    await agent.close();
    expect(readFileSync(events, 'utf8')).toBe('start\nprompt\nprompt\nend\n');
    const prompts = agent.kernel.messages.filter((m) => m.role === 'user' && !m.meta?.meta).map((m) => JSON.stringify(m.content));
    expect(prompts.filter((p) => p.includes('Session note.'))).toHaveLength(1);
    expect(prompts[0]).toContain('Session note.');
  });
});
