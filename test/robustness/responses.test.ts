/**
 * Odd responses through the built `rein run`: a 200 that is no Message (from a loopback server in
 * this file), tool_use ids used twice, `pause_turn`, and what a run with an API key and no network
 * says while it retries and how soon it gives up.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from '../../testing/support.js';
import { BASH_PRESET, entries, rein, terminals, transcripts, write } from './support.js';

let tmp: ReturnType<typeof tempDir>;
let env: NodeJS.ProcessEnv;
let server: Server | undefined;
beforeEach(() => {
  tmp = tempDir('rein-responses-');
  env = { REIN_HOME: join(tmp.dir, 'home') };
});
afterEach(async () => {
  if (server) await new Promise((r) => server!.close(r));
  server = undefined;
  tmp.cleanup();
});

/** A loopback server that answers every request 200 with `body` as `contentType`; counts requests. */
async function answer(body: string, contentType = 'application/json'): Promise<{ url: string; requests: () => number }> {
  let n = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      n++;
      res.writeHead(200, { 'content-type': contentType, 'request-id': `req_${n}` });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests: () => n };
}

describe('a 200 response that is not a Message', () => {
  it.each([
    ['an empty object', '{}', 'application/json', /the body is an empty object/],
    ['a message without content', JSON.stringify({ id: 'm', type: 'message', role: 'assistant', model: 'x', stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } }), 'application/json', /no "content" list/],
    ['a message without usage', JSON.stringify({ id: 'm', type: 'message', role: 'assistant', model: 'x', content: [{ type: 'text', text: 'hi' }], stop_reason: 'end_turn' }), 'application/json', /no "usage"/],
    ['an HTML page', '<html><body>Service Unavailable</body></html>', 'text/html', /not JSON \(it starts "<html><body>Service Unavailable/],
    ['broken JSON', '{"id": "m", "content": [', 'application/json', /not valid JSON/],
  ])('%s ends the run with model_error naming the cause (exit 1), after one more try', async (_name, body, type, cause) => {
    const srv = await answer(body, type);
    const r = await rein(['run', 'hi', '--preset', 'minimal', '--no-layers'], { cwd: tmp.dir, env: { ...env, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: srv.url } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/rein: model_error: the API answered 200 with a body that is not a Message: /);
    expect(r.stderr).toMatch(cause);
    expect(r.stderr).not.toMatch(/TypeError|\n\s+at /);
    // The streamed try, then one plain-JSON try; nothing more.
    expect(srv.requests()).toBe(2);
    const [file] = transcripts(env.REIN_HOME!, tmp.dir);
    expect(terminals(file!)).toEqual(['model_error']);
  });
});

describe('tool_use ids', () => {
  it('two tool_use blocks with one id: retried once like any malformed response; then nothing runs, model_error names the id', async () => {
    const twice = '[{ tool_use: { id: toolu_dup, name: Bash, input: { command: "echo one >> side.txt" } } }, { tool_use: { id: toolu_dup, name: Bash, input: { command: "echo two >> side.txt" } } }]';
    write(tmp.dir, {
      'p.yaml': BASH_PRESET,
      's.yaml': `
turns:
  - reply: ${twice}
  - reply: ${twice}
  - reply: [{ text: "never" }]
`,
    });
    const r = await rein(['run', 'go', '--sim', 's.yaml', '--preset', './p.yaml', '--no-layers'], { cwd: tmp.dir, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/retry 1 of 1/);
    expect(r.stderr).toMatch(/model_error: the API answered 200 with a body that is not a Message: two tool_use blocks have the id toolu_dup \(gave up after 2 tries\)/);
    expect(existsSync(join(tmp.dir, 'side.txt'))).toBe(false);
  });

  it('an id an earlier message already used: the calls do not run, model_error names the id', async () => {
    write(tmp.dir, {
      'p.yaml': BASH_PRESET,
      's.yaml': `
turns:
  - reply: [{ tool_use: { id: toolu_same, name: Bash, input: { command: "echo one >> side.txt" } } }]
  - reply: [{ tool_use: { id: toolu_same, name: Bash, input: { command: "echo two >> side.txt" } } }]
  - reply: [{ text: "never" }]
`,
    });
    const r = await rein(['run', 'go', '--sim', 's.yaml', '--preset', './p.yaml', '--no-layers'], { cwd: tmp.dir, env });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/model_error: the response reuses tool_use id toolu_same from an earlier message/);
    expect(readFileSync(join(tmp.dir, 'side.txt'), 'utf8')).toBe('one\n');
    // The session stays resumable: the refused reply is not in the history.
    const [file] = transcripts(env.REIN_HOME!, tmp.dir);
    const uses = entries(file!).filter((e) => e.type === 'message').flatMap((e) => e.message.content.filter((b: any) => b.type === 'tool_use'));
    expect(uses).toHaveLength(1);
  });
});

describe('stop_reason pause_turn', () => {
  it('sends the conversation back as it is, the paused message last, and the turn goes on', async () => {
    write(tmp.dir, {
      's.yaml': `
turns:
  - reply: [{ text: "Searching the web..." }]
    stop_reason: pause_turn
  - reply: [{ text: "Found it." }]
`,
    });
    const log = join(tmp.dir, 'requests.jsonl');
    const r = await rein(['run', 'look it up', '--sim', 's.yaml', '--preset', 'minimal', '--no-layers', '--output-format', 'stream-json'], { cwd: tmp.dir, env: { ...env, REIN_SIM_LOG: log } });
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.at(-1)).toMatchObject({ subtype: 'success', result: 'Found it.', num_turns: 2 });
    expect(lines.filter((l) => l.subtype === 'transition').map((l) => `${l.kind}:${l.reason}`)).toEqual(['continue:pause_turn', 'terminal:end_turn']);
    const bodies = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.path.startsWith('/v1/messages')).map((e) => e.body);
    expect(bodies).toHaveLength(2);
    const second = bodies[1].messages;
    expect(second.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant']);
    expect(second[1].content).toEqual([{ type: 'text', text: 'Searching the web...' }]);
  });
});

describe('no network', () => {
  it('with a key set and a host that does not resolve: says what is happening, gives up after 2 tries', async () => {
    // `.invalid` never resolves (RFC 6761), with or without a network.
    const r = await rein(['run', 'hi', '--preset', 'minimal', '--no-layers'], { cwd: tmp.dir, env: { ...env, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: 'https://api.anthropic.invalid' }, timeoutMs: 120_000 });
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split('\n');
    expect(lines.filter((l) => /retry/.test(l))).toEqual([expect.stringMatching(/^rein: cannot reach api\.anthropic\.invalid: DNS lookup failed \((ENOTFOUND|EAI_AGAIN|EAI_FAIL|EAI_NONAME)\); retry 1 of 1 in 0\.\d s$/)]);
    expect(r.stderr).toMatch(/rein: model_error: cannot reach api\.anthropic\.invalid: DNS lookup failed \(\w+\) \(gave up after 2 tries\)/);
  });

  it('a refused connection to a loopback port is retried as often as the policy allows, each retry on its own line', async () => {
    const srv = createServer();
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
    const port = (srv.address() as AddressInfo).port;
    await new Promise((r) => srv.close(r)); // nothing listens there now
    const r = await rein(['run', 'hi', '--preset', 'minimal', '--no-layers'], { cwd: tmp.dir, env: { ...env, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: `http://127.0.0.1:${port}`, REIN_MAX_RETRIES: '3' }, timeoutMs: 120_000 });
    expect(r.code).toBe(1);
    const retries = r.stderr.split('\n').filter((l) => /retry \d/.test(l));
    expect(retries.map((l) => l.replace(/ in [\d.]+ s$/, ''))).toEqual([1, 2, 3].map((n) => `rein: cannot reach 127.0.0.1:${port}: connection refused (ECONNREFUSED); retry ${n} of 3`));
    expect(r.stderr).toMatch(/model_error: cannot reach 127\.0\.0\.1:\d+: connection refused \(ECONNREFUSED\) \(gave up after 4 tries\)/);
  });
});

describe('an API that keeps failing', () => {
  it('says on stderr, at each retry, the cause, which retry of how many, and the wait', async () => {
    write(tmp.dir, { 's.yaml': 'turns:\n  - fault: { status: 529 }\n  - fault: { status: 529 }\n  - fault: { status: 529 }\n' });
    const r = await rein(['run', 'hi', '--sim', 's.yaml', '--preset', 'minimal', '--no-layers'], { cwd: tmp.dir, env: { ...env, REIN_MAX_RETRIES: '2' } });
    expect(r.code).toBe(1);
    const retries = r.stderr.split('\n').filter((l) => /retry \d/.test(l));
    expect(retries).toEqual([
      expect.stringMatching(/^rein: 529 overloaded_error: .+; retry 1 of 2 in 0\.[5-6] s$/),
      expect.stringMatching(/^rein: 529 overloaded_error: .+; retry 2 of 2 in 1(\.[0-3])? s$/),
    ]);
    expect(r.stderr).toMatch(/rein: model_error: 529 overloaded_error: .+ \(gave up after 3 tries\)/);
  });
});
