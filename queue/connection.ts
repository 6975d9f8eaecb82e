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

/**
 * A command for the user to run on this queue (`rein worker`, `rein bench collect ID`, ...), in
 * backquotes: `words --queue URL`, with the URL as shown. When that hides a password, it says what
 * to put in place of `***` (the password itself is never printed).
 */
export function queueCommand(target: QueueTarget, words: string): string {
  const command = `\`${words} --queue ${target.shown}\``;
  return target.shown === target.url ? command : `${command} (with the password in place of ***)`;
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

/**
 * Throws InputError when `submittedBy` (a manifest's version) is not this rein's: its jobs are on
 * that version's queue, which this process does not wait on, so collecting here would call every
 * job gone. `what` names it in the message ("batch \"1f3c9a2e\"").
 */
export function sameVersion(what: string, submittedBy: string): void {
  const mine = reinVersion();
  if (submittedBy !== mine) throw new InputError(`${what} was submitted by rein ${submittedBy}, whose jobs are on queue ${queueName(submittedBy)}; this is rein ${mine}: collect it with rein ${submittedBy}`);
}

/** BullMQ, loaded from node_modules (it stays outside the command's bundle, and loads only for queue commands). */
export function bullmq(): Promise<typeof import('bullmq')> {
  return importExternal<typeof import('bullmq')>('bullmq');
}

/**
 * BullMQ's connection options for `target`: BullMQ's workers need `maxRetriesPerRequest: null`.
 * Also stops BullMQ's own console line about the server's eviction policy (below).
 */
export function bullConnection(target: QueueTarget): BullRedisOptions {
  dropBullmqEvictionWarning();
  return { ...target.options, maxRetriesPerRequest: null } as BullRedisOptions;
}

/**
 * The start of the line BullMQ 5–6 writes with `console.warn` on each of its connections to a
 * server whose maxmemory-policy is not `noeviction` (its RedisConnection's version check). rein
 * says it once, in its own words, when it opens the queue (openRedis).
 */
const BULLMQ_EVICTION_LINE = 'IMPORTANT! Eviction policy is ';
let evictionWarningDropped = false;

/** Leaves BULLMQ_EVICTION_LINE out of `console.warn`, once per process; every other line passes. */
function dropBullmqEvictionWarning(): void {
  if (evictionWarningDropped) return;
  evictionWarningDropped = true;
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].startsWith(BULLMQ_EVICTION_LINE)) return;
    warn.apply(console, args);
  };
}

/**
 * The line openRedis says for a server that may evict keys when its memory is full
 * (`maxmemory-policy` other than `noeviction`): Redis could then drop a job, its lock or a result,
 * and BullMQ asks for `noeviction` (https://docs.bullmq.io/guide/going-to-production#max-memory-policy).
 */
export function evictionWarning(target: QueueTarget, policy: string): string {
  return `Redis at ${target.shown} may remove keys when its memory is full (maxmemory-policy ${policy}), so jobs and results can be lost; the queue needs maxmemory-policy noeviction (redis-cli CONFIG SET maxmemory-policy noeviction, and in redis.conf)`;
}

/** Connection-level error codes (Node's net, dns and tls), in plain words. */
const CONNECT_PROBLEMS: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is redis-server running there, on that port?)',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be looked up (DNS)',
  ETIMEDOUT: 'no answer (a firewall, or the wrong host?)',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
  ECONNRESET: 'the server closed the connection',
  EPIPE: 'the server closed the connection',
};

/**
 * What went wrong with the Redis server, in one plain line, when `err` is an error of the
 * connection or an error reply of Redis (ioredis' ReplyError, redis-parser's ParserError, BullMQ's
 * version check); undefined for anything else (a fault in rein keeps its own message).
 *
 * The raw texts are ioredis' and Redis' (https://redis.io/docs/latest/develop/reference/protocol-spec/#simple-errors:
 * an error reply starts with an upper-case code such as NOAUTH, WRONGPASS, OOM, READONLY).
 */
