/**
 * A Parquet file's row groups (src/exports/writers.ts, encoded on the file's own thread): at most
 * ROW_GROUP_ROWS rows, and fewer for wide records, a group closing at about ROW_GROUP_BYTES of the
 * compressed pages it holds, so its memory follows its bytes; every row is in the file once, in order.
 * And their pages: dictionary pages and the PLAIN pages a grown dictionary leaves, and statistics in
 * Parquet's order.
 */
import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import type { ExportColumn } from '../../../src/exports/columns.ts';
import { FileSink } from '../../../src/exports/file-sink.ts';
import { fileWriter, ROW_GROUP_BYTES, ROW_GROUP_ROWS } from '../../../src/exports/writers.ts';
import { withParquetInDuckDB } from '../../helpers/duckdb.ts';

const compressors = { GZIP: (input: Uint8Array) => new Uint8Array(gunzipSync(input)) };
const columns: ExportColumn[] = [
  { name: 'id', type: { kind: 'integer' } },
  { name: 'text', type: { kind: 'string' } },
];

// Batches of 450, as an export's windows come (not a divisor of the row bound): a group never overshoots it.
async function parquetOf(rows: Record<string, unknown>[], batch = 450): Promise<ArrayBuffer> {
  const parts: Buffer[] = [];
  const sink = new FileSink(async (_part, _offset, data) => {
    parts.push(data);
  });
  const writer = fileWriter('parquet', columns, sink, false);
  for (let start = 0; start < rows.length; start += batch) await writer.write(rows.slice(start, start + batch));
  await writer.end();
  await sink.close();
  const file = Buffer.concat(parts);
  return file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength);
}

