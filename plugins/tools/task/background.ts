/**
 * Background children: a Task call with `run_in_background` (or an agent with `background: true`)
 * returns at once; the child runs on, and its report reaches the parent as a `<task-notification>`
 * user message (Claude Code's layout) added at the tail of the history before the next request.
 * When the parent's model ends its turn while children still run, the turn waits for the next one
 * to finish and goes on with its notification, so every report arrives inside the parent's run,
 * and the child's cost counts against the parent's `limits.maxBudgetUsd` (each child also gets what
 * was left of it as its own limit when it started).
 *
 * Background children are not tied to one tool call's abort signal: they stop when the parent's
 * session ends (sessionEnd) or rein closes it.
 */
import { createKernelState, type Kernel, type RunResult, type ToolOutput } from '../../../kernel/index.js';

interface Child {
  id: string;
  description: string;
  done: Promise<void>;
  outcome?: { status: 'completed' | 'failed'; text: string };
}

export interface BackgroundChildren {
  /** Aborts every running child (the session ended). */
  readonly signal: AbortSignal;
  start(id: string, description: string, run: Promise<{ result: RunResult; output: ToolOutput }>): void;
  /** Notifications of children that ended since the last call. */
  takeFinished(): string[];
  /** True while any child runs. */
  running(): boolean;
  /** Resolves when the next running child ends (at once when none runs). */
  next(): Promise<void>;
  stopAll(): void;
  /** Resolves when every running child has ended. */
  settled(): Promise<void>;
}

const outputText = (o: ToolOutput): { text: string; isError: boolean } => {
  if (typeof o === 'string') return { text: o, isError: false };
  const blocks = Array.isArray(o) ? o : o.content;
  const text = typeof blocks === 'string' ? blocks : blocks.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
  return { text, isError: !Array.isArray(o) && o.isError === true };
};

/** The notification for a finished child (https://code.claude.com/docs/en/sub-agents, task notifications). */
export function taskNotification(id: string, description: string, status: 'completed' | 'failed', text: string): string {
  return `<task-notification>\n<task-id>${id}</task-id>\n<status>${status}</status>\n<summary>Agent "${description}" ${status === 'completed' ? 'completed' : 'failed'}</summary>\n<result>${text}</result>\n</task-notification>`;
}

const state = createKernelState<{ children?: BackgroundChildren }>('tools/task/background', () => ({}));

/** The background children of a parent kernel. */
export function backgroundOf(kernel: Kernel): BackgroundChildren {
  const s = state(kernel);
  if (s.children) return s.children;
  let abort = new AbortController();
  const children = new Map<string, Child>();
  let wake: (() => void)[] = [];
  const api: BackgroundChildren = {
    get signal() { return abort.signal; },
    start(id, description, run) {
      const child: Child = { id, description, done: Promise.resolve() };
      child.done = run.then(
        ({ output }) => {
          const { text, isError } = outputText(output);
          child.outcome = { status: isError ? 'failed' : 'completed', text };
        },
        (err: unknown) => { child.outcome = { status: 'failed', text: err instanceof Error ? err.message : String(err) }; },
      ).finally(() => {
        const w = wake;
        wake = [];
        for (const f of w) f();
      });
      children.set(id, child);
    },
    takeFinished() {
      const out: string[] = [];
      for (const [id, c] of children) {
        if (!c.outcome) continue;
        out.push(taskNotification(id, c.description, c.outcome.status, c.outcome.text));
        children.delete(id);
      }
      return out;
    },
    running: () => [...children.values()].some((c) => !c.outcome),
    next: () => (api.running() ? new Promise<void>((r) => { wake.push(r); }) : Promise.resolve()),
    settled: async () => { await Promise.all([...children.values()].map((c) => c.done)); },
    stopAll: () => {
      if (!api.running()) return;
      abort.abort(new Error('the session ended'));
      abort = new AbortController();
    },
  };
  s.children = api;
  return api;
}