export function redisProblem(err: unknown, target?: QueueTarget): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const e = err as NodeJS.ErrnoException & { hostname?: string };
  const first = e.message.split('\n')[0]!.trim();
  if (e.code === 'ETIMEDOUT' && target?.options.tls) return 'cannot connect: no TLS answer (rediss:// is for a server with TLS; a plain one is redis://)';
  if (e.code && CONNECT_PROBLEMS[e.code]) return `cannot connect: ${CONNECT_PROBLEMS[e.code]}${e.code === 'ENOTFOUND' && e.hostname ? ` "${e.hostname}"` : ''}`;
  if (e.code?.startsWith('ERR_SSL') || e.code === 'EPROTO' || /SSL routines|TLS/.test(first) && e.name !== 'ReplyError') {
    return 'the TLS handshake failed (rediss:// is for a server with TLS; redis:// for one without)';
  }
  if (e.name === 'ParserError' || /^Protocol error/.test(first)) return 'the server on that port does not answer in the Redis protocol (is it a Redis port?)';
  if (e.name === 'MaxRetriesPerRequestError' || first === 'Connection is closed.') return 'the connection was lost';
  const version = /^Redis version needs to be greater or equal than (\S+)\s+Current: (\S+)/.exec(first);
  if (version) return `it runs Redis ${version[2]}; the queue (BullMQ) needs Redis ${version[1]} or newer`;
  if (e.name !== 'ReplyError') return undefined;
  const db = target?.options.db ?? 0;
  if (/^NOAUTH/.test(first)) return 'it needs a password: give it in the URL, redis://:PASSWORD@HOST:PORT (or redis://USER:PASSWORD@HOST:PORT)';
  if (/^WRONGPASS|^ERR invalid password|^ERR AUTH/.test(first)) return 'it refused the user name or password in the URL';
  if (/DB index is out of range/.test(first)) return `it has no database ${db} (redis-server's \`databases\` setting says how many it has; the default is 16: /0 to /15)`;
  if (/^OOM/.test(first)) return 'it is out of memory (its maxmemory is reached); free memory there or raise maxmemory';
  if (/^READONLY/.test(first)) return 'it is a read-only replica; give the URL of the primary';
  if (/^NOPERM/.test(first)) return `the user in the URL may not run what the queue needs: ${first}`;
  if (/^MISCONF/.test(first)) return 'it refuses writes because it cannot save to disk (see its log)';
  if (/^LOADING/.test(first)) return 'it is still loading its data; try again in a moment';
  if (/^ERR unknown command/.test(first)) return `it does not know a command the queue needs (BullMQ needs Redis 5 or newer): ${first}`;
  if (/^WRONGTYPE/.test(first)) return `a key the queue uses holds another kind of value (is this database used by something else?): ${first}`;
  return `it answered an error: ${first}`;
}

/**
 * `err` as an InputError naming the queue's URL and what went wrong, when it is a Redis problem
 * (redisProblem); otherwise `err` itself. Commands run their queue work through this, so the
 * user reads one line ("rein: Redis at redis://HOST:PORT: ...", exit 2), never ioredis' text or stack.
 */
export function asQueueError(target: QueueTarget, err: unknown): unknown {
  const problem = redisProblem(err, target);
  return problem === undefined ? err : new InputError(queueProblemLine(target, problem));
}

/** A redisProblem as a line naming the URL: "cannot reach Redis at URL: why" or "Redis at URL: why". */
export function queueProblemLine(target: QueueTarget, problem: string): string {
  return problem.startsWith('cannot connect: ') ? `cannot reach Redis at ${target.shown}: ${problem.slice(16)}` : `Redis at ${target.shown}: ${problem}`;
}

/**
 * ioredis' AUTH error when the server has no password to check: Redis 6 and later ("AUTH
 * <password> called without any password configured for the default user"), Redis 5 ("Client
 * sent AUTH, but no password is set").
 */
const NO_PASSWORD_SET = /without any password configured|no password is set/;

/** `url` without its password (and its user name, when that is all that is left of it). */
export function urlWithoutPassword(url: string): string {
  const u = new URL(url);
  u.password = '';
  return u.toString();
}

