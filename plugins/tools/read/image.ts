/**
 * Images Read returns, checked against the Messages API's limits before they enter the history:
 * an image the API rejects would be sent again with every later request (and on every resume), so
 * every one of them would fail. A refused image is an error result that says how to make one that
 * fits.
 *
 * Limits (https://platform.claude.com/docs/en/build-with-claude/vision, "Before you upload"):
 * at most 8,000 × 8,000 px; when a request holds more than 20 images, at most 2,000 × 2,000 px each.
 * The API also refuses an image whose bytes are not of the media type it is sent as, so the type is
 * taken from the bytes, not from the file name. (The 5 MB base64 limit is checked before reading:
 * see MAX_IMAGE_BYTES in tool.ts.)
 */
import { imageSize } from 'image-size';
import { ToolError, type ContentBlock, type Message } from '../../../kernel/index.js';

/** Largest side of an image, pixels (vision docs: images larger than 8000x8000 px are rejected). */
export const MAX_IMAGE_SIDE_PX = 8_000;
/** A request may hold this many images before the smaller limit applies (vision docs: more than 20 images). */
export const MANY_IMAGES = 20;
/** Largest side of each image once a request holds more than MANY_IMAGES, pixels (vision docs: 2000x2000 px). */
export const MANY_IMAGES_SIDE_PX = 2_000;

type MediaType = 'image/png' | 'image/jpeg' | 'image/gif' | 'image/webp';
const MEDIA: Readonly<Record<string, MediaType>> = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };

/** Width, height and media type from an image's bytes, or undefined when they are not an image it can read. */
export function probeImage(bytes: Uint8Array): { width: number; height: number; type: string; mediaType?: MediaType } | undefined {
  try {
    const s = imageSize(bytes);
    if (!s.width || !s.height || !s.type) return undefined;
    return { width: s.width, height: s.height, type: s.type, mediaType: MEDIA[s.type] };
  } catch {
    return undefined;
  }
}

/** Base64 image blocks in `messages`, tool results included. */
function imagesIn(messages: readonly Message[]): { data: string }[] {
  const out: { data: string }[] = [];
  const visit = (blocks: readonly ContentBlock[] | string | undefined) => {
    if (!Array.isArray(blocks)) return;
    for (const b of blocks) {
      if (b.type === 'image' && (b as { source?: { type?: string; data?: string } }).source?.type === 'base64') out.push({ data: (b as { source: { data: string } }).source.data });
      else if (b.type === 'tool_result') visit((b as { content?: ContentBlock[] | string }).content);
    }
  };
  for (const m of messages) visit(m.content);
  return out;
}

/** Base64 characters decoded to find an image's size: its header, not its pixels. */
const HEADER_BASE64_CHARS = 256 * 1024;

/**
 * The image block for `bytes` read from `path`, or a ToolError saying why the API would refuse it.
 * `history` is the conversation it would join (for the many-images limit).
 */
export function imageBlock(path: string, bytes: Buffer, history: readonly Message[]): ContentBlock {
  const probe = probeImage(bytes);
  if (!probe) throw new ToolError(`Cannot read ${path}: its bytes are not a PNG, JPEG, GIF or WebP image that can be decoded (a damaged file, or another format under an image name).`);
  if (!probe.mediaType) throw new ToolError(`Cannot read ${path}: it is a ${probe.type.toUpperCase()} image, and the API takes PNG, JPEG, GIF and WebP only. Convert it first (for example \`convert ${path} out.png\` with ImageMagick, through Bash) and read the copy.`);
  const side = Math.max(probe.width, probe.height);
  const size = `${probe.width} × ${probe.height} pixels`;
  if (side > MAX_IMAGE_SIDE_PX) {
    throw new ToolError(`Image ${path} is ${size}; the API rejects images over ${MAX_IMAGE_SIDE_PX} pixels on a side. Make a smaller copy (for example \`convert ${path} -resize ${MAX_IMAGE_SIDE_PX}x${MAX_IMAGE_SIDE_PX} small.png\` with ImageMagick, through Bash) and read that.`);
  }
  const earlier = imagesIn(history);
  if (earlier.length + 1 > MANY_IMAGES) {
    if (side > MANY_IMAGES_SIDE_PX) {
      throw new ToolError(`Image ${path} is ${size}; with more than ${MANY_IMAGES} images in the conversation the API takes at most ${MANY_IMAGES_SIDE_PX} pixels on a side. Make a smaller copy (\`convert ${path} -resize ${MANY_IMAGES_SIDE_PX}x${MANY_IMAGES_SIDE_PX} small.png\`) and read that.`);
    }
    // The smaller limit applies to the images already there too: one of them over it would fail every request from now on.
    const big = earlier.find((im) => {
      const p = probeImage(Buffer.from(im.data.slice(0, HEADER_BASE64_CHARS), 'base64'));
      return p !== undefined && Math.max(p.width, p.height) > MANY_IMAGES_SIDE_PX;
    });
    if (big) throw new ToolError(`Cannot add ${path}: the conversation already holds ${earlier.length} images, one of them over ${MANY_IMAGES_SIDE_PX} pixels on a side, and with more than ${MANY_IMAGES} images the API rejects any image that large. Describe what you need from this image another way, or compact the conversation first.`);
  }
  return { type: 'image', source: { type: 'base64', media_type: probe.mediaType, data: bytes.toString('base64') } } as ContentBlock;
}
