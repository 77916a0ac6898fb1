// One leaf column of a Parquet file being written (src/exports/parquet-file.mjs): the values held for
// its next page, and the compressed pages, dictionary and statistics of its open row group. A page is
// encoded and compressed once about PAGE_BYTES of values are held, so the group holds compressed
// pages, not records. Plain JavaScript, as the thread that runs it (parquet-worker.mjs says why).
import { gzipSync } from 'node:zlib';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { encodeNestedValues } from 'hyparquet-writer/src/dremel.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { bitWidth, byteLength, compare, levels, physical, writePlain } from './parquet-values.mjs';

/** A column's values are encoded into a page once about this many bytes of them are held. */
export const PAGE_BYTES = 256 << 10;
/**
 * Or once it holds this many levels (values and nulls): the page's arrays then stay below V8's
 * large-object size (128 KB), so they die in the young generation instead of waiting for a full collection.
 */
const PAGE_LEVELS = 10_000;
/** A dictionary that grows past this leaves the rest of its row group's pages PLAIN (as parquet-mr's writer does). */
const DICTIONARY_BYTES = 1 << 20;

/** One leaf column: the values held for its next page, and the pages, dictionary and statistics of its row group. */
export class Leaf {
  constructor(path, statistics) {
    this.path = path;
    this.element = path.at(-1).element;
    this.schemaPath = path.slice(1).map((node) => node.element.name);
    this.maxRepetition = path.filter((node) => node.element.repetition_type === 'REPEATED').length;
    this.maxDefinition = path.slice(1).filter((node) => node.element.repetition_type !== 'REQUIRED').length;
    this.statistics = statistics;
    this.startGroup();
  }

  startGroup() {
    this.pages = [];
    this.pageBytes = 0;
    this.pageCounts = new Map();
    this.uncompressed = 0;
    this.levels = 0;
    this.nulls = 0;
    this.min = undefined;
    this.max = undefined;
    this.dictionary = undefined;
    this.encoding = this.element.type === 'BOOLEAN' ? 'RLE' : undefined;
    this.startPage();
  }

  startPage() {
    this.values = [];
    this.definition = [];
    this.repetition = [];
    this.held = 0;
  }

  /** Adds one value of this column per record (its top-level value), encoding a page when enough is held. */
  add(topValues) {
    const { values, definitionLevels, repetitionLevels } = encodeNestedValues(this.path, topValues);
    for (const value of values) {
      if (value === null || value === undefined) continue;
      const stored = physical(this.element, value);
      this.values.push(stored);
      this.held += byteLength(this.element, stored);
      if (this.statistics) {
        if (this.min === undefined || compare(stored, this.min) < 0) this.min = stored;
        if (this.max === undefined || compare(stored, this.max) > 0) this.max = stored;
      }
    }
    for (const level of definitionLevels) this.definition.push(level);
    for (const level of repetitionLevels) this.repetition.push(level);
    if (this.held >= PAGE_BYTES || this.definition.length >= PAGE_LEVELS) this.writePage();
  }

  /** The page's values as dictionary indexes, the dictionary growing; undefined when a dictionary does not pay (decided on a group's first page). */
  indexes() {
    if (this.encoding === 'PLAIN' || this.encoding === 'RLE') return undefined;
    const dictionary = this.dictionary ?? { index: new Map(), values: [], bytes: 0 };
    const indexes = new Array(this.values.length);
    for (let i = 0; i < this.values.length; i++) {
      const value = this.values[i];
      let index = dictionary.index.get(value);
      if (index === undefined) {
        index = dictionary.values.length;
        dictionary.index.set(value, index);
        dictionary.values.push(value);
        dictionary.bytes += byteLength(this.element, value);
      }
      indexes[i] = index;
    }
    if (this.encoding === undefined) {
      // parquet-mr's rule: kept when the dictionary and its indexes are smaller than the PLAIN values.
      // gzip finds repeats only within 32 KB, a dictionary across the whole row group.
      const indexBytes = Math.ceil((indexes.length * bitWidth(dictionary.values.length - 1)) / 8);
      if (dictionary.bytes + indexBytes >= this.held) {
        this.encoding = 'PLAIN';
        return undefined;
      }
      this.encoding = 'RLE_DICTIONARY';
      this.dictionary = dictionary;
    }
    if (dictionary.bytes > DICTIONARY_BYTES) this.encoding = 'PLAIN';
    return indexes;
  }