/**
 * Opens a connection for rein's own keys, failing fast with a clear error when the server cannot
 * be reached (BullMQ's own connections retry for ever, which would hang a command on a typo), or
 * refuses the connection (a password, a database it does not have). Once connected, it
 * reconnects as ioredis does by default.
 *
 * A password given without a user name to a server that asks for none is dropped from
 * `target.options` (so neither this connection nor BullMQ's send it) and said once through
 * `opts.warn`, as one line: ioredis would print its own "[WARN] ..." line on every connection.
 * redis-cli warns in that case too, and so does rein: the server may not be the one meant, or
 * may have lost its password.
 *
 * A server whose `maxmemory-policy` is not `noeviction` is said once through `opts.warn`
 * (evictionWarning); BullMQ's own line for it, one per connection, is left out (bullConnection).
 *
 * @param opts.warn called with a line (no "rein: " prefix) about the URL that is not an error.
 * @throws InputError "cannot reach Redis at URL: why" when the first attempt fails (ioredis'
 *   connect() rejects then), or "Redis at URL: why" when the server answered with an error or
 *   not in Redis' protocol (see asQueueError).
 */
export async function openRedis(target: QueueTarget, opts: { warn?: (line: string) => void } = {}): Promise<Redis> {
  const password = target.options.password;
  if (password !== undefined && target.options.username === undefined) {
    // Asked on a connection of its own that connects without the password (no ready check: a
    // server that needs one refuses INFO until AUTH), as ioredis warns when AUTH at connect fails.
    const probe = await connect(target, { db: 0, password: undefined, enableReadyCheck: false });
    try {
      await probe.auth(password);
    } catch (err) {
      if (err instanceof Error && err.name === 'ReplyError' && NO_PASSWORD_SET.test(err.message)) {
        delete target.options.password;
        opts.warn?.(`Redis at ${target.shown} needs no password; the one in the URL is not used (anyone who can reach this server can use the queue)`);
      }
      // Any other answer (a wrong password): the connection below meets it and says so.
    } finally {
      probe.disconnect();
    }
  }
  return connect(target, {}, async (redis) => {
    // ioredis selects the database while connecting, and a refusal there is only an 'error' event
    // (the connection then stays on database 0): select it again, so a refusal fails here.
    if (target.options.db) await redis.select(target.options.db);
    await redis.ping();
  }).then(async (redis) => {
    if (opts.warn) {
      // A user whose ACL does not allow INFO: nothing to say (BullMQ's own check fails the same way).
      const info = await redis.info('memory').catch(() => '');
      const policy = /^maxmemory_policy:(\S+)/m.exec(info)?.[1];
      if (policy && policy !== 'noeviction') opts.warn(evictionWarning(target, policy));
    }
    return redis;
  });
}

/**
 * A connection to `target` with `overrides` of its options, once `ready` (commands that must
 * succeed before it counts as open) has resolved. Throws as openRedis does.
 */
async function connect(target: QueueTarget, overrides: RedisOptions, ready: (redis: Redis) => Promise<void> = async () => {}): Promise<Redis> {
  const { Redis } = await importExternal<typeof import('ioredis')>('ioredis');
  let connected = false;
  let lastError: Error | undefined;
  // The server answered, with a refusal or not in Redis' protocol: trying again cannot help.
  let refused = false;
  const redis = new Redis({
    ...target.options,
    ...overrides,
    lazyConnect: true,
    maxRetriesPerRequest: 3,
    connectTimeout: 5_000,
    // ioredis waits this long, ms, for a socket's 'close' after ending it, and keeps the process
    // alive meanwhile; a socket that had already closed (a refusal, a server that went away) kept
    // every failing command alive 2 s (the default) after its error.
    disconnectTimeout: 200,
    // Before the first connection: no more than three quick tries (connect() has rejected at the
    // first failure), none after a refusal. After: ioredis' default back-off.
    retryStrategy: (times) => (connected ? Math.min(times * 50, 2_000) : refused || times > 3 ? null : 200 * times),
  });
  redis.on('error', (err: Error) => {
    lastError = err;
    if (err.name === 'ReplyError' || err.name === 'ParserError') refused = true;
  });
  try {
    await redis.connect();
    await ready(redis);
    connected = true;
    return redis;
  } catch (err) {
    if (redis.status !== 'end') redis.disconnect();
    const why = lastError && redisProblem(lastError, target) !== undefined ? lastError : err;
    const mapped = asQueueError(target, why);
    throw mapped instanceof InputError ? mapped : new InputError(`cannot reach Redis at ${target.shown}: ${(why as Error).message.split('\n')[0]}`);
  }
}
