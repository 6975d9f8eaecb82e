/**
 * Credentials in the environment of a sandboxed process: removed, so a command cannot read them
 * from its own environment and send them to a host the sandbox lets it reach.
 *
 * A variable is a credential when its name is a well-known one (ANTHROPIC_API_KEY,
 * AWS_SECRET_ACCESS_KEY, GITHUB_TOKEN, ...) or contains a word that names a secret (KEY, TOKEN,
 * SECRET, PASSWORD, PASSWD, CREDENTIAL(S), AUTH, COOKIE, SESSION) as one of its `_`-separated parts.
 * That catches `MY_SERVICE_API_KEY` and `DB_PASSWORD` but not `KEYBOARD` or `TOKENIZERS_PARALLELISM`.
 */

/** Names removed whatever their shape (agent sockets and well-known credentials). */
export const CREDENTIAL_NAMES: ReadonlySet<string> = new Set([
  'ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN', 'OPENAI_API_KEY',
  'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_SESSION_TOKEN', 'AWS_SECURITY_TOKEN',
  'GOOGLE_APPLICATION_CREDENTIALS', 'AZURE_CLIENT_SECRET', 'GITHUB_TOKEN', 'GH_TOKEN', 'GITLAB_TOKEN',
  'NPM_TOKEN', 'NODE_AUTH_TOKEN', 'PYPI_TOKEN', 'TWINE_PASSWORD', 'DOCKER_AUTH_CONFIG', 'HF_TOKEN',
  'SSH_AUTH_SOCK', 'GPG_AGENT_INFO', 'KUBECONFIG', 'VAULT_TOKEN', 'DATABASE_URL',
]);

/** Parts of a name that mark it as a secret. */
const SECRET_PARTS = /^(KEY|APIKEY|AUTHTOKEN|ACCESSTOKEN|APITOKEN|TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASS|CREDENTIAL|CREDENTIALS|AUTH|COOKIE|SESSION|PRIVATE)$/;

/** True when `name` looks like a credential (see the module comment). */
export function isCredentialName(name: string): boolean {
  const upper = name.toUpperCase();
  if (CREDENTIAL_NAMES.has(upper)) return true;
  return upper.split(/[_\-.:/]/).some((part) => SECRET_PARTS.test(part));
}

/**
 * `env` without its credentials, except the names in `keep`. Returns the new environment and the
 * names removed (sorted), so the sandbox can say what it took away.
 */
export function withoutCredentials(env: Record<string, string>, keep: readonly string[] = []): { env: Record<string, string>; removed: string[] } {
  const kept = new Set(keep);
  const out: Record<string, string> = {};
  const removed: string[] = [];
  for (const [k, v] of Object.entries(env)) {
    if (!kept.has(k) && isCredentialName(k)) removed.push(k);
    else out[k] = v;
  }
  return { env: out, removed: removed.sort() };
}
