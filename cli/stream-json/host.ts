/**
 * `rein run --input-format stream-json --output-format stream-json`: one agent for the whole
 * process, one turn per user line on stdin, and the control protocol (protocol.ts) both ways, so a
 * program that drives Claude Code this way (the Claude Agent SDK's `query()`) drives rein:
 *
 * - `initialize` builds the agent: its `hooks` become `hooks/sdk` callbacks, its `sdkMcpServers`
 *   are in-process MCP servers reached with `mcp_message` requests, its `mcpServers`,
 *   `systemPrompt`, `appendSystemPrompt` and `jsonSchema` join the command-line preset layer.
 *   Without one (a script writing user lines) the agent is built on the first user line.
 * - Asks go to the host as `can_use_tool` when rein was started with `--permission-prompt-tool
 *   stdio` (the SDK's `canUseTool`); otherwise they are denied, as in any headless run.
 * - `interrupt` aborts the turn in progress; `set_permission_mode` switches between rein's rule
 *   modes; `set_model` changes the model from the next turn on. Any other request gets an error
 *   response that names it.
 * - With CLAUDE_CODE_SDK_READS_SESSION_STATE=1 (the SDK sets it) each turn is framed by
 *   `system/session_state_changed` lines (`running`, `requires_action` while waiting for an answer,
 *   `idle` after the result), which tell the SDK a turn is over.
 *
 * stdin closing ends the process once the turns already read have run. The exit code is 0 unless
 * the agent could not be built (2).
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { randomUUID } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { createAgent, type Agent, type AgentOptions } from '../../agent/agent.js';
import { definePlugin, PERMISSION_STAGE, type ContentBlock, type Kernel, type Plugin } from '../../kernel/index.js';
import { reinRoot } from '../../lib/node/root.js';
import { MODE_DECISIONS, permissionContext } from '../../plugins/permissions/index.js';
import { addMcpServer } from '../../plugins/tools/mcp/index.js';
import { isInputError, printInputError } from '../commands/errors.js';
import type { ClaudeFlagValues } from '../commands/claude-flags.js';
import { printClientNoticeOnStart } from '../commands/client-notice.js';
import { claudeModel } from '../../agent/preset/claude-settings.js';
import { failure, parseInbound, requestId, success, type InboundLine } from './protocol.js';
import { EXIT } from '../main.js';

type ControlRequest = Extract<InboundLine, { type: 'control_request' }>;
type UserLine = Extract<InboundLine, { type: 'user' }>;

/** The parts of an `initialize` request rein acts on (the SDK's `SDKControlInitializeRequest`). */
interface InitializeRequest {
  subtype: 'initialize';
  hooks?: Record<string, { matcher?: string; hookCallbackIds: string[]; timeout?: number; onFailure?: 'continue' | 'block' }[]>;
  sdkMcpServers?: string[];
  mcpServers?: Record<string, unknown>;
  systemPrompt?: string[];
  appendSystemPrompt?: string;
  jsonSchema?: Record<string, unknown>;
  agents?: Record<string, unknown>;
}

/** Rule modes `set_permission_mode` may switch between (auto needs the classifier plugin loaded). */
const SWITCHABLE_MODES = ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'] as const;

/** An MCP transport to a server living in the host program: each message is an `mcp_message` request. */
class ControlChannelTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;

  constructor(private readonly host: StreamJsonHost, private readonly server: string) {
    host.transports.set(server, this);
  }

  async start(): Promise<void> { /* the channel is stdin/stdout, already open */ }

  async send(message: JSONRPCMessage): Promise<void> {
    const expectsAnswer = 'method' in message && 'id' in message;
    const answer = this.host.request({ subtype: 'mcp_message', server_name: this.server, message });
    if (!expectsAnswer) {
      answer.catch((err: Error) => this.onerror?.(err));
      return;
    }
    answer.then(
      (r) => { if (r.mcp_response) this.onmessage?.(r.mcp_response as JSONRPCMessage); },
      (err: Error) => this.onerror?.(err),
    );
  }

  async close(): Promise<void> {
    this.host.transports.delete(this.server);
    this.onclose?.();
  }
}

export class StreamJsonHost {
  private agent: Agent | undefined;
  private starting: Promise<Agent | undefined> | undefined;
  private readonly queue: UserLine[] = [];
  private working: Promise<void> | undefined;
  private current: AbortController | undefined;
  private readonly pending = new Map<string, { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }>();
  readonly transports = new Map<string, ControlChannelTransport>();
  /** `set_permission_mode`: the rule mode that answers in place of the preset's mode plugin. */
  private modeOverride: (typeof SWITCHABLE_MODES)[number] | undefined;
  private failed = false;
  private readonly reportsState = process.env.CLAUDE_CODE_SDK_READS_SESSION_STATE === '1';

