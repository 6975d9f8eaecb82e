/**
 * Model providers: what `model.provider` in a preset names. A provider makes the run's
 * `ModelClient`; rein's assembly layer holds the built-in ones (`anthropic`, `simulator`) and a
 * plugin adds its own through `Plugin.providers`, so a second backend is one plugin, not a change
 * to rein.
 */
import type { ModelClient } from './client.js';

/** What a provider sees when the agent is created. */
export interface ProviderContext {
  /** The environment of the run (`createAgent({ env })`, default process.env): keys, base URLs, proxies. */
  env: NodeJS.ProcessEnv;
  /** The agent's working directory (absolute). */
  cwd: string;
  /** `--sim FILE` (as given), when the run was asked to play a scenario. */
  sim?: string;
  /**
   * The client checkpoint (`ModelClient.checkpoint`) last kept in a resumed session's transcript,
   * so the provider can carry on from it. Undefined for a new session.
   */
  resumeFrom?: Record<string, unknown>;
}

/** What a provider made: the client, and optionally a line the CLI prints to stderr. */
export interface ProviderChoice {
  client: ModelClient;
  /** `api`: a real or user-chosen endpoint; `simulator`: a scenario; `demo`: rein's built-in demo. */
  kind: 'api' | 'simulator' | 'demo';
  /** One line for stderr saying what the run talks to (printed for `simulator` and `demo`). */
  notice?: string;
}

/**
 * A model provider. `create` gets the context and the options of the plugin that declared it
 * (parsed by its schema; `{}` for a built-in). It may throw; the error reaches the user as it is,
 * so give it a message that says what to fix.
 */
export interface ModelProvider<O = unknown> {
  /** One line for `rein preset` docs and error messages. */
  description?: string;
  create(context: ProviderContext, options: O): ProviderChoice | Promise<ProviderChoice>;
}