describe('Parquet row groups', () => {
  it(`hold at most ${ROW_GROUP_ROWS} narrow rows each`, async () => {
    const rows = Array.from({ length: 2.5 * ROW_GROUP_ROWS }, (_, index) => ({ id: index + 1, text: `row ${index + 1}` }));
    const file = await parquetOf(rows);
    const groups = parquetMetadata(file).row_groups.map((group) => Number(group.num_rows));
    expect(groups).toEqual([ROW_GROUP_ROWS, ROW_GROUP_ROWS, ROW_GROUP_ROWS / 2]);
    const back = (await parquetReadObjects({ file, compressors })) as { id: bigint; text: string }[];
    expect(back.map((row) => Number(row.id))).toEqual(rows.map((row) => row.id));
  });

  // Incompressible text (random base64), so a group's compressed pages are about its values' size: a group of wide rows closes at its bytes, long before its row bound.
  it('close early for wide rows, at about ROW_GROUP_BYTES of compressed pages', async () => {
    const rows = Array.from({ length: 14_000 }, (_, index) => ({ id: index + 1, text: randomBytes(3_000).toString('base64') }));
    const file = await parquetOf(rows);
    const groups = parquetMetadata(file).row_groups;
    expect(groups.length).toBeGreaterThanOrEqual(2);
    for (const group of groups.slice(0, -1)) {
      expect(Number(group.total_compressed_size)).toBeGreaterThanOrEqual(ROW_GROUP_BYTES * 0.9);
      // One batch of 450 rows (1.8 MB of text) at most past the bound: it is checked after each batch.
      expect(Number(group.total_compressed_size)).toBeLessThanOrEqual(ROW_GROUP_BYTES + (2 << 20));
    }
    expect(groups.reduce((sum, group) => sum + Number(group.num_rows), 0)).toBe(rows.length);
    const back = (await parquetReadObjects({ file, compressors, columns: ['text'] })) as { text: string }[];
    expect(back.map((row) => row.text)).toEqual(rows.map((row) => row.text));
  });

  // A reader that trusts encoding_stats (Arrow does, to read a chunk's dictionary pages as such) reads what the pages are.
  it("name their pages as their headers do: a dictionary page, then DATA_PAGE (v1) pages", async () => {
    const rows = Array.from({ length: 30_000 }, (_, index) => ({ id: index + 1, text: `kind ${index % 7}` }));
    const buffer = await parquetOf(rows);
    const bytes = new Uint8Array(buffer);
    // A page header is thrift compact: its first field (type, i32) is 0x15, then the type zigzag-encoded.
    const pageType = (offset: bigint) => (bytes[Number(offset)] === 0x15 ? ['DATA_PAGE', 'INDEX_PAGE', 'DICTIONARY_PAGE', 'DATA_PAGE_V2'][bytes[Number(offset) + 1]! / 2] : undefined);
    const chunks = parquetMetadata(buffer).row_groups.flatMap((group) => group.columns.map((column) => column.meta_data!));
    expect(chunks.some((chunk) => chunk.dictionary_page_offset !== undefined)).toBe(true);
    for (const chunk of chunks) {
      const stats = chunk.encoding_stats!;
      expect(pageType(chunk.data_page_offset)).toBe('DATA_PAGE');
      expect(stats.filter((stat) => stat.page_type !== 'DICTIONARY_PAGE').every((stat) => stat.page_type === 'DATA_PAGE')).toBe(true);
      if (chunk.dictionary_page_offset === undefined) expect(stats.some((stat) => stat.page_type === 'DICTIONARY_PAGE')).toBe(false);
      else expect([pageType(chunk.dictionary_page_offset), stats[0]?.page_type]).toEqual(['DICTIONARY_PAGE', 'DICTIONARY_PAGE']);
    }
  });

  // Each value twice in a row: the group's first page takes a dictionary (half its bytes), which then
  // grows past 1 MB with new values, and the chunk's later pages are PLAIN. Both kinds must read back.
  it('leave a dictionary that outgrew its bound for PLAIN pages, and read back whole (hyparquet, DuckDB)', async () => {
    const rows = Array.from({ length: 60_000 }, (_, index) => ({ id: index + 1, text: `${'value '.repeat(6)}${Math.floor(index / 2)}` }));
    const file = await parquetOf(rows);
    const text = parquetMetadata(file).row_groups[0]!.columns.find((column) => column.meta_data!.path_in_schema[0] === 'text')!.meta_data!;
    const pages = Object.fromEntries(text.encoding_stats!.map((stat) => [`${stat.page_type} ${stat.encoding}`, stat.count]));
    expect(pages['DICTIONARY_PAGE PLAIN']).toBe(1);
    expect(pages['DATA_PAGE RLE_DICTIONARY']).toBeGreaterThan(0);
    expect(pages['DATA_PAGE PLAIN']).toBeGreaterThan(0);
    const back = (await parquetReadObjects({ file, compressors, columns: ['text'] })) as { text: string }[];
    expect(back.map((row) => row.text)).toEqual(rows.map((row) => row.text));
    await withParquetInDuckDB(file, async (connection, path) => {
      const texts = await connection.runAndReadAll(`SELECT text FROM '${path}' ORDER BY id`);
      expect(texts.getRows().map((row) => row[0])).toEqual(rows.map((row) => row.text));
    });
  });

  // UTF-8's byte order, not JavaScript's: a character past U+FFFF (a surrogate pair) sorts after U+FFFD.
  it("carry a string column's min and max in code point order", async () => {
    const texts = ['a\u{1F600}', 'a\uFFFD', 'a', 'b\uE000', 'a\u00E9'];
    const file = await parquetOf(texts.map((text, index) => ({ id: index + 1, text })));
    const stats = parquetMetadata(file).row_groups[0]!.columns.find((column) => column.meta_data!.path_in_schema[0] === 'text')!.meta_data!.statistics!;
    expect([stats.min_value, stats.max_value]).toEqual(['a', 'b\uE000']);
    const second = await parquetOf(texts.filter((text) => text.startsWith('a')).map((text, index) => ({ id: index + 1, text })));
    expect(parquetMetadata(second).row_groups[0]!.columns[1]!.meta_data!.statistics!.max_value).toBe('a\u{1F600}');
  });

  // What a warehouse's reader relies on: each group where the footer says, with its own rows' min and max.
  it('are found by a reader that seeks by their offsets and prunes by their statistics (DuckDB)', async () => {
    const rows = Array.from({ length: 3.5 * ROW_GROUP_ROWS }, (_, index) => ({ id: index + 1, text: `row ${index + 1}` }));
    await withParquetInDuckDB(await parquetOf(rows), async (connection, path) => {
      const read = async (sql: string) => (await connection.runAndReadAll(sql)).getRows().map((row) => row.map(Number));
      const stats = await read(`SELECT row_group_id, stats_min_value::BIGINT, stats_max_value::BIGINT FROM parquet_metadata('${path}') WHERE path_in_schema = 'id' ORDER BY 1`);
      expect(stats).toEqual([0, 1, 2, 3].map((group) => [group, group * ROW_GROUP_ROWS + 1, Math.min(rows.length, (group + 1) * ROW_GROUP_ROWS)]));
      expect(await read(`SELECT count(*), sum(id) FROM '${path}'`)).toEqual([[rows.length, (rows.length * (rows.length + 1)) / 2]]);
      expect(await read(`SELECT id FROM '${path}' WHERE id BETWEEN ${2 * ROW_GROUP_ROWS - 1} AND ${2 * ROW_GROUP_ROWS + 1} ORDER BY id`)).toEqual([
        [2 * ROW_GROUP_ROWS - 1],
        [2 * ROW_GROUP_ROWS],
        [2 * ROW_GROUP_ROWS + 1],
      ]);
      const texts = await connection.runAndReadAll(`SELECT text FROM '${path}' ORDER BY id`);
      expect(texts.getRows().map((row) => row[0])).toEqual(rows.map((row) => row.text));
    });
  });
});
