import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';

export interface SourceLine {
  /** 1-based line number in the (decompressed) file. */
  line: number;
  text: string;
  /** Bytes of the file on disk consumed so far (compressed bytes for .gz). */
  bytesRead: number;
}

export async function fileSize(path: string): Promise<number> {
  return (await stat(path)).size;
}

/**
 * Streams a text file line by line, gunzipping `.gz` files on the fly, so a file of any size is read in
 * constant memory. Blank lines are skipped (but counted, so line numbers match an editor's).
 */
export async function* readLines(path: string): AsyncGenerator<SourceLine> {
  const file = createReadStream(path);
  const input = path.endsWith('.gz') ? file.pipe(createGunzip()) : file;
  // A gunzip error (truncated or not gzip at all) must reach the reader, not crash the process.
  file.on('error', (error) => input.destroy(error));
  const lines = createInterface({ input, crlfDelay: Infinity });
  let line = 0;
  try {
    for await (const raw of lines) {
      line += 1;
      const text = line === 1 ? raw.replace(/^\uFEFF/, '') : raw;
      if (text.trim() === '') continue;
      yield { line, text, bytesRead: file.bytesRead };
    }
  } finally {
    lines.close();
    file.destroy();
  }
}
