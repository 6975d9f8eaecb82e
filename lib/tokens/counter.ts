/**
 * Token counters: how many input tokens the API bills for a block of a request.
 *
 * Two counters share one interface:
 * - `BYTE_COUNTER`, rein's documented estimate (estimate.ts): UTF-8 bytes / 4 for prose, / 2 for JSON,
 *   2,000 per image. Deterministic and easy to work out by hand; the simulator's default.
 * - `CALIBRATED_COUNTER`, fitted on provider-reported usage of real sessions (coefficients.ts, refit
 *   with `bench/calibration/refit.ts`). `rein bench` replays count with it, so a replayed prompt
 *   costs what the provider would bill.
 *
 * The calibrated formula. Every string the model reads (text, thinking, a tool_use's name and its
 * input as JSON, a tool_result's text, a tool definition as JSON, a system block) is described by
 * ten character-class counts, `f(s)` (see `textFeatures`); its tokens are `c · f(s)`, one weight per
 * class. Each block adds a constant for its type (the wire framing: role markers, ids, JSON
 * punctuation around the content), and the first block of each message adds the per-message
 * constant. A block's total is rounded to a whole number of tokens, at least 1 for a non-empty
 * block. Images follow the vision docs' rule, `width × height / 750` tokens after scaling the image
 * down to at most 1,568 px on its long edge and 1.15 megapixels
 * (https://platform.claude.com/docs/en/build-with-claude/vision#calculate-image-costs); an image
 * whose size cannot be read from its header counts `imageFallback`. Thinking signatures are opaque
 * and free (the fit gives them no weight).
 *
 * Why character classes: the tokenizer splits text into words, digit groups, punctuation runs and
 * whitespace runs, so tokens follow those counts much more closely than bytes do. Prose runs at
 * about 4.5 bytes a token, source code near 3, JSON and numbers near 2; one set of class weights
 * covers all of them.
 */
import { COEFFICIENTS } from './coefficients.js';
import { estimateBlockTokens, estimateToolTokens, MEDIA_BLOCK_TOKENS } from './estimate.js';

/** The character classes counted in a string, in the order of `TEXT_FEATURES`. */
export const TEXT_FEATURES = [
  'letters', 'words', 'digits', 'digitRuns', 'punct', 'newlines', 'spaces', 'spaceRuns', 'nonAscii', 'caseChanges',
] as const;
export type TextFeature = (typeof TEXT_FEATURES)[number];

/** Block types with a constant of their own. */
export const BLOCK_KINDS = ['text', 'thinking', 'tool', 'message'] as const;
export type BlockKind = (typeof BLOCK_KINDS)[number];

/** The fitted weights (coefficients.ts). */
export interface CounterCoefficients {
  /** Tokens per unit of each character class. */
  text: Record<TextFeature, number>;
  /**
   * Constant tokens per block: `text` (a text block, a prompt, a system block), `thinking`,
   * `tool` (each tool_use and each tool_result), `message` (once per message).
   */
  block: Record<BlockKind, number>;
  /** Tokens of an image whose dimensions cannot be read. */
  imageFallback: number;
  /** Where the weights came from (the traces and the fit), for the report. */
  source: string;
}

/**
 * Character-class counts of a string, in `TEXT_FEATURES` order: ASCII letters, letter runs
 * (words), digits, digit runs, ASCII punctuation and symbols, newlines, spaces, runs of two or more
 * spaces or tabs (indentation), non-ASCII code points, and lower-to-upper case changes (camelCase
 * joints). One pass over the string.
 */
export function textFeatures(s: string): number[] {
  let letters = 0, words = 0, digits = 0, digitRuns = 0, punct = 0, newlines = 0, spaces = 0, spaceRuns = 0, nonAscii = 0, caseChanges = 0;
  // 0 other, 1 letter, 2 digit, 3 blank
  let prev = 0;
  let blankRun = 0;
  let prevLower = false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    let kind = 0;
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) {
      letters++;
      if (prev !== 1) words++;
      const upper = c <= 90;
      if (upper && prevLower && prev === 1) caseChanges++;
      prevLower = !upper;
      kind = 1;
    } else if (c >= 48 && c <= 57) {
      digits++;
      if (prev !== 2) digitRuns++;
      kind = 2;
    } else if (c === 32 || c === 9) {
      if (c === 32) spaces++;
      blankRun++;
      if (blankRun === 2) spaceRuns++;
      kind = 3;
    } else if (c === 10) {
      newlines++;
    } else if (c < 128) {
      if (c > 32) punct++;
    } else if (c < 0xdc00 || c > 0xdfff) {
      // A code point: the low half of a surrogate pair is not counted again.
      nonAscii++;
    }
    if (kind !== 3) blankRun = 0;
    if (kind !== 1) prevLower = false;
    prev = kind;
  }
  return [letters, words, digits, digitRuns, punct, newlines, spaces, spaceRuns, nonAscii, caseChanges];
}

