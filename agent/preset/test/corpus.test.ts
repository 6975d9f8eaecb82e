/**
 * The malformed-preset corpus: every file under fixtures/bad/ is validated and must produce exactly
 * the diagnostics listed here (file, line, column and message). Absolute paths inside messages are
 * written as <fixtures>. Adding a fixture without its expected diagnostics fails the test.
 */
import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { validatePresetFile } from '../index.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const BAD = join(FIXTURES, 'bad');

/** fixture file → expected `file:line:column: message` lines, in order. */
const EXPECTED: Record<string, string[]> = {
  "base-with-typo.yaml": [
    "base-with-typo.yaml:3:1: unknown key \"permisions\" at the top level; did you mean \"permissions\"?",
  ],
  "bypass-without-optin.yaml": [
    "bypass-without-optin.yaml:2:9: permissions.mode: bypassPermissions skips every permission check; it also needs permissions.allowBypassPermissions: true, as an explicit opt-in (on the command line: --dangerously-skip-permissions, or --allow-dangerously-skip-permissions as the opt-in)",
  ],
  "enum-effort.yaml": [
    "enum-effort.yaml:2:11: model.effort: \"highest\" is not one of low, medium, high, max",
  ],
  "enum-permission-mode.yaml": [
    "enum-permission-mode.yaml:2:9: permissions.mode: \"acceptedits\" is not one of default, acceptEdits, plan, dontAsk, bypassPermissions, auto; did you mean \"acceptEdits\"?",
  ],
  "env-bad-name.yaml": [
    "env-bad-name.yaml:2:3: env: \"1BAD\" is not a valid environment variable name (letters, digits and _, not starting with a digit)",
  ],
  "env-bad-reference.yaml": [
    "env-bad-reference.yaml:1:20: description: \"${1DOLLAR}\" is not a variable reference: expected ${NAME} or ${NAME:-default}, NAME made of letters, digits and _",
  ],
  "env-unset.yaml": [
    "env-unset.yaml:2:10: model.name: environment variable REIN_CORPUS_UNSET is not set and has no default (set it, or write ${REIN_CORPUS_UNSET:-default})",
  ],
  "env-unterminated.yaml": [
    "env-unterminated.yaml:2:8: session.dir: unterminated \"${\" (write \"$${\" for a literal \"${\")",
  ],
  "extends-bad-base.yaml": [
    "base-with-typo.yaml:3:1: unknown key \"permisions\" at the top level; did you mean \"permissions\"?",
  ],
  "extends-cycle-a.yaml": [
    "extends-cycle-b.yaml:1:11: extends cycle: extends-cycle-a.yaml → extends-cycle-b.yaml → extends-cycle-a.yaml",
  ],
  "extends-cycle-b.yaml": [
    "extends-cycle-a.yaml:1:10: extends cycle: extends-cycle-b.yaml → extends-cycle-a.yaml → extends-cycle-b.yaml",
  ],
  "extends-missing.yaml": [
    "extends-missing.yaml:3:5: extends.1: cannot read \"./no-such-base.yaml\": no such file (<fixtures>/bad/no-such-base.yaml)",
  ],
  "extends-self.yaml": [
    "extends-self.yaml:1:10: extends cycle: extends-self.yaml → extends-self.yaml",
  ],
  "extends-unknown-builtin.yaml": [
    "extends-unknown-builtin.yaml:1:10: extends: unknown built-in preset \"minimall\"; did you mean \"minimal\"? (built-ins: auto, default, lean, minimal, plan, readonly; for a file, write ./minimall.yaml)",
  ],
  "hooks-empty-list.yaml": [
    "hooks-empty-list.yaml:3:14: hooks.Stop.0.hooks: must list at least 1 item",
  ],
  "json-unknown-key.json": [
    "json-unknown-key.json:4:3: unknown key \"tool\" at the top level; did you mean \"tools\"?",
  ],
  "mcp-bad-url.yaml": [
    "mcp-bad-url.yaml:4:10: mcpServers.docs.url: must be an http:// or https:// URL, got a string (\"localhost:8080/mcp\")",
  ],
  "mcp-missing-command.yaml": [
    "mcp-missing-command.yaml:2:3: mcpServers.files: missing required key \"command\"",
  ],
  "plugin-bad-option-type.yaml": [
    "plugin-bad-option-type.yaml:4:12: plugins[\"../plugins/greeter.ts\"].times: Invalid input: expected int, received number (plugin ../plugins/greeter.ts)",
  ],
  "plugin-conflicts.yaml": [
    "plugin-conflicts.yaml:3:3: plugin \"test/anti-greeter\" conflicts with plugin \"test/greeter\" (line 2); load only one of them",
  ],
  "plugin-false-typo.yaml": [
    "plugin-false-typo.yaml:2:3: plugins: \"retyr\" is not a built-in plugin, so \"false\" switches nothing off; did you mean \"retry\"?",
  ],
  "plugin-import-fails.yaml": [
    "plugin-import-fails.yaml:2:3: plugin \"../plugins/throws-on-import.ts\" failed to import: cannot start: the fixture refuses to load",
  ],
  "plugin-missing-file.yaml": [
    "plugin-missing-file.yaml:2:3: plugin \"./plugins-local/nope.ts\" not found: no file at <fixtures>/bad/plugins-local/nope.ts",
  ],
  "plugin-no-export.yaml": [
    "plugin-no-export.yaml:2:3: plugin \"../plugins/no-plugin.ts\" does not export a plugin: expected a default export or an export named \"plugin\" made with definePlugin({ name, options, apply })",
  ],
  "plugin-requires.yaml": [
    "plugin-requires.yaml:2:3: plugin \"test/needs-greeter\" requires plugin \"test/greeter\", which this preset does not load; add it under plugins",
  ],
  "plugin-unknown-builtin.yaml": [
    "plugin-unknown-builtin.yaml:2:3: unknown plugin \"retyr\"; did you mean the built-in \"retry\"?",
  ],
  "plugin-unknown-namespaced.yaml": [
    "plugin-unknown-namespaced.yaml:2:3: unknown plugin \"compaction/no-such-strategy\": not a built-in plugin",
  ],
  "plugin-value-string.yaml": [
    "plugin-value-string.yaml:2:10: plugins.retry: expected a mapping, true, false or nothing, got a string (\"fast\")",
  ],
  "rule-no-tool-name.yaml": [
    "rule-no-tool-name.yaml:3:7: permissions.ask: permission rule \"(npm publish)\": a tool name is letters, digits, \"_\", \"-\" and \".\"",
  ],
  "rule-prefix-middle.yaml": [
    "rule-prefix-middle.yaml:2:9: permissions.ask: permission rule \"Bash(npm:* test)\": \":*\" (prefix match) is only allowed at the end of the specifier",
  ],
  "rule-stray-paren.yaml": [
    "rule-stray-paren.yaml:2:10: permissions.deny: permission rule \"Read)\": a \")\" without \"(\"",
  ],
  "rule-tool-typo.yaml": [
    "rule-tool-typo.yaml:2:17: permissions.allow: permission rule \"Bahs(ls:*)\": unknown tool \"Bahs\"; did you mean \"Bash\"?",
  ],
  "rule-unbalanced.yaml": [
    "rule-unbalanced.yaml:4:7: permissions.allow: permission rule \"Bash(echo (hi)\": unbalanced \"(\" in the specifier",
  ],
  "rule-unclosed.yaml": [
    "rule-unclosed.yaml:3:7: permissions.allow: permission rule \"Bash(npm test\": the specifier must end with \")\" (escape a literal one as \"\\)\")",
  ],
  "section-missing-file.yaml": [
    "section-missing-file.yaml:4:13: system.sections.0.file: cannot read \"../prompts/missing.md\": no such file (<fixtures>/prompts/missing.md)",
  ],
  "section-text-and-file.yaml": [
    "section-text-and-file.yaml:3:7: system.sections.0: give exactly one of text and file (both are set)",
  ],
  "subagent-missing.yaml": [
    "subagent-missing.yaml:2:13: subagents.reviewer: cannot read \"./agents/reviewer.yaml\": no such file (<fixtures>/bad/agents/reviewer.yaml)",
    "subagent-missing.yaml:3:13: subagents.explorer: unknown built-in preset \"minimall\"; did you mean \"minimal\"? (built-ins: auto, default, lean, minimal, plan, readonly; for a file, write ./minimall.yaml)",
  ],
  "syntax-bad-indent.yaml": [
    "syntax-bad-indent.yaml:3:1: YAML: All mapping items must start at the same column",
  ],
  "syntax-compact-nested.yaml": [
    "syntax-compact-nested.yaml:1:8: YAML: Nested mappings are not allowed in compact mappings",
  ],
  "syntax-trailing-comma.json": [
    "syntax-trailing-comma.json:3:20: JSON: unexpected token ']' (a trailing comma: JSON does not allow one)",
  ],
  "syntax-one-line.json": [
    "syntax-one-line.json:1:39: JSON: unexpected token ']' (a trailing comma: JSON does not allow one)",
  ],
  "syntax-unclosed-flow.yaml": [
    "syntax-unclosed-flow.yaml:3:1: YAML: Flow sequence in block collection must be sufficiently indented and end with a ]",
  ],
  "syntax-unclosed-quote.yaml": [
    "syntax-unclosed-quote.yaml:1:7: YAML: this double-quoted string is never closed, so everything up to line 3 became part of it; add the closing \"",
  ],
  "thinking-budget-over-max.yaml": [
    "thinking-budget-over-max.yaml:5:20: model.thinking.budget_tokens (8000) must be less than model.maxTokens (4000)",
  ],
  "tools-rule-in-tools.yaml": [
    "tools-rule-in-tools.yaml:1:15: tools: \"Bash(ls)\" is a permission rule; list the tool name here and put the rule under permissions.allow",
  ],
  "tools-typo.yaml": [
    "tools-typo.yaml:1:15: tools: unknown tool \"Reed\"; did you mean \"Read\"?",
    "tools-typo.yaml:1:27: tools: \"Read\" is listed twice (first as item 1)",
  ],
  "trap-alias-bomb.yaml": [
    "trap-alias-bomb.yaml:2:8: YAML: aliases expand to too many nodes (more than 100); an alias bomb? Write the values out instead",
  ],
  "trap-big-integer.yaml": [
    "trap-big-integer.yaml:2:14: YAML: the integer 99999999999999999999 is too large to represent exactly; quote it if it is an id",
  ],
  "trap-duplicate-key-nested.yaml": [
    "trap-duplicate-key-nested.yaml:4:3: YAML: duplicate key \"deny\" (first at line 3); YAML would keep only the last one",
  ],
  "trap-duplicate-key.yaml": [
    "trap-duplicate-key.yaml:3:1: YAML: duplicate key \"name\" (first at line 1); YAML would keep only the last one",
  ],
  "trap-merge-key.yaml": [
    "trap-merge-key.yaml:1:1: unknown key \"base\" at the top level (expected one of: $schema, name, description, extends, model, system, tools, permissions, plugins, hooks, limits, env, autoMode, subagents, agents, mcpServers, session, bench)",
    "trap-merge-key.yaml:4:3: YAML merge keys (\"<<\") are not supported; use extends to build on another preset",
  ],
  "trap-multiline-plain.yaml": [
    "trap-multiline-plain.yaml:2:14: YAML: this unquoted value continues over 2 lines and YAML joins them into one line (\"a long description that goes on and on over the next line\"); quote it, or use | (keep newlines) or > (fold) for multi-line text",
  ],
  "trap-not-a-mapping.yaml": [
    "trap-not-a-mapping.yaml:1:1: a preset must be a mapping of keys (model, tools, permissions, plugins, ...), got a list",
  ],
  "trap-tab-in-value.yaml": [
    "trap-tab-in-value.yaml:2:14: YAML: a tab inside an unquoted value; quote the value if the tab is meant",
  ],
  "trap-tab-indent.yaml": [
    "trap-tab-indent.yaml:2:1: YAML: a tab is used for indentation; indent with spaces",
  ],
  "trap-two-documents.yaml": [
    "trap-two-documents.yaml:2:1: YAML: a second document starts here (\"---\"); a preset is a single document",
  ],
  "trap-unknown-tag.yaml": [
    "trap-unknown-tag.yaml:2:14: YAML: unknown tag: tag:yaml.org,2002:js/function; presets use plain YAML values",
  ],
  "trap-yes-no.yaml": [
    "trap-yes-no.yaml:2:9: permissions.mode: bypassPermissions skips every permission check; it also needs permissions.allowBypassPermissions: true, as an explicit opt-in (on the command line: --dangerously-skip-permissions, or --allow-dangerously-skip-permissions as the opt-in)",
    "trap-yes-no.yaml:3:27: permissions.allowBypassPermissions: expected true or false, got a string (\"yes\"); YAML 1.2 reads yes/no/on/off as strings, write true or false",
  ],
  "type-empty-value.yaml": [
    "type-empty-value.yaml:2:7: model: expected a mapping, got nothing (the key has no value)",
  ],
  "type-env-number.yaml": [
    "type-env-number.yaml:2:9: env.PORT: expected a string, got an integer (3000)",
  ],
  "type-extends-number.yaml": [
    "type-extends-number.yaml:1:10: extends: expected a string or a list, got an integer (3)",
  ],
  "type-limits-range.yaml": [
    "type-limits-range.yaml:2:13: limits.maxTurns: must be greater than 0, got an integer (0)",
    "type-limits-range.yaml:3:17: limits.maxBudgetUsd: must be greater than 0, got an integer (-1)",
  ],
  "type-max-tokens-string.yaml": [
    "type-max-tokens-string.yaml:3:14: model.maxTokens: expected an integer, got a string (\"lots\")",
  ],
  "type-model-string.yaml": [
    "type-model-string.yaml:1:8: model: expected a mapping, got a string (\"claude-sonnet-4-5\"); write model: { name: claude-sonnet-4-5 }",
  ],
  "type-tools-string.yaml": [
    "type-tools-string.yaml:1:8: tools: expected a list, got a string (\"Read\"); write [Read] for a list of one",
  ],
  "union-thinking-bad-type.yaml": [
    "union-thinking-bad-type.yaml:3:11: model.thinking.type: \"enable\" is not one of enabled, adaptive, disabled; did you mean \"enabled\"?",
  ],
  "union-thinking-missing-budget.yaml": [
    "union-thinking-missing-budget.yaml:2:3: model.thinking: missing required key \"budget_tokens\"",
  ],
  "union-thinking-small-budget.yaml": [
    "union-thinking-small-budget.yaml:3:45: model.thinking.budget_tokens: must be at least 1024, got an integer (512)",
  ],
  "unknown-automode-key.yaml": [
    "unknown-automode-key.yaml:2:3: unknown key \"softDeny\" in autoMode; did you mean \"soft_deny\"?",
  ],
  "unknown-hook-event.yaml": [
    "unknown-hook-event.yaml:2:3: unknown key \"BeforeTool\" in hooks (expected one of: PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest, UserPromptSubmit, Stop, SubagentStart, SubagentStop, PreCompact, PostCompact, SessionStart, SessionEnd, Notification)",
  ],
  "unknown-hook-handler-key.yaml": [
    "unknown-hook-handler-key.yaml:6:11: unknown key \"commnd\" in hooks.PreToolUse.0.hooks.0; did you mean \"command\"?",
  ],
  "unknown-limits.yaml": [
    "unknown-limits.yaml:2:3: unknown key \"max_turns\" in limits; did you mean \"maxTurns\"?",
  ],
  "unknown-misplaced.yaml": [
    "unknown-misplaced.yaml:2:1: unknown key \"allow\" at the top level; it belongs under permissions (permissions.allow)",
  ],
  "unknown-model.yaml": [
    "unknown-model.yaml:2:3: unknown key \"nmae\" in model; did you mean \"name\"?",
  ],
  "unknown-permissions.yaml": [
    "unknown-permissions.yaml:3:3: unknown key \"alow\" in permissions; did you mean \"allow\"?",
  ],
  "unknown-plugin-option.yaml": [
    "unknown-plugin-option.yaml:3:5: plugins[\"../plugins/greeter.ts\"].greting: unknown option \"greting\" for plugin ../plugins/greeter.ts; did you mean \"greeting\"?",
    "unknown-plugin-option.yaml:4:14: plugins[\"../plugins/greeter.ts\"].style.lowd: unknown option \"lowd\" for plugin ../plugins/greeter.ts; did you mean \"loud\"?",
  ],
  "unknown-section-key.yaml": [
    "unknown-section-key.yaml:4:7: unknown key \"txt\" in system.sections.0; did you mean \"text\"?",
  ],
  "unknown-top.yaml": [
    "unknown-top.yaml:2:1: unknown key \"modle\" at the top level; did you mean \"model\"?",
  ],
};

describe('malformed preset corpus', () => {
  const files = readdirSync(BAD).sort();

  it('has at least 40 fixtures, each with its expected diagnostics', () => {
    expect(files.length).toBeGreaterThanOrEqual(40);
    expect(files.filter((f) => !(f in EXPECTED))).toEqual([]);
    expect(Object.keys(EXPECTED).filter((f) => !files.includes(f))).toEqual([]);
  });

  for (const file of files) {
    it(file, async () => {
      // Only HOME is set, so ${REIN_CORPUS_UNSET} is unset.
      const diagnostics = await validatePresetFile(join(BAD, file), { env: { HOME: '/home/test' } });
      const lines = diagnostics.map((d) => `${relative(BAD, d.file)}:${d.line}:${d.column}: ${d.message.split(FIXTURES).join('<fixtures>')}`);
      expect(lines).toEqual(EXPECTED[file]);
      expect(lines.length).toBeGreaterThan(0);
    });
  }
});
