/**
 * Embedding rein in a program: build an agent with `createAgent()`, answer its permission asks with
 * `canUseTool`, and print its events as they come.
 *
 *   node --import jiti/register examples/embed/main.ts        (from the repository root)
 *
 * Without ANTHROPIC_API_KEY it runs against rein's simulator with scenario.yaml; with the key, the
 * real model does the same task.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAgent, type AgentEvent, type PresetObject, type PermissionResult, type RunResult } from 'rein';

const HERE = dirname(fileURLToPath(import.meta.url));

/** The agent, as a preset object instead of a file. */
export const PRESET: PresetObject = {
  name: 'todo-finder',
  model: { name: 'claude-sonnet-4-6', maxTokens: 4_000 },
  tools: ['Grep', 'Read', 'Bash'],
  permissions: { mode: 'default' },
  limits: { maxTurns: 10 },
};

/** Shell commands this program lets the agent run when it asks; anything else is refused. */
const READ_ONLY_COMMAND = /^(wc|ls|cat|head) [\w./ -]+$/;

/**
 * Answers a permission ask. Reads inside the working directory never ask in mode `default`; Bash
 * always does, so this is where the program decides.
 */
export function canUseTool(toolName: string, input: Record<string, unknown>): PermissionResult {
  if (toolName === 'Bash' && typeof input.command === 'string' && READ_ONLY_COMMAND.test(input.command)) return { behavior: 'allow' };
  return { behavior: 'deny', message: `${toolName} is not allowed here: this program only lets the agent run wc, ls, cat and head.` };
}

/** One printable line for an event, or undefined for events this program does not show. */
export function eventLine(e: AgentEvent): string | undefined {
  switch (e.type) {
    case 'session_start': return `session ${e.sessionId.slice(0, 8)} (${e.simulated ? 'simulated' : e.model}), tools: ${e.tools.join(', ')}`;
    case 'tool_start': return `> ${e.name} ${JSON.stringify(e.input)}`;
    case 'tool_end': return `  ${e.isError ? 'failed' : 'ok'}`;
    case 'permission_denied': return `  denied: ${e.denial.reason}`;
    case 'assistant_message': {
      const text = e.message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(' ');
      return text ? `assistant: ${text}` : undefined;
    }
    case 'result': {
      const r = e.result;
      return `result: ${r.terminalReason} after ${r.numTurns} turns, ${r.usage.input_tokens + r.usage.cache_read_input_tokens + r.usage.cache_creation_input_tokens} input tokens, $${r.totalCostUsd.toFixed(4)}`;
    }
    default: return undefined;
  }
}

/** Runs the agent on the sample folder; `print` gets one line per shown event. */
export async function findTodos(opts: { cwd?: string; sim?: string; print?: (line: string) => void } = {}): Promise<RunResult> {
  const print = opts.print ?? ((line: string) => console.log(line));
  const agent = await createAgent({
    preset: PRESET,
    cwd: opts.cwd ?? HERE,
    sim: opts.sim,
    layers: false,
    canUseTool: (name, input) => {
      const answer = canUseTool(name, input);
      print(`  asked about ${name}: ${answer.behavior}`);
      return answer;
    },
  });
  try {
    const run = agent.run('Find the TODO comments under sample/ and say how long sample/app.py is.');
    for await (const event of run) {
      const line = eventLine(event);
      if (line) print(line);
    }
    return await run.result;
  } finally {
    await agent.close(); // stops the embedded simulator, if any
  }
}

// Run as a program (not when imported by the test).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const result = await findTodos({ sim: process.env.ANTHROPIC_API_KEY ? undefined : join(HERE, 'scenario.yaml') });
  process.exitCode = result.terminalReason === 'end_turn' ? 0 : 1;
}
