import { describe, expect, it } from 'vitest';
import { isReadOnlyCommand } from './read-only.js';

describe('isReadOnlyCommand', () => {
  const readOnly = [
    'ls -la', 'ls && echo "---" && ls', 'cat a.txt | grep foo | wc -l', 'git status', 'git log --oneline -5',
    'git diff HEAD~1 -- src', 'git -C sub status', 'find . -name "*.ts"', 'grep -rn TODO src 2>/dev/null',
    'head -20 file 2>&1', 'echo $(git rev-parse HEAD)', 'for f in *.ts; do wc -l "$f"; done', 'X=1 ls',
    'node --version', 'sort -u list.txt', 'git branch -a', 'test -f x && cat x',
  ];
  const writes = [
    'git push', 'rm -rf build', 'echo hi > out.txt', 'cat a >> b', 'npm test', 'cd src && ls', 'ls &',
    'find . -delete', 'find . -exec rm {} ;', 'sort -o out.txt in.txt', 'git branch new-feature', 'git -c core.pager=sh log',
    'echo $(rm -rf x)', '$CMD', 'eval "ls"', 'ls > "$OUT"', 'date -s 2020-01-01', 'git diff --output=x', 'uniq a b',
    'echo "unterminated', 'tee file', 'sed -i s/a/b/ f', 'cat <(ls)', 'git config user.name x',
  ];
  for (const c of readOnly) it(`read-only: ${c}`, () => expect(isReadOnlyCommand(c)).toBe(true));
  for (const c of writes) it(`not read-only: ${c}`, () => expect(isReadOnlyCommand(c)).toBe(false));
});
