// A Parquet file written a page at a time (src/exports/parquet-worker.mjs runs it on a thread of its
// own). Records are shredded into their leaf columns as they arrive (src/exports/parquet-column.mjs),
// each column's values encoded and compressed a page at a time, so a row group holds compressed pages,
// not records, and can be as large as the contract allows (100,000 rows): its dictionaries then see a
// group's worth of values, where a group held as records had to close at a few thousand rows.
// hyparquet-writer supplies the format's parts (levels, page headers, the footer); the values are
// encoded here, straight from the records' JSON values into bytes.
//
// Plain JavaScript, as the thread that runs it (parquet-worker.mjs says why).
import { ByteWriter } from 'hyparquet-writer';
import { writeMetadata } from 'hyparquet-writer/src/metadata.js';
import { schemaPathResolver } from 'hyparquet-writer/src/schema.js';
import { Leaf } from './parquet-column.mjs';

const MAGIC = new Uint8Array([0x50, 0x41, 0x52, 0x31]); // PAR1

/** A file's bytes as they are made, in pieces (each page as it was compressed), until they are taken. */
export class FileBytes {
  offset = 0;
  pieces = [];
  held = 0;

  push(bytes) {
    this.pieces.push(bytes);
    this.offset += bytes.length;
    this.held += bytes.length;
  }

  /** Writes with one of hyparquet-writer's functions (a page header, the footer). */
  write(write) {
    const writer = new ByteWriter(256);
    write(writer);
    this.push(writer.getBytes());
  }

  /** The bytes made since the last take, in one buffer of its own (to move to another thread). */
  take() {
    const bytes = new Uint8Array(this.held);
    let at = 0;
    for (const piece of this.pieces) {
      bytes.set(piece, at);
      at += piece.length;
    }
    this.pieces = [];
    this.held = 0;
    return bytes.buffer;
  }
}

/**
 * One Parquet file, its bytes into `out` (a FileBytes).
 * `schema` is the flattened schema (src/exports/columns.ts parquetSchema); only top-level scalar
 * columns carry min/max statistics: a reader prunes row groups by those, and no reader by a list's element.
 */
export class ParquetFile {
  constructor({ out, schema, createdBy }) {
    this.out = out;
    this.schema = schema;
    this.createdBy = createdBy;
    const resolve = schemaPathResolver(schema);
    const leavesOf = (path) => {
      const children = path.at(-1).children;
      return children.length ? children.flatMap((child) => leavesOf([...path, child])) : [new Leaf(path, path.length === 2)];
    };
    this.columns = resolve([]).at(-1).children.map((child) => ({ name: child.element.name, leaves: leavesOf(resolve([child.element.name])) }));
    this.rowGroups = [];
    this.rows = 0;
    /** Rows in the open row group. */
    this.groupRows = 0;
    out.push(MAGIC);
  }

  /** Adds records (objects as the list's JSON has them): each column takes its value of each. */
  add(records) {
    for (const column of this.columns) {
      const values = records.map((record) => record[column.name]);
      for (const leaf of column.leaves) leaf.add(values);
    }
    this.groupRows += records.length;
  }

  /** Bytes the open row group holds (compressed pages, dictionaries, values waiting for their page). */
  get heldBytes() {
    let bytes = 0;
    for (const column of this.columns) for (const leaf of column.leaves) bytes += leaf.bytes;
    return bytes;
  }

  /** Writes the open row group to `out`. */
  closeGroup() {
    if (!this.groupRows) return;
    const start = this.out.offset;
    const columns = this.columns.flatMap((column) => column.leaves.map((leaf) => leaf.writeChunk(this.out)));
    this.rowGroups.push({
      columns,
      num_rows: BigInt(this.groupRows),
      total_byte_size: columns.reduce((sum, chunk) => sum + chunk.meta_data.total_uncompressed_size, 0n),
      total_compressed_size: BigInt(this.out.offset - start),
    });
    this.rows += this.groupRows;
    this.groupRows = 0;
  }

  /** Closes the last row group and writes the footer. */
  finish() {
    this.closeGroup();
    this.out.write((footer) => {
      writeMetadata(footer, { version: 2, created_by: this.createdBy, schema: this.schema, num_rows: BigInt(this.rows), row_groups: this.rowGroups });
      footer.appendBytes(MAGIC);
    });
  }
}
