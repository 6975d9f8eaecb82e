/** Reading a batch file: tasks with their line, paths resolved against the file's folder, and every problem named file:line. */
import { describe, expect, it } from 'vitest';
import { parseTasks } from '../tasks.js';

describe('parseTasks', () => {
  it('reads one task per line, skipping blank and # lines; relative paths are relative to the file', () => {
    const text = [
      '# tasks',
      '{"id": "a", "prompt": "Fix it", "cwd": "work/a", "check": "npm test"}',
      '',
      '{"prompt": "Add a flag", "repo": "../app", "rev": "v1"}',
      '{"prompt": "Remote", "repo": "https://example.org/app.git"}',
      '{"prompt": "Scp-like", "repo": "git@example.org:app.git", "rev": "main"}',
      '{"prompt": "Nowhere in particular"}',
    ].join('\n');
    expect(parseTasks(text, '/data/batch/tasks.jsonl')).toEqual([
      { id: 'a', line: 2, prompt: 'Fix it', cwd: '/data/batch/work/a', check: 'npm test' },
      { id: 'line-4', line: 4, prompt: 'Add a flag', repo: '/data/app', rev: 'v1' },
      { id: 'line-5', line: 5, prompt: 'Remote', repo: 'https://example.org/app.git', rev: 'HEAD' },
      { id: 'line-6', line: 6, prompt: 'Scp-like', repo: 'git@example.org:app.git', rev: 'main' },
      { id: 'line-7', line: 7, prompt: 'Nowhere in particular' },
    ]);
  });

  it('names every problem as file:line and runs nothing', () => {
    const text = [
      '{"prompt": "ok", "id": "x"}',
      'not json',
      '{"prompt": "   "}',
      '{"cwd": "a"}',
      '{"prompt": "p", "cmd": "x"}',
      '{"prompt": "p", "cwd": "a", "repo": "b"}',
      '{"prompt": "p", "rev": "v1"}',
      '{"prompt": "p", "id": "x"}',
      '{"prompt": 3}',
      '["a", "b"]',
      '"just a prompt"',
    ].join('\n');
    let message = '';
    try {
      parseTasks(text, 't.jsonl');
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message.split('\n')).toEqual([
      expect.stringMatching(/^t\.jsonl:2: not a JSON object \(.+\)$/),
      't.jsonl:3: prompt: must not be empty',
      't.jsonl:4: prompt: missing',
      't.jsonl:5: unknown field "cmd"; a task has id, prompt, cwd, repo, rev, check',
      't.jsonl:6: give either cwd (a directory) or repo (and rev), not both',
      't.jsonl:7: rev needs repo (the repository to check it out of)',
      't.jsonl:8: id "x" is also the id of line 1',
      expect.stringMatching(/^t\.jsonl:9: prompt: .*string/),
      't.jsonl:10: not a JSON object (a task is {"prompt": "...", "cwd": "DIR"}; this line is an array)',
      't.jsonl:11: not a JSON object (a task is {"prompt": "...", "cwd": "DIR"}; this line is a string)',
    ]);
  });

  it('a file with no task is an error', () => {
    expect(() => parseTasks('\n# nothing\n', 't.jsonl')).toThrow('t.jsonl: no tasks');
  });
});