/** How a counter counts the parts of a request. All counts are tokens. */
export interface TokenCounter {
  /** `calibrated` or `bytes`. */
  readonly name: string;
  /** One content block (of a message, a tool_result's content or `system`); `first` adds the per-message constant. */
  block(block: unknown, first?: boolean): number;
  /** One entry of `tools`. */
  tool(tool: unknown): number;
}

/** rein's documented estimate (estimate.ts) as a counter: no per-message constant. */
export const BYTE_COUNTER: TokenCounter = Object.freeze({
  name: 'bytes',
  block: (b: unknown) => estimateBlockTokens(b),
  tool: (t: unknown) => estimateToolTokens(t),
});

type Obj = Record<string, unknown>;

/**
 * Feature vector of one block, as the calibrated counter sees it: the ten character classes of its
 * strings, then one count per block kind (BLOCK_KINDS order), then the image tokens (fixed by the
 * vision docs' formula, not fitted). `first` counts the message constant. Exported for the fit.
 */
export function blockFeatures(block: unknown, first = false, imageFallback = COEFFICIENTS.imageFallback): number[] {
  const v = new Array<number>(TEXT_FEATURES.length + BLOCK_KINDS.length + 1).fill(0);
  walkBlock(v, block, imageFallback);
  if (first) addKind(v, 'message');
  return v;
}

// The walk below is module functions that take the vector, not closures made per call: V8 drops
// the optimised code of a closure made afresh on every call at each full garbage collection and
// compiles it again, which a long-lived process (`rein worker`) paid every few replays.

function addText(v: number[], s: unknown): void {
  if (typeof s !== 'string' || !s) return;
  const f = textFeatures(s);
  for (let i = 0; i < TEXT_FEATURES.length; i++) v[i]! += f[i]!;
}

function addKind(v: number[], k: BlockKind): void {
  v[TEXT_FEATURES.length + BLOCK_KINDS.indexOf(k)]! += 1;
}

function walkBlock(v: number[], b: unknown, imageFallback: number): void {
  const media = TEXT_FEATURES.length + BLOCK_KINDS.length;
  if (typeof b === 'string') { addText(v, b); addKind(v, 'text'); return; }
  if (!b || typeof b !== 'object') return;
  const o = b as Obj;
  switch (o.type) {
    case 'text': addText(v, o.text); addKind(v, 'text'); return;
    case 'thinking': addText(v, o.thinking); addKind(v, 'thinking'); return;
    case 'redacted_thinking': addKind(v, 'thinking'); return;
    case 'tool_use':
    case 'server_tool_use':
      addText(v, o.name);
      addText(v, JSON.stringify(o.input ?? {}));
      addKind(v, 'tool');
      return;
    case 'tool_result':
      addKind(v, 'tool');
      if (typeof o.content === 'string') addText(v, o.content);
      else if (Array.isArray(o.content)) for (const c of o.content) walkInner(v, c, imageFallback);
      return;
    case 'image':
      v[media]! += imageTokens(o, imageFallback);
      return;
    case 'document':
      v[media]! += MEDIA_BLOCK_TOKENS;
      return;
    default: {
      const { cache_control: _cc, ...rest } = o;
      addText(v, JSON.stringify(rest));
      addKind(v, 'text');
    }
  }
}

/** A block inside a tool_result: its text, without a block constant of its own. */
function walkInner(v: number[], b: unknown, imageFallback: number): void {
  const media = TEXT_FEATURES.length + BLOCK_KINDS.length;
  if (!b || typeof b !== 'object') { addText(v, b); return; }
  const o = b as Obj;
  if (o.type === 'text') addText(v, o.text);
  else if (o.type === 'image') v[media]! += imageTokens(o, imageFallback);
  else if (o.type === 'document') v[media]! += MEDIA_BLOCK_TOKENS;
  else { const { cache_control: _cc, ...rest } = o; addText(v, JSON.stringify(rest)); }
}

/** Weight vector in `blockFeatures` order (the image slot has weight 1). */
export function weightVector(c: CounterCoefficients = COEFFICIENTS): number[] {
  return [...TEXT_FEATURES.map((k) => c.text[k]), ...BLOCK_KINDS.map((k) => c.block[k]), 1];
}

