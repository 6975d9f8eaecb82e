/**
 * How each agent CLI is run headless against a local Messages API (rein's simulator), and the tool
 * names it uses, so one scripted scenario can drive them all.
 *
 * Pointing each at a local server (measured with Claude Code 2.1, pi 0.73 and opencode 1.18):
 * - Claude Code: ANTHROPIC_BASE_URL, plus CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 (no side
 *   traffic) and IS_SANDBOX=1 (needed as root with --dangerously-skip-permissions);
 * - pi: `~/.pi/agent/models.json` with `{"providers": {"anthropic": {"baseUrl": URL}}}` (a fresh
 *   HOME keeps the user's own config out);
 * - opencode: the file named by OPENCODE_CONFIG with `provider.anthropic.options.baseURL`, plus
 *   OPENCODE_DISABLE_MODELS_FETCH=1 (offline: the bundled model list).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export type AgentName = 'claude-code' | 'opencode' | 'pi' | 'rein';

/** Tool names and the input field that names a file, per agent (so a scenario can use each one's own). */
export const AGENT_TOOLS: Record<AgentName, { read: string; readPath: string; shell: string }> = {
  'claude-code': { read: 'Read', readPath: 'file_path', shell: 'Bash' },
  rein: { read: 'Read', readPath: 'file_path', shell: 'Bash' },
  pi: { read: 'read', readPath: 'path', shell: 'bash' },
  opencode: { read: 'read', readPath: 'filePath', shell: 'bash' },
};

/** Default executable names on PATH. */
export const AGENT_BINARIES: Record<Exclude<AgentName, 'rein'>, string> = { 'claude-code': 'claude', pi: 'pi', opencode: 'opencode' };

/** A command line to spawn, with its environment additions. */
export interface AgentCommand {
  bin: string;
  args: string[];
  env: Record<string, string>;
}

/**
 * The command that runs `agent` once on `prompt` against `baseURL`, in `workdir`. `home` is a
 * fresh directory used as HOME (config files are written there).
 */
export async function agentCommand(agent: Exclude<AgentName, 'rein'>, o: { bin?: string; prompt: string; model: string; baseURL: string; workdir: string; home: string }): Promise<AgentCommand> {
  const base = { HOME: o.home, ANTHROPIC_API_KEY: 'sk-rein-simulator', ANTHROPIC_BASE_URL: o.baseURL, NO_COLOR: '1' };
  switch (agent) {
    case 'claude-code':
      return {
        bin: o.bin ?? AGENT_BINARIES['claude-code'],
        args: ['-p', o.prompt, '--model', o.model, '--output-format', 'json', '--dangerously-skip-permissions'],
        env: { ...base, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', IS_SANDBOX: '1', DISABLE_AUTOUPDATER: '1' },
      };
    case 'pi': {
      const dir = join(o.home, '.pi', 'agent');
      await mkdir(dir, { recursive: true });
      await writeFile(join(dir, 'models.json'), JSON.stringify({ providers: { anthropic: { baseUrl: o.baseURL } } }, null, 2));
      return { bin: o.bin ?? AGENT_BINARIES.pi, args: ['-p', o.prompt, '--provider', 'anthropic', '--model', o.model], env: base };
    }
    case 'opencode': {
      const config = join(o.home, 'opencode.json');
      await writeFile(config, JSON.stringify({ $schema: 'https://opencode.ai/config.json', provider: { anthropic: { options: { baseURL: `${o.baseURL}/v1` } } } }, null, 2));
      return { bin: o.bin ?? AGENT_BINARIES.opencode, args: ['run', o.prompt, '--model', `anthropic/${o.model}`], env: { ...base, OPENCODE_CONFIG: config, OPENCODE_DISABLE_MODELS_FETCH: '1' } };
    }
  }
}
