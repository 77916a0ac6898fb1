/**
 * Where a file's bytes go as a writer makes them: into parts of PART_BYTES (the last one smaller), each handed to
 * `store` (the job writes it under its lease), hashed as they pass, so the file is never whole in memory.
 */
import { createHash } from 'node:crypto';

/**
 * 256 KiB: the embedded database writes a part in one statement that holds its one connection, about
 * 75 ms for 256 KiB where 1 MiB took 500 to 650 ms (a read by id waited behind it).
 */
export const PART_BYTES = 1 << 18;

export type StorePart = (part: number, offset: number, data: Buffer) => Promise<void>;

export class FileSink {
  readonly #hash = createHash('sha256');
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  #part = 0;
  #offset = 0;

  constructor(private readonly store: StorePart) {}

  push(chunk: Uint8Array): void {
    if (!chunk.byteLength) return;
    const data = Buffer.from(chunk);
    this.#hash.update(data);
    this.#pending.push(data);
    this.#pendingBytes += data.byteLength;
  }

  /** Stores what is pending, a part at a time, while it fills one: a chunk of many parts' bytes (a Parquet row group) is still stored in parts of PART_BYTES. */
  async flushFull(): Promise<void> {
    while (this.#pendingBytes >= PART_BYTES) await this.#flush(PART_BYTES);
  }

  /** Stores the rest: the file's size and digest. */
  async close(): Promise<{ bytes: number; sha256: string }> {
    while (this.#pendingBytes) await this.#flush(Math.min(PART_BYTES, this.#pendingBytes));
    return { bytes: this.#offset, sha256: this.#hash.digest('hex') };
  }

  async #flush(bytes: number): Promise<void> {
    const pending = this.#pending.length === 1 ? this.#pending[0]! : Buffer.concat(this.#pending, this.#pendingBytes);
    const data = pending.subarray(0, bytes);
    const rest = pending.subarray(bytes);
    this.#pending = rest.byteLength ? [rest] : [];
    this.#pendingBytes = rest.byteLength;
    await this.store(this.#part, this.#offset, data);
    this.#part += 1;
    this.#offset += data.byteLength;
  }
}
