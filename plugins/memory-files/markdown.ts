/**
 * The two Markdown operations memory files need, done on lines rather than a full parse: stripping
 * HTML comments and finding `@path` includes, both outside fenced code blocks and inline code spans
 * (a comment or an `@` inside code is content, not markup).
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** Splits text into runs: `code` (fenced blocks, fences included) and `prose`. */
function runs(text: string): { code: boolean; text: string }[] {
  const lines = text.split(/(?<=\n)/);
  const out: { code: boolean; text: string }[] = [];
  let fence: string | undefined;
  let buf = '';
  let bufCode = false;
  const flush = () => { if (buf) out.push({ code: bufCode, text: buf }); buf = ''; };
  for (const line of lines) {
    const m = FENCE.exec(line);
    if (!fence && m) {
      flush();
      fence = m[1]![0]!.repeat(m[1]!.length);
      bufCode = true;
      buf = line;
      continue;
    }
    if (fence) {
      buf += line;
      const close = FENCE.exec(line);
      if (close && close[1]![0] === fence[0] && close[1]!.length >= fence.length && line.trim() === close[1]) {
        flush();
        fence = undefined;
        bufCode = false;
      }
      continue;
    }
    buf += line;
  }
  flush();
  return out;
}

/** Replaces inline code spans with spaces of the same length (so offsets stay), for scanning. */
function maskCodeSpans(text: string): string {
  return text.replace(/(`+)[^`]*?\1/g, (m) => ' '.repeat(m.length));
}

/**
 * Removes HTML comments (`<!-- … -->`) outside code. An unclosed `<!--` is kept with everything after
 * it (a typo must not silently swallow the rest of the file); text after a comment on the same line
 * is kept. Text without `<!--` is returned unchanged (same string).
 */
export function stripHtmlComments(text: string): string {
  if (!text.includes('<!--')) return text;
  return runs(text).map((r) => {
    if (r.code || !r.text.includes('<!--')) return r.text;
    const masked = maskCodeSpans(r.text);
    let out = '';
    let i = 0;
    for (;;) {
      const start = masked.indexOf('<!--', i);
      if (start < 0) { out += r.text.slice(i); break; }
      const end = masked.indexOf('-->', start + 4);
      if (end < 0) { out += r.text.slice(i); break; }
      out += r.text.slice(i, start);
      i = end + 3;
      // A comment alone on its line leaves no blank line behind.
      if ((start === 0 || r.text[start - 1] === '\n') && r.text[i] === '\n') i++;
    }
    return out;
  }).join('');
}

const INCLUDE = /(?:^|\s)@((?:[^\s\\]|\\ )+)/g;

/**
 * The `@path` includes of a memory file, in order: `@path`, `@./path`, `@~/path`, `@/abs/path`;
 * a `#fragment` is dropped and `\ ` is an escaped space. Code blocks and code spans are skipped.
 */
export function findIncludes(text: string): string[] {
  const out: string[] = [];
  for (const r of runs(text)) {
    if (r.code) continue;
    for (const m of maskCodeSpans(r.text).matchAll(INCLUDE)) {
      let p = m[1]!.replace(/\\ /g, ' ');
      const hash = p.indexOf('#');
      if (hash >= 0) p = p.slice(0, hash);
      // Trailing punctuation of a sentence is not part of a path.
      p = p.replace(/[.,;:!?)]+$/, '');
      if (p && !p.startsWith('@') && !out.includes(p)) out.push(p);
    }
  }
  return out;
}
