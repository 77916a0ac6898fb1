// A file's parts (src/exports/file-sink.ts): PART_BYTES each, however the writer's chunks come (a Parquet
// row group arrives as one chunk of many parts' bytes), the last one smaller; together the file, its digest theirs.
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { FileSink, PART_BYTES } from '../../../src/exports/file-sink.ts';

describe('FileSink', () => {
  it.each([
    ['one chunk of many parts', [4 * PART_BYTES + 100]],
    ['small chunks', Array.from({ length: 40 }, () => 30_000)],
    ['chunks across part boundaries', [PART_BYTES - 1, 2, 3 * PART_BYTES, 7]],
  ])('stores %s in parts of PART_BYTES', async (_name, sizes) => {
    const parts: { part: number; offset: number; data: Buffer }[] = [];
    const sink = new FileSink(async (part, offset, data) => {
      parts.push({ part, offset, data: Buffer.from(data) });
    });
    const chunks = sizes.map((size) => randomBytes(size));
    for (const chunk of chunks) {
      sink.push(chunk);
      await sink.flushFull();
    }
    const closed = await sink.close();
    const file = Buffer.concat(chunks);
    expect(parts.length).toBe(Math.ceil(file.byteLength / PART_BYTES));
    expect(parts.map((part) => part.part)).toEqual(parts.map((_part, index) => index));
    expect(parts.slice(0, -1).every((part) => part.data.byteLength === PART_BYTES)).toBe(true);
    expect(parts.at(-1)!.data.byteLength).toBe(file.byteLength - (parts.length - 1) * PART_BYTES);
    expect(parts.map((part) => part.offset)).toEqual(parts.map((_part, index) => index * PART_BYTES));
    expect(Buffer.concat(parts.map((part) => part.data)).equals(file)).toBe(true);
    expect(closed).toEqual({ bytes: file.byteLength, sha256: createHash('sha256').update(file).digest('hex') });
  });
});