function dot(a: readonly number[], b: readonly number[]): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** Builds a calibrated counter from coefficients (the committed ones by default). */
export function calibratedCounter(c: CounterCoefficients = COEFFICIENTS): TokenCounter {
  const w = weightVector(c);
  const count = (f: number[], nonEmpty: boolean) => {
    const t = Math.round(dot(w, f));
    return nonEmpty ? Math.max(1, t) : Math.max(0, t);
  };
  return Object.freeze({
    name: 'calibrated',
    block(block: unknown, first = false): number {
      const f = blockFeatures(block, first, c.imageFallback);
      return count(f, !(typeof block === 'string' && block.length === 0));
    },
    tool(tool: unknown): number {
      // A deferred tool is not in the prompt until a tool_reference loads it (estimateToolTokens).
      if (!tool || typeof tool !== 'object' || (tool as Obj).defer_loading === true) return 0;
      const { cache_control: _cc, ...rest } = tool as Obj;
      const f = textFeatures(JSON.stringify(rest));
      return Math.max(1, Math.round(dot(w, [...f, 0, 0, 0, 0, 0])));
    },
  });
}

/** The calibrated counter with the committed coefficients. */
export const CALIBRATED_COUNTER: TokenCounter = calibratedCounter();

/** Counters by name (`rein sim serve --token-counter`, bench options). */
export const TOKEN_COUNTERS: Readonly<Record<'bytes' | 'calibrated', TokenCounter>> = Object.freeze({ bytes: BYTE_COUNTER, calibrated: CALIBRATED_COUNTER });

// ---------------------------------------------------------------------------------------------
// Image size from the file header (PNG, JPEG, GIF, WebP), for the vision docs' formula.

/** Longest edge an image keeps before the API scales it down, px (vision docs). */
export const IMAGE_MAX_EDGE_PX = 1568;
/** Largest image area kept before scaling down, px² (vision docs: about 1.15 megapixels). */
export const IMAGE_MAX_PIXELS = 1_150_000;
/** Pixels per token (vision docs: tokens = width × height / 750). */
export const IMAGE_PIXELS_PER_TOKEN = 750;

function imageTokens(block: Obj, fallback: number): number {
  const src = block.source as Obj | undefined;
  const data = src && src.type === 'base64' && typeof src.data === 'string' ? src.data : undefined;
  const dims = data ? imageSize(Buffer.from(data.slice(0, 64_000), 'base64')) : undefined;
  if (!dims) return fallback;
  let { width, height } = dims;
  const edge = Math.max(width, height);
  if (edge > IMAGE_MAX_EDGE_PX) { const k = IMAGE_MAX_EDGE_PX / edge; width *= k; height *= k; }
  if (width * height > IMAGE_MAX_PIXELS) { const k = Math.sqrt(IMAGE_MAX_PIXELS / (width * height)); width *= k; height *= k; }
  return Math.ceil((width * height) / IMAGE_PIXELS_PER_TOKEN);
}

/** Width and height in px from an image file's first bytes; undefined for an unknown format. */
export function imageSize(b: Buffer): { width: number; height: number } | undefined {
  if (b.length >= 24 && b.readUInt32BE(0) === 0x89504e47) return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
  if (b.length >= 10 && b.toString('latin1', 0, 3) === 'GIF') return { width: b.readUInt16LE(6), height: b.readUInt16LE(8) };
  if (b.length >= 30 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') {
    const chunk = b.toString('latin1', 12, 16);
    if (chunk === 'VP8X') return { width: 1 + b.readUIntLE(24, 3), height: 1 + b.readUIntLE(27, 3) };
    if (chunk === 'VP8 ') return { width: b.readUInt16LE(26) & 0x3fff, height: b.readUInt16LE(28) & 0x3fff };
    if (chunk === 'VP8L') { const n = b.readUInt32LE(21); return { width: 1 + (n & 0x3fff), height: 1 + ((n >> 14) & 0x3fff) }; }
    return undefined;
  }
  if (b.length >= 4 && b[0] === 0xff && b[1] === 0xd8) {
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return undefined;
      const marker = b[i + 1]!;
      const len = b.readUInt16BE(i + 2);
      // SOF0..SOF15 except DHT (C4), JPG (C8), DAC (CC) carry the frame size.
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) };
      }
      i += 2 + len;
    }
  }
  return undefined;
}

/**
 * Tokens of a whole request with `counter`: every tool, every system block, every message block
 * (the first block of each message carries the per-message constant). What `count_tokens` reports.
 */
export function countRequestTokens(counter: TokenCounter, request: { tools?: readonly unknown[] | null; system?: string | readonly unknown[] | null; messages: ReadonlyArray<{ content: string | readonly unknown[] }> }): number {
  let n = 0;
  for (const t of request.tools ?? []) n += counter.tool(t);
  const system = request.system;
  if (typeof system === 'string') { if (system) n += counter.block(system); } else if (system) for (const b of system) n += counter.block(b);
  for (const m of request.messages) {
    if (typeof m.content === 'string') n += counter.block(m.content, true);
    else m.content.forEach((b, i) => { n += counter.block(b, i === 0); });
  }
  return n;
}
