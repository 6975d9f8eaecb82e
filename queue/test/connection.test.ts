/** Queue URLs, and a Redis server that cannot be reached failing fast with one clear error. */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../lib/errors.js';
import { openRedis, parseQueueUrl, queueCommand, queueName, urlWithoutPassword } from '../connection.js';
import { freePort } from './harness.js';

describe('parseQueueUrl', () => {
  it('reads host, port, database, credentials and TLS; hides the password in messages', () => {
    expect(parseQueueUrl('redis://10.0.0.5:7000')).toMatchObject({ shown: 'redis://10.0.0.5:7000', options: { host: '10.0.0.5', port: 7000, db: 0 } });
    expect(parseQueueUrl('redis://queue.internal')).toMatchObject({ options: { host: 'queue.internal', port: 6379 } });
    const secret = parseQueueUrl('rediss://bench:s%40cret@[::1]:6380/3');
    expect(secret.options).toEqual({ host: '::1', port: 6380, db: 3, username: 'bench', password: 's@cret', tls: {} });
    expect(secret.shown).toBe('rediss://bench:***@[::1]:6380/3');
  });

  it('a command printed for the user says what goes in place of a hidden password (*** is no password)', () => {
    expect(queueCommand(parseQueueUrl('redis://10.0.0.5:7000'), 'rein worker')).toBe('`rein worker --queue redis://10.0.0.5:7000`');
    expect(queueCommand(parseQueueUrl('redis://:s3cret@10.0.0.5:7000'), 'rein batch collect 1f3c9a2e'))
      .toBe('`rein batch collect 1f3c9a2e --queue redis://:***@10.0.0.5:7000` (with the password in place of ***)');
  });

  it('anything else is an InputError saying what is expected', () => {
    for (const bad of ['localhost:6379', 'http://localhost:6379', 'redis://h:1/x', 'redis://h:1/-1']) {
      expect(() => parseQueueUrl(bad)).toThrow(InputError);
    }
    expect(() => parseQueueUrl('http://localhost:6379')).toThrow('expected redis://HOST:PORT');
  });

  it('urlWithoutPassword drops the password alone (what `rein worker --processes` passes on when the server needs none)', () => {
    expect(urlWithoutPassword('redis://:s3cret@10.0.0.5:7000/2')).toBe('redis://10.0.0.5:7000/2');
    expect(urlWithoutPassword('rediss://bench:s3cret@[::1]:6380')).toBe('rediss://bench@[::1]:6380');
  });

  it('the queue is named by the rein version, so workers of another version leave its jobs alone', () => {
    expect(queueName('1.2.3')).toBe('rein-1.2.3');
  });
});

describe('openRedis', () => {
  it('a server that is not there: InputError "cannot reach Redis at URL" after a few tries', async () => {
    const port = await freePort();
    const target = parseQueueUrl(`redis://127.0.0.1:${port}`);
    await expect(openRedis(target)).rejects.toThrow(new InputError(`cannot reach Redis at redis://127.0.0.1:${port}: connection refused (is redis-server running there, on that port?)`));
  });

  it('with a password and no server there: the same one error (asking whether the password is needed fails as the connection would)', async () => {
    const port = await freePort();
    const target = parseQueueUrl(`redis://:pw@127.0.0.1:${port}`);
    await expect(openRedis(target)).rejects.toThrow(new InputError(`cannot reach Redis at redis://:***@127.0.0.1:${port}: connection refused (is redis-server running there, on that port?)`));
  });
});