  constructor(private readonly options: AgentOptions, private readonly flags: ClaudeFlagValues) {}

  private log(dir: '<' | '>', text: string): void {
    if (this.flags.debugFile) appendFileSync(this.flags.debugFile, `${dir} ${text}\n`);
    else if (this.flags.debug) process.stderr.write(`rein: debug: ${dir} ${text}\n`);
  }

  /** Writes one line to stdout. */
  write(line: Record<string, unknown>): void {
    const text = JSON.stringify(line);
    this.log('>', text);
    process.stdout.write(`${text}\n`);
  }

  private state(state: 'running' | 'idle' | 'requires_action'): void {
    if (!this.reportsState || !this.agent) return;
    // sdk_host_only: the SDK reads it and does not pass it on to its caller.
    this.write({ type: 'system', subtype: 'session_state_changed', state, sdk_host_only: true, uuid: randomUUID(), session_id: this.agent.kernel.sessionId });
  }

  /** Sends a control request to the host and resolves with its success payload; rejects on an error reply or abort. */
  request(body: Record<string, unknown>, signal?: AbortSignal): Promise<Record<string, unknown>> {
    const id = requestId();
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        this.pending.delete(id);
        this.write({ type: 'control_cancel_request', request_id: id });
        reject(new Error('the request was cancelled'));
      };
      if (signal?.aborted) { reject(new Error('the request was cancelled')); return; }
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(id, {
        resolve: (r) => { signal?.removeEventListener('abort', onAbort); resolve(r); },
        reject: (e) => { signal?.removeEventListener('abort', onAbort); reject(e); },
      });
      this.write({ type: 'control_request', request_id: id, request: body });
    });
  }

  /** Reads stdin to its end, then lets the queued turns finish. Returns the exit code. */
  async run(): Promise<number> {
    const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
    const onSigint = () => this.current?.abort();
    process.on('SIGINT', onSigint);
    try {
      for await (const text of rl) {
        this.log('<', text);
        let line: InboundLine | undefined;
        try {
          line = parseInbound(text);
        } catch (err) {
          process.stderr.write(`rein: stdin: ignored a line: ${(err as Error).message}\n`);
          continue;
        }
        if (line) this.dispatch(line);
        if (this.failed) break;
      }
      await this.starting;
      while (this.working) await this.working;
      return this.failed ? EXIT.BAD_INPUT : EXIT.OK;
    } finally {
      process.off('SIGINT', onSigint);
      for (const p of this.pending.values()) p.reject(new Error('stdin closed before the host answered'));
      await this.agent?.close();
    }
  }

  private dispatch(line: InboundLine): void {
    switch (line.type) {
      case 'keep_alive':
        return;
      case 'control_response': {
        const p = this.pending.get(line.response.request_id);
        if (!p) return;
        this.pending.delete(line.response.request_id);
        if (line.response.subtype === 'success') p.resolve(line.response.response ?? {});
        else p.reject(new Error(line.response.error ?? 'the host answered with an error'));
        return;
      }
      case 'control_cancel_request':
        // The host gave up on a request rein is answering; rein's answers are quick, nothing to stop.
        return;
      case 'control_request':
        void this.answer(line);
        return;
      case 'user':
        this.queue.push(line);
        if (!this.flags.awaitInitialize) this.starting ??= this.start(undefined);
        this.kick();
        return;
    }
  }

  /** Starts the turn worker once the agent is being built and a user line waits. */
  private kick(): void {
    if (!this.starting || !this.queue.length) return;
    this.working ??= this.work().finally(() => { this.working = undefined; this.kick(); });
  }

  /** Answers a control request from the host. */
  private async answer(line: ControlRequest): Promise<void> {
    const req = line.request;
    const id = line.request_id;
    try {
      switch (req.subtype) {
        case 'initialize': {
          if (this.starting) { this.write(failure(id, 'initialize: the session has already started')); return; }
          this.starting = this.start(req as unknown as InitializeRequest);
          this.kick(); // user lines that came before it (--await-initialize)
          const agent = await this.starting;
          if (!agent) { this.write(failure(id, 'initialize: rein could not build the agent (see stderr)')); return; }
          const init = req as unknown as InitializeRequest;
          this.write(success(id, {
            commands: [], agents: [], output_style: 'default', available_output_styles: ['default'],
            models: [{ value: agent.kernel.model, displayName: agent.kernel.model, description: 'the preset\'s model' }],
            account: {},
            ...(init.hooks && Object.keys(init.hooks).length ? { hooks_applied: true } : {}),
            hook_on_failure_supported: true,
            ...(init.mcpServers ? { mcp_servers_applied: true } : {}),
            claude_code_version: version(),
            pending_permission_requests: [],
          }));
          return;
        }
        case 'interrupt':
          this.current?.abort();
          this.write(success(id, { still_queued: [] }));
          return;
        case 'set_permission_mode':
          this.write(success(id, { mode: this.setMode(String(req.mode)) }));
          return;
        case 'set_model': {
          const agent = await this.starting;
          const model = typeof req.model === 'string' ? claudeModel(req.model).name : undefined;
          agent?.kernel.setModel(model);
          this.write(success(id));
          return;
        }
        case 'mcp_message': {
          const t = this.transports.get(String(req.server_name));
          if (!t) throw new Error(`mcp_message: no in-process MCP server named "${String(req.server_name)}"`);
          t.onmessage?.(req.message as JSONRPCMessage);
          this.write(success(id, { mcp_response: { jsonrpc: '2.0', result: {}, id: 0 } }));
          return;
        }
        default:
          this.write(failure(id, `rein does not support the control request "${req.subtype}"`));
      }
    } catch (err) {
      this.write(failure(id, `${req.subtype}: ${(err as Error).message}`));
    }
  }

  /** Switches the rule mode; returns the mode in force. Throws for a mode rein cannot switch to. */
  private setMode(mode: string): string {
    if (!(SWITCHABLE_MODES as readonly string[]).includes(mode)) throw new Error(`rein cannot switch to mode "${mode}" during a session (it can switch to ${SWITCHABLE_MODES.join(', ')}); start it with --permission-mode ${mode}`);
    const kernel = this.agent?.kernel;
    if (!kernel) throw new Error('the session has not started');
    const pc = permissionContext(kernel);
    if (mode === 'bypassPermissions' && !pc.config.allowBypassPermissions) throw new Error('bypassPermissions needs --allow-dangerously-skip-permissions (the SDK\'s allowDangerouslySkipPermissions)');
    this.modeOverride = mode as (typeof SWITCHABLE_MODES)[number];
    pc.mode = this.modeOverride;
    return mode;
  }

  /** Builds the agent (once), with what `initialize` brought. Undefined when it could not be built. */
  private async start(init: InitializeRequest | undefined): Promise<Agent | undefined> {
    const overrides = structuredClone((this.options.overrides ?? {}) as Record<string, any>);
    const plugins: { plugin: Plugin; options?: unknown }[] = [{ plugin: this.modePlugin() }];
    if (init?.systemPrompt?.some((s) => s !== '')) {
      // The SDK sends [""] when its caller set no system prompt: rein's (the preset's) stays.
      (overrides.system ??= {}).sections = [{ name: 'system-prompt', text: init.systemPrompt.join('\n\n') }];
      (overrides.plugins ??= {})['system-prompt'] = { defaults: false };
    }
    if (init?.appendSystemPrompt) (overrides.system ??= {}).append = init.appendSystemPrompt;
    if (init?.jsonSchema) (overrides.plugins ??= {})['structured-output'] = { schema: init.jsonSchema };
    if (init?.mcpServers && Object.keys(init.mcpServers).length) overrides.mcpServers = { ...(overrides.mcpServers ?? {}), ...init.mcpServers };
    if (init?.agents && Object.keys(init.agents).length) process.stderr.write(`rein: initialize: agents (${Object.keys(init.agents).join(', ')}) are not loaded: rein's subagents are presets (\`subagents:\` in the preset)\n`);
    if (init?.hooks && Object.keys(init.hooks).length) plugins.push({ plugin: (await import('../../plugins/hooks/sdk/index.js')).default, options: { hooks: sdkHooks(init.hooks), call: (callbackId: string, input: Record<string, unknown>, toolUseId: string | undefined, signal: AbortSignal) => this.request({ subtype: 'hook_callback', callback_id: callbackId, input, ...(toolUseId ? { tool_use_id: toolUseId } : {}) }, signal) } });
    if (init?.sdkMcpServers?.length) plugins.push({ plugin: this.sdkMcpPlugin(init.sdkMcpServers) });
    const asks = this.flags.permissionPromptTool === 'stdio' && this.flags.permissionPrompts !== 'none';
    try {
      this.agent = await createAgent({
        ...this.options,
        overrides,
        plugins: [...(this.options.plugins ?? []), ...plugins],
        ...(asks ? { canUseTool: (toolName, input, info) => this.canUseTool(toolName, input, info) } : {}),
      });
    } catch (err) {
      if (!isInputError(err)) throw err;
      printInputError(err);
      this.failed = true;
      return undefined;
    }
    printClientNoticeOnStart(this.agent);
    return this.agent;
  }

  /** Asks the host (`can_use_tool`); the SDK answers with its caller's `canUseTool`. */
  private async canUseTool(toolName: string, input: Record<string, unknown>, info: { toolUseId: string; signal: AbortSignal; reason?: string }) {
    this.state('requires_action');
    try {
      const r = await this.request({ subtype: 'can_use_tool', tool_name: toolName, input, tool_use_id: info.toolUseId, permission_suggestions: [], ...(info.reason ? { decision_reason: info.reason } : {}) }, info.signal);
      if (r.behavior === 'allow') return { behavior: 'allow' as const, ...(r.updatedInput && typeof r.updatedInput === 'object' ? { updatedInput: r.updatedInput as Record<string, unknown> } : {}) };
      if (r.behavior === 'deny') {
        if (r.interrupt === true) this.current?.abort();
        return { behavior: 'deny' as const, message: typeof r.message === 'string' ? r.message : '' };
      }
      return { behavior: 'deny' as const, message: `the host answered can_use_tool with behavior ${JSON.stringify(r.behavior)}, which is neither allow nor deny` };
    } finally {
      this.state('running');
    }
  }

  /** Answers permission queries with the mode `set_permission_mode` chose, just before the preset's mode plugin. */
  private modePlugin(): Plugin {
    return definePlugin({
      name: 'stream-json/permission-mode',
      description: 'The permission mode the driving program switched to (set_permission_mode).',
      apply: (kernel: Kernel) => {
        kernel.hooks.permission.tapPromise({ name: 'stream-json/permission-mode', stage: PERMISSION_STAGE.MODE - 1 }, async (q) => {
          if (!this.modeOverride) return undefined;
          return MODE_DECISIONS[this.modeOverride](permissionContext(kernel), q);
        });
      },
    });
  }

  /** Registers the tools of the host's in-process MCP servers, reached over the control channel. */
  private sdkMcpPlugin(servers: string[]): Plugin {
    return definePlugin({
      name: 'stream-json/sdk-mcp',
      description: 'Tools of the driving program\'s in-process MCP servers (createSdkMcpServer), called with mcp_message.',
      apply: async (kernel: Kernel) => {
        for (const name of servers) {
          try {
            await addMcpServer(kernel, name, () => new ControlChannelTransport(this, name));
          } catch (err) {
            process.stderr.write(`rein: ${(err as Error).message}\n`);
          }
        }
      },
    });
  }

  /** Runs the queued user lines, one turn each. */
  private async work(): Promise<void> {
    const agent = await this.starting;
    if (!agent) {
      this.queue.length = 0; // nothing can run them (the error is on stderr)
      return;
    }
    for (let line = this.queue.shift(); line; line = this.queue.shift()) {
      const controller = new AbortController();
      this.current = controller;
      this.state('running');
      const content = line.message.content as string | ContentBlock[];
      const run = agent.run(content, { signal: controller.signal });
      for await (const _ of run) { /* the printer plugin prints */ }
      await run.result;
      this.current = undefined;
      this.state('idle');
    }
  }
}

/** `initialize` hooks (callback ids per matcher) as `hooks/sdk` options. */
function sdkHooks(hooks: NonNullable<InitializeRequest['hooks']>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [event, matchers] of Object.entries(hooks)) {
    if (!Array.isArray(matchers)) continue;
    out[event] = matchers.filter((m) => m.hookCallbackIds?.length).map((m) => ({
      ...(m.matcher !== undefined ? { matcher: m.matcher } : {}),
      hooks: m.hookCallbackIds.map((id) => ({ type: 'callback', id, ...(m.timeout ? { timeout: m.timeout } : {}), ...(m.onFailure ? { onFailure: m.onFailure } : {}) })),
    }));
  }
  return out;
}

let cachedVersion: string | undefined;
function version(): string {
  if (cachedVersion) return cachedVersion;
  try {
    cachedVersion = (JSON.parse(readFileSync(join(reinRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    cachedVersion = '0.0.0';
  }
  return cachedVersion;
}

/** Runs a stream-json session on stdin/stdout; returns the exit code. */
export async function runStreamJson(options: AgentOptions, flags: ClaudeFlagValues): Promise<number> {
  return new StreamJsonHost(options, flags).run();
}
