/** Model providers: what `model.provider` names; one makes the run's `ModelClient` (plugins add their own). */
import type { ModelClient } from './client.js';

/** What a provider sees when the agent is created. */
export interface ProviderContext {
  /** The run's environment (keys, base URLs, proxies). */
  env: NodeJS.ProcessEnv;
  /** The agent's working directory (absolute). */
  cwd: string;
  /**
   * `--sim FILE` (as given), when the run was asked to play a scenario. Only the built-in
   * `simulator` provider sees it: `--sim` plays on the embedded simulator whatever `model.provider`
   * names, so a plugin's provider is not asked then.
   */
  sim?: string;
  /** The last `ModelClient.checkpoint` of a resumed session. */
  resumeFrom?: Record<string, unknown>;
}

/** What a provider made: the client, and optionally a line the CLI prints to stderr. */
export interface ProviderChoice {
  client: ModelClient;
  kind: 'api' | 'simulator' | 'demo';
  /** One line saying what the run talks to; `rein run` prints it to stderr, after `rein: `. */
  notice?: string;
}

/** A model provider; `create` gets its plugin's options and may throw a message for the user. */
export interface ModelProvider<O = unknown> {
  description?: string;
  create(context: ProviderContext, options: O): ProviderChoice | Promise<ProviderChoice>;
}
