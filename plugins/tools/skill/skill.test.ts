import { describe, expect, it } from 'vitest';
import { parseFrontmatter, splitList, FrontmatterError } from '../shared/frontmatter.js';
import { allowedBy } from './allowed.js';
import { formatListing, listedNames, listingBudget } from './listing.js';
import { reinjection, type Skill } from './index.js';

const at = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    if (e instanceof FrontmatterError) return `${e.line}:${e.column} ${e.problem}`;
    throw e;
  }
  return 'no error';
};

describe('frontmatter', () => {
  it('keeps unknown fields and the body, and reports errors at their line and column in the file', () => {
    const fm = parseFrontmatter('---\nname: x\nlicense: MIT\nmetadata: { a: 1 }\n---\n\n# Body\n', 'S.md');
    expect(fm.data).toEqual({ name: 'x', license: 'MIT', metadata: { a: 1 } });
    expect(fm.body).toBe('# Body');
    expect(fm.position('license')).toEqual({ line: 3, column: 10 });
    expect(at(() => parseFrontmatter('---\nname: x\n  bad: indent\n---\n', 'S.md'))).toMatch(/^2:7 invalid YAML/);
    expect(at(() => parseFrontmatter('---\nname: x\nname: y\n---\n', 'S.md'))).toMatch(/^3:1 invalid YAML.*unique/i);
    expect(at(() => parseFrontmatter('---\n- a\n---\n', 'S.md'))).toBe('2:1 the frontmatter must be a mapping of fields (name: value), not a list or a single value');
    expect(at(() => parseFrontmatter('---\nname: x\n', 'S.md'))).toMatch(/^1:1 the frontmatter opened by --- on line 1 is never closed/);
    expect(parseFrontmatter('no frontmatter\n', 'S.md').data).toEqual({});
  });

  it('splits one-line lists at commas outside parentheses, else at spaces', () => {
    expect(splitList('Read, Bash(git add:*, git commit:*), Grep')).toEqual(['Read', 'Bash(git add:*, git commit:*)', 'Grep']);
    expect(splitList('Bash(git log:*) Read')).toEqual(['Bash(git log:*)', 'Read']);
  });
});

describe('allowed-tools', () => {
  it('matches tool names, prefixes of commands and server wildcards', () => {
    const rules = ['Read', 'Bash(git log:*)', 'mcp__docs__*', 'WebFetch(https://example.com/*)'];
    expect(allowedBy(rules, 'Read', { file_path: 'a' })).toBe(true);
    expect(allowedBy(rules, 'Bash', { command: 'git log -1' })).toBe(true);
    expect(allowedBy(rules, 'Bash', { command: 'git push' })).toBe(false);
    expect(allowedBy(rules, 'mcp__docs__search', {})).toBe(true);
    expect(allowedBy(rules, 'mcp__other__x', {})).toBe(false);
    expect(allowedBy(rules, 'WebFetch', { url: 'https://example.com/a' })).toBe(true);
    expect(allowedBy(rules, 'Write', { file_path: 'a' })).toBe(false);
  });
});

describe('listing', () => {
  it('budgets 1% of the window at 4 characters per token', () => {
    expect(listingBudget(200_000)).toBe(8_000);
    expect(listingBudget(1_000_000)).toBe(40_000);
  });

  it('chooses level 1, 2 or 3, and a listing can be read back', () => {
    const entries = Array.from({ length: 400 }, (_, i) => ({ name: `s${i}`, description: 'd'.repeat(200) }));
    expect(formatListing(entries.slice(0, 10), 8_000).level).toBe(1);
    const two = formatListing(entries.slice(0, 40), 8_000);
    expect(two.level).toBe(2);
    expect(two.lines.length).toBeLessThanOrEqual(8_000);
    expect(formatListing(entries, 8_000).level).toBe(3);
    expect(formatListing([{ name: 'x', description: 'y'.repeat(600) }], 8_000).lines).toHaveLength('- x: '.length + 250);
    expect(listedNames('intro\n- a: one\n- review:pr: two\n- c\n')).toEqual(['a', 'review:pr', 'c']);
  });
});

describe('re-injection after compaction', () => {
  it('7 skills of ~6,000 tokens: each cut to 5,000, the 5 newest fit in 25,000, the 2 oldest are dropped', () => {
    const skill = (name: string) => ({ name, file: `/s/${name}/SKILL.md` }) as Skill;
    const invoked = Array.from({ length: 7 }, (_, i) => ({ skill: skill(`k${i}`), content: `${i}`.repeat(24_000), seq: i }));
    const text = reinjection(invoked, 5_000, 25_000)!;
    expect([...text.matchAll(/### Skill: (k\d)/g)].map((m) => m[1])).toEqual(['k6', 'k5', 'k4', 'k3', 'k2']);
    expect(text).toContain('[... skill truncated after 5000 tokens');
    expect(reinjection([], 5_000, 25_000)).toBeUndefined();
  });
});
