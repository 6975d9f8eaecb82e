/**
 * An image the API would reject never enters the history: Read refuses one over 8,000 pixels on a
 * side (2,000 once the conversation holds more than 20 images) with an error result that says how
 * to make a smaller copy, and sends an image as the type its bytes are, not its file name's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { startAgent } from '../../../testing/agent.js';
import { useTestEnv } from '../../../testing/env.js';

const env = useTestEnv({ prefix: 'rein-img-' });

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf: Buffer): number {
  let c = 0xffffffff;
  for (const b of buf) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Buffer): Buffer {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([len, body, crc]);
}
/** A valid grey PNG of `width` × `height` pixels. */
function png(width: number, height: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 0, 0, 0, 0], 8); // 8-bit greyscale
  const rows = Buffer.alloc((width + 1) * height, 0x80);
  for (let y = 0; y < height; y++) rows[y * (width + 1)] = 0;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

type Block = { type: string; is_error?: boolean; content?: { type: string; text?: string; source?: { media_type: string } }[] };
const results = (events: { type: string; message?: { content: unknown[] } }[]) => events.flatMap((e) => (e.type === 'tool_results' ? e.message!.content : [])) as Block[];
const hasImage = (body: Record<string, any>) => JSON.stringify(body.messages).includes('"type":"image"');

const PRESET = { name: 'img', model: { name: 'claude-sonnet-4-6' }, tools: ['Read'], permissions: { allow: ['Read'] } };

describe('Read and the API image limits', () => {
  it('refuses a 9,000-pixel-wide image before it enters the history; later requests carry no image', async () => {
    writeFileSync(join(env.dir, 'wide.png'), png(9000, 4));
    const rig = await startAgent({
      cwd: env.dir, preset: PRESET,
      scenario: 'turns:\n  - reply: [{ tool_use: { name: Read, input: { file_path: wide.png } } }]\n  - reply: [{ text: "Too wide." }]\n',
    });
    try {
      const { events, result } = await rig.run('Look at wide.png');
      expect(result.terminalReason).toBe('end_turn');
      const [r] = results(events as never);
      expect(r).toMatchObject({ is_error: true });
      expect(r!.content![0]!.text).toMatch(/is 9000 × 4 pixels; the API rejects images over 8000 pixels on a side\. Make a smaller copy \(for example `convert .*wide\.png -resize 8000x8000 small\.png`/);
      expect(rig.requests().some((q) => hasImage(q.body))).toBe(false);
    } finally {
      await rig.close();
    }
  });

  it('sends an image as the type its bytes are: a PNG saved as .jpg goes as image/png', async () => {
    writeFileSync(join(env.dir, 'photo.jpg'), png(32, 32));
    const rig = await startAgent({
      cwd: env.dir, preset: PRESET,
      scenario: 'turns:\n  - reply: [{ tool_use: { name: Read, input: { file_path: photo.jpg } } }]\n  - reply: [{ text: "A grey square." }]\n',
    });
    try {
      const { events } = await rig.run('Look at photo.jpg');
      const [r] = results(events as never);
      expect(r!.is_error).toBeUndefined();
      expect(r!.content![0]).toMatchObject({ type: 'image', source: { media_type: 'image/png' } });
    } finally {
      await rig.close();
    }
  });

  it('with 20 images in the conversation, refuses a 21st over 2,000 pixels on a side', async () => {
    for (let i = 0; i < 20; i++) writeFileSync(join(env.dir, `s${i}.png`), png(16, 16));
    writeFileSync(join(env.dir, 'big.png'), png(2500, 2));
    const turns = Array.from({ length: 20 }, (_, i) => `  - reply: [{ tool_use: { name: Read, input: { file_path: s${i}.png } } }]`);
    const rig = await startAgent({
      cwd: env.dir, preset: PRESET,
      scenario: ['turns:', ...turns, '  - reply: [{ tool_use: { name: Read, input: { file_path: big.png } } }]', '  - reply: [{ text: "Done." }]', ''].join('\n'),
    });
    try {
      const { events, result } = await rig.run('Look at all of them.');
      expect(result.terminalReason).toBe('end_turn');
      const last = results(events as never).at(-1)!;
      expect(last).toMatchObject({ is_error: true });
      expect(last.content![0]!.text).toMatch(/is 2500 × 2 pixels; with more than 20 images in the conversation the API takes at most 2000 pixels on a side/);
    } finally {
      await rig.close();
    }
  });
});
