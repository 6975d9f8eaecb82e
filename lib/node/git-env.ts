/**
 * `env` with git told to take a bare repository only when named (`--git-dir`, `GIT_DIR`): git's
 * `safe.bareRepository=explicit` (https://git-scm.com/docs/git-config#Documentation/git-config.txt-safebareRepository),
 * passed as command-scope configuration (`GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_<n>`,
 * `GIT_CONFIG_VALUE_<n>`, git 2.31+; see git(1) ENVIRONMENT), the one scope besides the system's
 * and the user's that git reads this setting from. Settings already passed that way are kept.
 * A directory with a `HEAD`, an `objects/` and a `refs/` is a repository to git, and its `config`
 * can name programs git runs (`core.fsmonitor`, `core.pager`, `diff.external`): files an agent
 * may have written in the project. git older than 2.38 ignores the setting.
 *
 * Returns a new object; `env` is not changed.
 */
export function withExplicitBareRepositories(env: Record<string, string>): Record<string, string> {
  const count = Number.parseInt(env.GIT_CONFIG_COUNT ?? '0', 10);
  const n = Number.isSafeInteger(count) && count > 0 ? count : 0;
  return { ...env, GIT_CONFIG_COUNT: String(n + 1), [`GIT_CONFIG_KEY_${n}`]: 'safe.bareRepository', [`GIT_CONFIG_VALUE_${n}`]: 'explicit' };
}