  /**
   * A DATA_PAGE (v1): its levels and values compressed together. A v2 page leaves the levels
   * uncompressed, and the levels of a list's leaves (an entity's tags, founders) were a fifth of them.
   */
  writePage() {
    const count = this.definition.length || this.values.length;
    if (!count) return;
    const body = new ByteWriter(Math.max(1024, this.held + count));
    if (this.maxRepetition) levels(body, this.repetition, this.maxRepetition);
    if (this.maxDefinition) levels(body, this.definition, this.maxDefinition);
    const indexes = this.indexes();
    const encoding = indexes ? 'RLE_DICTIONARY' : this.element.type === 'BOOLEAN' ? 'RLE' : 'PLAIN';
    if (indexes) {
      const width = bitWidth(this.dictionary.values.length - 1);
      body.appendUint8(width);
      writeRleBitPackedHybrid(body, indexes, width);
    } else if (encoding === 'RLE') {
      levels(body, this.values.map(Number), 1);
    } else {
      writePlain(body, this.element, this.values);
    }
    const compressed = gzipSync(body.getBytes());
    const header = new ByteWriter(64);
    writePageHeader(header, {
      type: 'DATA_PAGE',
      uncompressed_page_size: body.offset,
      compressed_page_size: compressed.length,
      data_page_header: { num_values: count, encoding, definition_level_encoding: 'RLE', repetition_level_encoding: 'RLE' },
    });
    this.pages.push(header.getBytes(), compressed);
    this.pageBytes += header.offset + compressed.length;
    this.uncompressed += header.offset + body.offset;
    this.pageCounts.set(encoding, (this.pageCounts.get(encoding) ?? 0) + 1);
    this.levels += count;
    this.nulls += count - this.values.length;
    this.startPage();
  }

  /** Writes the group's column chunk (its dictionary page, then its pages) to `out` (a FileBytes), and answers its metadata. */
  writeChunk(out) {
    this.writePage();
    const start = out.offset;
    let dictionaryOffset;
    let uncompressed = this.uncompressed;
    const encodings = new Set();
    if (this.dictionary) {
      dictionaryOffset = BigInt(out.offset);
      const page = new ByteWriter();
      writePlain(page, this.element, this.dictionary.values);
      const compressed = gzipSync(page.getBytes());
      out.write((header) =>
        writePageHeader(header, {
          type: 'DICTIONARY_PAGE',
          uncompressed_page_size: page.offset,
          compressed_page_size: compressed.length,
          dictionary_page_header: { num_values: this.dictionary.values.length, encoding: 'PLAIN' },
        }),
      );
      uncompressed += out.offset - start + page.offset;
      out.push(compressed);
      encodings.add('PLAIN');
    }
    const dataOffset = BigInt(out.offset);
    for (const piece of this.pages) out.push(piece);
    for (const encoding of this.pageCounts.keys()) encodings.add(encoding);
    if (this.maxDefinition || this.maxRepetition) encodings.add('RLE');
    const chunk = {
      file_offset: BigInt(start),
      meta_data: {
        type: this.element.type,
        encodings: [...encodings],
        path_in_schema: this.schemaPath,
        codec: 'GZIP',
        num_values: BigInt(this.levels),
        total_uncompressed_size: BigInt(uncompressed),
        total_compressed_size: BigInt(out.offset - start),
        data_page_offset: dataOffset,
        dictionary_page_offset: dictionaryOffset,
        statistics: this.statistics ? { min_value: this.min, max_value: this.max, null_count: BigInt(this.nulls) } : undefined,
        encoding_stats: [
          ...(this.dictionary ? [{ page_type: 'DICTIONARY_PAGE', encoding: 'PLAIN', count: 1 }] : []),
          ...[...this.pageCounts].map(([encoding, count]) => ({ page_type: 'DATA_PAGE', encoding, count })),
        ],
      },
    };
    this.startGroup();
    return chunk;
  }

  /** Bytes this column holds for its group: its compressed pages, and the values of its next page. */
  get bytes() {
    return this.pageBytes + this.held + (this.dictionary?.bytes ?? 0);
  }
}
