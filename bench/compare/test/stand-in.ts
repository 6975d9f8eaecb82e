/**
 * Stand-in agent CLIs for the compare tests (claude, opencode and pi are not installed where the
 * tests run): small Node programs that find the simulator the way the real agent does, run the
 * tool-use loop over HTTP, and behave the way each agent was seen to behave where it matters here.
 */
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The loop every stand-in runs: POST /v1/messages (non-streaming) until `end_turn`, answering each
 * tool_use with `ok`. `setup` is code that sets `url` (the base URL), `headers` and `extra` (fields
 * added to the first user turn's messages).
 */
function program(setup: string): string {
  return `#!/usr/bin/env node
const { appendFileSync, mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
let url, headers = {}, extra = [];
${setup}
(async () => {
  const messages = [{ role: 'user', content: [{ type: 'text', text: process.argv.slice(2).find((a) => a.includes(' ')) ?? 'hi' }] }, ...extra];
  for (let i = 0; i < 10; i++) {
    const res = await fetch(url.replace(/\\/v1\\/?$/, '') + '/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-test', 'anthropic-version': '2023-06-01', ...headers },
      body: JSON.stringify({ model: 'claude-sonnet-4-6', max_tokens: 1000, messages }),
    });
    const body = await res.json();
    if (res.status !== 200) {
      // What claude -p --output-format json prints for an API error.
      process.stdout.write(JSON.stringify({ type: 'result', subtype: 'success', is_error: true, result: 'API Error: ' + res.status + ' ' + JSON.stringify(body) }) + '\\n');
      process.exit(1);
    }
    messages.push({ role: 'assistant', content: body.content });
    const uses = body.content.filter((b) => b.type === 'tool_use');
    if (!uses.length) break;
    messages.push({ role: 'user', content: uses.map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: 'ok' })) });
  }
})().catch((err) => { console.error(String(err)); process.exit(2); });
`;
}

/**
 * opencode, as seen: its project folder is \`$PWD\` (not the process's working directory), and it
 * writes state under the XDG data folder, its config folder and \`$PWD\`.
 */
export const OPENCODE = program(`
url = JSON.parse(readFileSync(process.env.OPENCODE_CONFIG, 'utf8')).provider.anthropic.options.baseURL;
const project = process.env.PWD;
if (project !== process.cwd()) { console.error('opencode: $PWD (' + project + ') is not the working directory (' + process.cwd() + ')'); process.exit(3); }
writeFileSync(join(project, 'AGENTS.md'), '# created by opencode\\n');
mkdirSync(join(process.env.XDG_DATA_HOME || join(process.env.HOME, '.local/share'), 'opencode'), { recursive: true });
appendFileSync(join(process.env.XDG_DATA_HOME || join(process.env.HOME, '.local/share'), 'opencode', 'log'), 'run\\n');
mkdirSync(join(process.env.XDG_CONFIG_HOME || join(process.env.HOME, '.config'), 'opencode'), { recursive: true });
writeFileSync(join(process.env.TMPDIR || '/tmp', 'opencode-' + process.pid), 'x');
`);

/** Claude Code 2.1 on its default model: the turn-1 system message under the mid-conversation-system beta. */
export const CLAUDE_CODE = program(`
url = process.env.ANTHROPIC_BASE_URL;
headers = { 'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,mid-conversation-system-2026-04-07,effort-2025-11-24' };
extra = [{ role: 'system', content: [{ type: 'text', text: 'Available agent types: general-purpose. Skills: none.' }] }];
writeFileSync(join(process.env.HOME, '.claude.json'), '{}');
`);

/** The same request without the beta that allows it: the API answers 400. */
export const CLAUDE_CODE_WITHOUT_BETA = program(`
url = process.env.ANTHROPIC_BASE_URL;
extra = [{ role: 'system', content: [{ type: 'text', text: 'Available agent types: general-purpose.' }] }];
console.error('claude: the API refused the request');
`);

/** Writes a stand-in as an executable file in `dir`; returns its path. */
export function writeStandIn(dir: string, name: string, source: string): string {
  const file = join(dir, name);
  writeFileSync(file, source);
  chmodSync(file, 0o755);
  return file;
}
