/**
 * Where the job queue lives: a Redis server named by a `redis://` URL, and the BullMQ queue on it
 * that rein's workers of one version serve.
 *
 * BullMQ (https://docs.bullmq.io) stores jobs, their states, locks and results in Redis; rein adds
 * a few keys of its own under `rein:` (the workloads a benchmark sends, a benchmark's list of jobs).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RedisOptions as BullRedisOptions } from 'bullmq';
import type { Redis, RedisOptions } from 'ioredis';
import { reinRoot } from '../agent/preset/paths.js';
import { InputError } from '../lib/errors.js';
import { importExternal } from '../lib/node/import-external.js';

/** A Redis server to queue jobs on. */
export interface QueueTarget {
  /** The URL as given. */
  url: string;
  /** The URL without its password, for messages. */
  shown: string;
  /** Connection options for ioredis (and so for BullMQ, which opens its own connections with them). */
  options: RedisOptions;
}

/** The default Redis port (https://redis.io/docs/latest/operate/oss_and_stack/management/config/). */
const REDIS_PORT = 6379;

/**
 * Reads a queue URL: `redis://[[user]:password@]host[:port][/db]`, or `rediss://` for TLS.
 * Throws InputError for anything else.
 */
export function parseQueueUrl(url: string): QueueTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new InputError(`--queue: "${url}" is not a URL; expected redis://HOST:PORT (or rediss://HOST:PORT for TLS)`);
  }
  if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') {
    throw new InputError(`--queue: "${url}" is not a Redis URL; expected redis://HOST:PORT (or rediss://HOST:PORT for TLS)`);
  }
  const dbText = u.pathname.replace(/^\//, '');
  const db = dbText ? Number(dbText) : 0;
  if (!Number.isInteger(db) || db < 0) throw new InputError(`--queue: "${dbText}" in "${url}" is not a database number (redis://HOST:PORT/0)`);
  const host = (u.hostname || '127.0.0.1').replace(/^\[(.*)\]$/, '$1');
  const options: RedisOptions = { host, port: u.port ? Number(u.port) : REDIS_PORT, db };
  if (u.username) options.username = decodeURIComponent(u.username);
  if (u.password) options.password = decodeURIComponent(u.password);
  if (u.protocol === 'rediss:') options.tls = {};
  const shown = u.password ? url.replace(`:${u.password}@`, ':***@') : url;
  return { url, shown, options };
}

let versionCache: string | undefined;

/** rein's version (package.json), part of every job's key: a result is reused only by the version that made it. */
export function reinVersion(): string {
  versionCache ??= (JSON.parse(readFileSync(join(reinRoot(), 'package.json'), 'utf8')) as { version: string }).version;
  return versionCache;
}

/**
 * The BullMQ queue that workers of this rein version serve. Workers of another version serve
 * another queue, so no job is replayed by a rein that would compute it differently.
 */
export function queueName(version = reinVersion()): string {
  return `rein-${version}`;
}

/** BullMQ, loaded from node_modules (it stays outside the command's bundle, and loads only for queue commands). */
export function bullmq(): Promise<typeof import('bullmq')> {
  return importExternal<typeof import('bullmq')>('bullmq');
}

/** BullMQ's connection options for `target`: BullMQ's workers need `maxRetriesPerRequest: null`. */
export function bullConnection(target: QueueTarget): BullRedisOptions {
  return { ...target.options, maxRetriesPerRequest: null } as BullRedisOptions;
}

/**
 * Opens a connection for rein's own keys, failing fast with a clear error when the server cannot
 * be reached (BullMQ's own connections retry for ever, which would hang a command on a typo).
 * Once connected, it reconnects as ioredis does by default.
 *
 * @throws InputError "cannot reach Redis at URL: why" after a few attempts (about 2 s).
 */
export async function openRedis(target: QueueTarget): Promise<Redis> {
  const { Redis } = await importExternal<typeof import('ioredis')>('ioredis');
  let connected = false;
  let lastError = '';
  const redis = new Redis({
    ...target.options,
    lazyConnect: true,
    maxRetriesPerRequest: 3,
    connectTimeout: 5_000,
    // Before the first connection: three quick tries, then give up. After: ioredis' default back-off.
    retryStrategy: (times) => (connected ? Math.min(times * 50, 2_000) : times > 3 ? null : 200 * times),
  });
  redis.on('error', (err: Error) => { lastError = err.message; });
  try {
    await redis.connect();
    await redis.ping();
    connected = true;
    return redis;
  } catch (err) {
    redis.disconnect();
    throw new InputError(`cannot reach Redis at ${target.shown}: ${lastError || (err as Error).message}`);
  }
}
