/**
 * `subprocess-env-scrub`: removes credentials from the environment of every child process rein
 * starts (the Bash tool, shell hooks, stdio MCP servers, ripgrep, git), as Claude Code does with
 * `CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=1`. rein itself keeps them (it needs the API key); a prompt
 * injection that gets a command to run (`echo $ANTHROPIC_API_KEY`, `env | curl -d @- …`) finds
 * none.
 *
 * Taps the kernel's `subprocessEnv` hook, which every child-process spawner goes through
 * (`subprocessEnv(kernel, child, extra)`, lib/), so a sandbox or any other plugin that starts processes
 * gets the same scrubbed environment by calling it. What a preset or an MCP server's own `env`
 * sets on purpose is added after the scrub and stays.
 */
import { z } from 'zod';
import { definePlugin } from '../../kernel/index.js';

/**
 * What Claude Code's CLAUDE_CODE_SUBPROCESS_ENV_SCRUB removes (its subprocess environment list):
 * Anthropic credentials, OpenTelemetry exporter headers (they carry bearer tokens), cloud
 * provider credentials, and the GitHub Actions OIDC and runtime tokens. Also in their
 * `INPUT_<NAME>` form, as GitHub Actions passes action inputs.
 */
export const CLAUDE_CODE_SCRUBBED: readonly string[] = Object.freeze([
  'ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_FOUNDRY_API_KEY', 'ANTHROPIC_CUSTOM_HEADERS',
  'OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_LOGS_HEADERS', 'OTEL_EXPORTER_OTLP_METRICS_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
  'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_BEARER_TOKEN_BEDROCK', 'GOOGLE_APPLICATION_CREDENTIALS', 'AZURE_CLIENT_SECRET', 'AZURE_CLIENT_CERTIFICATE_PATH',
  'ACTIONS_ID_TOKEN_REQUEST_TOKEN', 'ACTIONS_ID_TOKEN_REQUEST_URL', 'ACTIONS_RUNTIME_TOKEN', 'ACTIONS_RUNTIME_URL',
]);

/**
 * Names that look like a credential (rein's addition, option `patterns`): a key, token, secret,
 * password or credential in the name, and the SSH agent socket (it lets a process use your keys).
 */
export const CREDENTIAL_NAME = /(^|_)(API_?KEY|ACCESS_?KEY|SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?|PRIVATE_?KEY|AUTH)(_|$)|^SSH_AUTH_SOCK$/i;

/**
 * Kept even though they look like credentials: as in Claude Code, `GITHUB_TOKEN` and `GH_TOKEN`
 * stay so `gh` and git helpers keep working (in GitHub Actions the token is scoped to the job).
 */
export const KEPT_BY_DEFAULT: readonly string[] = Object.freeze(['GITHUB_TOKEN', 'GH_TOKEN']);

export const subprocessEnvScrubOptions = z.strictObject({
  /** Also remove every variable whose name looks like a credential (CREDENTIAL_NAME). Default true. */
  patterns: z.boolean().default(true).register(z.globalRegistry, { description: 'Also remove every variable whose name looks like a credential (a key, token, secret, password or credential in the name, and SSH_AUTH_SOCK), besides Claude Code\'s list.' }),
  /** More variables to remove, by name (`*` matches any run of characters: `STRIPE_*`). */
  remove: z.array(z.string().min(1)).default([]).register(z.globalRegistry, { description: 'More variables to remove, by name (`*` matches any run of characters: `STRIPE_*`).' }),
  /** Variables never removed, by name or `*` pattern (default GITHUB_TOKEN, GH_TOKEN). */
  keep: z.array(z.string().min(1)).default([...KEPT_BY_DEFAULT]).register(z.globalRegistry, { description: 'Variables never removed, by name or `*` pattern (Claude Code keeps GITHUB_TOKEN and GH_TOKEN so `gh` and git helpers work).' }),
  /** Child kinds scrubbed (`bash`, `hook`, `mcp`, `ripgrep`, `git`, or another plugin's); default all. */
  kinds: z.array(z.string().min(1)).optional().register(z.globalRegistry, { description: 'Child kinds scrubbed (`bash`, `hook`, `mcp`, `ripgrep`, `git`, or another plugin\'s); default: all.' }),
});

export type SubprocessEnvScrubOptions = z.output<typeof subprocessEnvScrubOptions>;

function globs(list: readonly string[]): (name: string) => boolean {
  const res = list.map((g) => new RegExp(`^${g.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`));
  return (name) => res.some((r) => r.test(name));
}

/** Builds the scrub: environment in, environment without credentials out (a new object). */
export function scrubber(o: SubprocessEnvScrubOptions): (env: Record<string, string>) => Record<string, string> {
  const named = new Set([...CLAUDE_CODE_SCRUBBED, ...CLAUDE_CODE_SCRUBBED.map((n) => `INPUT_${n}`)]);
  const extra = globs(o.remove);
  const keep = globs(o.keep);
  return (env) => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(env)) {
      const drop = !keep(k) && (named.has(k) || extra(k) || (o.patterns && CREDENTIAL_NAME.test(k)));
      if (!drop) out[k] = v;
    }
    return out;
  };
}

export default definePlugin({
  name: 'subprocess-env-scrub',
  description: 'Removes credentials (API keys, tokens, cloud secrets) from the environment of every child process: Bash, shell hooks, MCP servers.',
  options: subprocessEnvScrubOptions,
  apply(kernel, options) {
    const scrub = scrubber(options);
    const kinds = options.kinds ? new Set(options.kinds) : undefined;
    kernel.hooks.subprocessEnv.tap('subprocess-env-scrub', (env, child) => (kinds && !kinds.has(child.kind) ? env : scrub(env)));
  },
});
