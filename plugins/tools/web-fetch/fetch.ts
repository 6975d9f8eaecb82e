/**
 * Fetching for WebFetch: size and time limits, redirects followed only within one host (a
 * redirect to another host is reported, not followed, so a fetch of a trusted host cannot be
 * bounced to an untrusted one), HTML turned into Markdown, binary content refused.
 */
import { ToolError } from '../../../kernel/index.js';
import { importExternal, timeoutSignal } from '../../../lib/index.js';

/** Redirects followed within one host. */
export const MAX_REDIRECTS = 10;

export interface FetchLimits {
  /** Largest body read, bytes. */
  maxBytes: number;
  /** Whole fetch (all redirects, the body), ms. */
  timeoutMs: number;
  signal: AbortSignal;
}

export type FetchOutcome =
  | { kind: 'page'; url: string; status: number; contentType: string; text: string; bytes: number }
  | { kind: 'redirect'; from: string; to: string; status: number };

/** True for hosts on this machine (left on http; everything else is upgraded to https). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

function sameSite(a: URL, b: URL): boolean {
  const strip = (h: string) => h.replace(/^www\./, '');
  return strip(a.hostname) === strip(b.hostname) && a.port === b.port;
}

const TEXT_TYPES = /^(text\/|application\/(json|xml|xhtml\+xml|javascript|ld\+json|rss\+xml|atom\+xml|x-yaml|yaml|toml))/;

async function readCapped(res: Response, maxBytes: number, url: string): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel();
    throw new ToolError(`${url} is ${declared} bytes, more than the ${maxBytes} bytes WebFetch reads.`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  if (!res.body) return Buffer.alloc(0);
  const reader = res.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new ToolError(`${url} sent more than the ${maxBytes} bytes WebFetch reads; the download was stopped.`);
    }
    chunks.push(Buffer.from(value));
  }
  return Buffer.concat(chunks);
}

/** Fetches `raw` within `limits`. Throws ToolError for anything the model should hear about. */
export async function fetchPage(raw: string, limits: FetchLimits): Promise<FetchOutcome> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ToolError(`Not a valid URL: ${raw}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ToolError(`Only http and https URLs can be fetched, not ${url.protocol}`);
  if (url.protocol === 'http:' && !isLoopback(url.hostname)) url.protocol = 'https:';
  if (url.username || url.password) throw new ToolError('URLs with credentials in them are not fetched.');

  const deadline = timeoutSignal(limits.signal, limits.timeoutMs);
  const signal = deadline.signal;
  const start = url;
  try {
    for (let hop = 0; ; hop++) {
      const res = await fetch(url, { redirect: 'manual', signal, headers: { accept: 'text/markdown, text/html;q=0.9, text/plain;q=0.8, */*;q=0.5', 'user-agent': 'rein-webfetch/1' } });
      if (res.status >= 300 && res.status < 400 && res.headers.get('location')) {
        await res.body?.cancel();
        const next = new URL(res.headers.get('location')!, url);
        if (!sameSite(start, next)) return { kind: 'redirect', from: url.href, to: next.href, status: res.status };
        if (hop >= MAX_REDIRECTS) throw new ToolError(`Too many redirects (more than ${MAX_REDIRECTS}) from ${start.href}.`);
        url = next;
        continue;
      }
      const contentType = (res.headers.get('content-type') ?? 'application/octet-stream').toLowerCase();
      const body = await readCapped(res, limits.maxBytes, url.href);
      if (!res.ok) {
        const snippet = body.toString('utf8').slice(0, 500);
        throw new ToolError(`${url.href} answered HTTP ${res.status} ${res.statusText}.${snippet ? `\n${snippet}` : ''}`);
      }
      if (!TEXT_TYPES.test(contentType)) throw new ToolError(`${url.href} is ${contentType}, not a text page; WebFetch reads HTML, text, JSON and XML only.`);
      const decoded = body.toString('utf8');
      // The HTML converter is loaded on the first HTML page, not when the tool is registered.
      const text = contentType.includes('html') ? (await importExternal<typeof import('node-html-markdown')>('node-html-markdown')).NodeHtmlMarkdown.translate(decoded) : decoded;
      return { kind: 'page', url: url.href, status: res.status, contentType, text, bytes: body.length };
    }
  } catch (err) {
    if (err instanceof ToolError) throw err;
    if (limits.signal.aborted) throw err;
    if (signal.aborted) throw new ToolError(`Fetching ${start.href} took longer than ${limits.timeoutMs / 1000} s and was stopped.`);
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new ToolError(`Fetching ${start.href} failed: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  } finally {
    deadline.clear();
  }
}
