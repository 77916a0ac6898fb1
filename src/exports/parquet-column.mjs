// One leaf column of a Parquet file being written (src/exports/parquet-file.mjs): its next page, and
// the compressed pages, dictionary and statistics of its open row group. Each value is encoded as it
// is added (its dictionary index, or its PLAIN bytes), so no record's strings but a dictionary's outlive
// the batch they came in; a page is compressed once about PAGE_BYTES of values are held, so the group holds
// compressed pages, not records. Plain JavaScript, as the thread that runs it (parquet-worker.mjs says why).
import { gzipSync } from 'node:zlib';
import { ByteWriter } from 'hyparquet-writer';
import { writePageHeader } from 'hyparquet-writer/src/datapage.js';
import { encodeNestedValues } from 'hyparquet-writer/src/dremel.js';
import { writeRleBitPackedHybrid } from 'hyparquet-writer/src/encoding.js';
import { bitWidth, byteLength, compare, levels, physical, PlainBytes, withRoom } from './parquet-values.mjs';

/** A column's values are encoded into a page once about this many bytes of them are held. */
export const PAGE_BYTES = 256 << 10;
/**
 * Or once it holds this many levels (values and nulls): a column of small or mostly null values still
 * makes pages of a bounded count, and the level and index buffers each column keeps stay small.
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
    // The next page's levels, its values' dictionary indexes (a boolean's 0 or 1) and PLAIN bytes, kept from page to page.
    this.definition = new Uint8Array(1024);
    this.repetition = new Uint8Array(1024);
    this.codes = new Int32Array(1024);
    this.plain = new PlainBytes();
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
    // Undecided until the group's first page is written: that page's values are kept both ways.
    this.encoding = this.element.type === 'BOOLEAN' ? 'RLE' : undefined;
    this.startPage();
  }

  startPage() {
    this.levelCount = 0;
    this.valueCount = 0;
    this.plain.clear();
    this.held = 0;
  }

  /** Adds one value of this column per record (its top-level value), encoding a page when enough is held. */
  add(topValues) {
    const { values, definitionLevels, repetitionLevels } = encodeNestedValues(this.path, topValues);
    this.codes = withRoom(this.codes, this.valueCount + values.length);
    for (const value of values) {
      if (value === null || value === undefined) continue;
      const stored = physical(this.element, value);
      this.held += byteLength(this.element, stored);
      if (this.statistics) {
        if (this.min === undefined || compare(stored, this.min) < 0) this.min = stored;
        if (this.max === undefined || compare(stored, this.max) > 0) this.max = stored;
      }
      if (this.encoding === 'RLE') {
        this.codes[this.valueCount] = stored ? 1 : 0;
      } else {
        if (this.encoding !== 'PLAIN') this.codes[this.valueCount] = this.indexOf(stored);
        if (this.encoding !== 'RLE_DICTIONARY') this.plain.add(this.element, stored);
      }
      this.valueCount += 1;
    }
    if (definitionLevels.length) {
      this.definition = withRoom(this.definition, this.levelCount + definitionLevels.length);
      this.definition.set(definitionLevels, this.levelCount);
      if (repetitionLevels.length) {
        this.repetition = withRoom(this.repetition, this.levelCount + repetitionLevels.length);
        this.repetition.set(repetitionLevels, this.levelCount);
      }
      this.levelCount += definitionLevels.length;
    }
    if (this.held >= PAGE_BYTES || this.levelCount >= PAGE_LEVELS) this.writePage();
  }

  /** The value's index in the group's dictionary, the dictionary growing. */
  indexOf(value) {
    this.dictionary ??= { index: new Map(), values: [], bytes: 0 };
    let index = this.dictionary.index.get(value);
    if (index === undefined) {
      index = this.dictionary.values.length;
      this.dictionary.index.set(value, index);
      this.dictionary.values.push(value);
      this.dictionary.bytes += byteLength(this.element, value);
    }
    return index;
  }

  /**
   * The encoding of a group's pages, decided on its first: parquet-mr's rule, a dictionary kept when
   * it and its indexes are smaller than the PLAIN values. gzip finds repeats only within 32 KB, a
   * dictionary across the whole row group.
   */
  decide() {
    const dictionary = this.dictionary ?? { values: [], bytes: 0 };
    const indexBytes = Math.ceil((this.valueCount * bitWidth(dictionary.values.length - 1)) / 8);
    if (dictionary.bytes + indexBytes >= this.held) {
      this.dictionary = undefined;
      return (this.encoding = 'PLAIN');
    }
    return (this.encoding = 'RLE_DICTIONARY');
  }

  /**
   * A DATA_PAGE (v1): its levels and values compressed together. A v2 page leaves the levels
   * uncompressed, and the levels of a list's leaves (an entity's tags, founders) were a fifth of them.
   */
  writePage() {
    const count = this.levelCount || this.valueCount;
    if (!count) return;
    const body = new ByteWriter(Math.max(1024, this.held + count));
    if (this.maxRepetition) levels(body, this.repetition.subarray(0, this.levelCount), this.maxRepetition);
    if (this.maxDefinition) levels(body, this.definition.subarray(0, this.levelCount), this.maxDefinition);
    const encoding = this.encoding ?? this.decide();
    const values = this.codes.subarray(0, this.valueCount);
    if (encoding === 'RLE_DICTIONARY') {
      const width = bitWidth(this.dictionary.values.length - 1);
      body.appendUint8(width);
      writeRleBitPackedHybrid(body, values, width);
      // A dictionary grown past its bound leaves the rest of the group's pages PLAIN.
      if (this.dictionary.bytes > DICTIONARY_BYTES) this.encoding = 'PLAIN';
    } else if (encoding === 'RLE') {
      levels(body, values, 1);
    } else {
      body.appendBytes(this.plain.view);
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
    this.nulls += count - this.valueCount;
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
      const page = new PlainBytes();
      for (const value of this.dictionary.values) page.add(this.element, value);
      const compressed = gzipSync(page.view);
      out.write((header) =>
        writePageHeader(header, {
          type: 'DICTIONARY_PAGE',
          uncompressed_page_size: page.length,
          compressed_page_size: compressed.length,
          dictionary_page_header: { num_values: this.dictionary.values.length, encoding: 'PLAIN' },
        }),
      );
      uncompressed += out.offset - start + page.length;
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
