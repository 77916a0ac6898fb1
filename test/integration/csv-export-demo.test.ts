// CSV export of the whole demo data set (24,256 entities) under the default rate limits (50 a second,
// burst 100): the export is one request however many pages it walks (authenticated, charged and counted
// once), runs to the last row for small and large page sizes, and one that cannot finish is cut so the
// client sees an error, logged at error level with the request id and counted in csv_exports_total.
// The same data set through POST /api/exports (docs/exports.md): NDJSON and Parquet files holding every
// entity once, in the list's order, read over windows of ids to the last; the NDJSON file downloaded
// again in ranges that cross its stored parts.
import { createHash } from 'node:crypto';
import { connect } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { parse } from 'csv-parse/sync';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../helpers/auth.ts';
import { PART_BYTES } from '../../src/exports/file-sink.ts';
import { ROW_GROUP_ROWS } from '../../src/exports/writers.ts';
import { createExport, download, fileBytes, ndjsonRows, waitForExport } from './exports/support.ts';

const compressors = { GZIP: (input: Uint8Array) => new Uint8Array(gunzipSync(input)) };

const DEMO_ENTITIES = 24_256;

let app: TestApp;
let auth: TestCredentials;
/** The JSON list's ids in order (the reference every export must equal) and its `page.total`. */
let ids: number[];
let total: number;

beforeAll(async () => {
  app = await startTestApp({ demo: true, env: { RATE_LIMIT_PER_SECOND: '50', RATE_LIMIT_BURST: '100', BACKGROUND_WORKERS: 'true', EXPORT_POLL_MS: '50' } });
  auth = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
  ids = [];
  let cursor: string | null = null;
  do {
    const response = await auth.fetch(`/api/entities?fields=id&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : '&include_total=true'}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { id: number }[]; page: { next_cursor: string | null; total?: number } };
    if (!cursor) total = body.page.total!;
    ids.push(...body.data.map((row) => row.id));
    cursor = body.page.next_cursor;
  } while (cursor);
  expect(total).toBe(DEMO_ENTITIES);
  expect(ids.length).toBe(total);
}, 180_000);

afterAll(async () => {
  await app?.close();
});

const parseCsv = (text: string): Record<string, string>[] => parse(text, { columns: true }) as Record<string, string>[];

/** A sample's value on /metrics (0 when the series is absent). */
async function sample(series: string): Promise<number> {
  const text = await (await app.fetch('/metrics')).text();
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

const exports = (outcome: string) => sample(`csv_exports_total{outcome="${outcome}"}`);

/** Polls until `read()` returns `expected` (usage and metrics are recorded when the response closes). */
async function eventually(read: () => Promise<number>, expected: number): Promise<number> {
  const until = Date.now() + 5_000;
  let value = await read();
  while (value !== expected && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}

const json = (line: string): Record<string, unknown> => JSON.parse(line) as Record<string, unknown>;

describe('CSV export of the demo data set', () => {
  it('is one request: every row, in the JSON order, charged once to the rate limit and counted once in usage', async () => {
    const usage = 'usage_requests_total{endpoint="GET /api/entities",error="false"}';
    const [usageBefore, completedBefore] = [await sample(usage), await exports('completed')];
    const started = performance.now();
    // The default page size (500): 49 pages, every field.
    const response = await auth.fetch('/api/entities?format=csv');
    expect(response.status).toBe(200);
    const rows = parseCsv(await response.text());
    console.info(`CSV export, ${rows.length} rows, default page size: ${Math.round(performance.now() - started)} ms`);
    expect(rows.length).toBe(total);
    expect(rows.map((row) => Number(row.id))).toEqual(ids);
    expect(Object.keys(rows[0]!)).toContain('name');

    expect(await eventually(() => sample(usage), usageBefore + 1)).toBe(usageBefore + 1);
    expect(await eventually(() => exports('completed'), completedBefore + 1)).toBe(completedBefore + 1);
    // Charged once: the bucket after the export is where the export's first pass left it (or fuller).
    const remaining = Number(response.headers.get('ratelimit-remaining'));
    const after = await auth.fetch('/api/entities?limit=1');
    expect(Number(after.headers.get('ratelimit-remaining'))).toBeGreaterThanOrEqual(remaining - 1);
  });

  it('runs to the end with 50 rows a page, and a key revoked meanwhile stops later requests, not the export', async () => {
    // Authorised once, at its start (docs/read-api.md): the pages that follow check nothing more.
    const doomed = await createApiKeyAndToken(app, { permissions: ['read:entities'] });
    const admin = await createApiKeyAndToken(app);
    const started = performance.now();
    const response = await doomed.fetch('/api/entities?format=csv&fields=id&limit=50');
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const chunks: Uint8Array[] = [];
    const first = await reader.read();
    chunks.push(first.value!);
    expect((await admin.fetch(`/api/api-keys/${doomed.keyId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await doomed.fetch('/api/entities?limit=1')).status).toBe(401);
    for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
    const rows = parseCsv(Buffer.concat(chunks).toString('utf8'));
    console.info(`CSV export, ${rows.length} rows, 50 a page: ${Math.round(performance.now() - started)} ms`);
    expect(rows.length).toBe(total);
    expect(rows.map((row) => Number(row.id))).toEqual(ids);
  }, 60_000);

  it('runs to the end with 10 rows a page: 2,426 pages, far beyond what the rate limit would let through', async () => {
    const started = performance.now();
    const response = await auth.fetch('/api/entities?format=csv&fields=id,name&limit=10');
    expect(response.status).toBe(200);
    const rows = parseCsv(await response.text());
    console.info(`CSV export, ${rows.length} rows, 10 a page: ${Math.round(performance.now() - started)} ms`);
    expect(rows.length).toBe(total);
    expect(rows.map((row) => Number(row.id))).toEqual(ids);
  }, 60_000);

  it('counts a download the client abandons as client_gone, with no error logged', async () => {
    const before = await exports('client_gone');
    const logsBefore = app.logs.length;
    const controller = new AbortController();
    const response = await auth.fetch('/api/entities?format=csv&limit=5', { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    expect(await eventually(() => exports('client_gone'), before + 1)).toBe(before + 1);
    expect(app.logs.slice(logsBefore).map(json).filter((line) => Number(line.level) >= 50)).toEqual([]);
  });
});

describe('exports of the demo data set (POST /api/exports)', () => {
  it('NDJSON: every entity once, in the list\'s order, over its windows of ids to the last', async () => {
    const done = await waitForExport(auth, (await createExport(auth, { resource: 'entities', format: 'ndjson' })).id, 120_000);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    expect(done.rows_written).toBe(total);
    const files = await fileBytes(auth, done);
    expect(ndjsonRows(files).map((row) => row.id)).toEqual(ids);
    // A download resumed in ranges that start and end inside the file's stored parts (PART_BYTES each):
    // the parts, asked for with If-Range, concatenate to the file, whose sha256 is the one listed.
    const [file] = done.files;
    const whole = files[0]!;
    expect(whole.length).toBeGreaterThan(3 * PART_BYTES);
    expect(createHash('sha256').update(whole).digest('hex')).toBe(file!.sha256);
    const cuts = [0, PART_BYTES - 7, 2 * PART_BYTES + 13, whole.length];
    const parts: Buffer[] = [];
    for (let index = 0; index + 1 < cuts.length; index += 1) {
      const range = index + 2 < cuts.length ? `bytes=${cuts[index]}-${cuts[index + 1]! - 1}` : `bytes=${cuts[index]}-`;
      const part = await download(auth, file!.url, { range, 'if-range': `"${file!.sha256}"` });
      expect(part.status).toBe(206);
      parts.push(part.bytes);
    }
    expect(Buffer.concat(parts).equals(whole)).toBe(true);
  });

  it('Parquet: every entity once, in order, in row groups within their bound', async () => {
    const done = await waitForExport(auth, (await createExport(auth, { resource: 'entities', format: 'parquet' })).id, 120_000);
    expect(done.status, JSON.stringify(done.error)).toBe('succeeded');
    const [bytes] = await fileBytes(auth, done);
    const file = bytes!.buffer.slice(bytes!.byteOffset, bytes!.byteOffset + bytes!.byteLength) as ArrayBuffer;
    const groups = parquetMetadata(file).row_groups.map((group) => Number(group.num_rows));
    expect(Math.max(...groups)).toBeLessThanOrEqual(ROW_GROUP_ROWS);
    expect(groups.reduce((sum, rows) => sum + rows, 0)).toBe(ids.length);
    const read = (await parquetReadObjects({ file, columns: ['id'], compressors })) as { id: bigint }[];
    expect(read.map((row) => Number(row.id))).toEqual(ids);
  });
});

describe('an export that cannot finish (its table renamed away mid-export)', () => {
  /** Runs `run`, which calls `breakNow` mid-export to rename `entities` away; renamed back when done. */
  async function withEntitiesGone<T>(run: (breakNow: () => Promise<void>) => Promise<T>): Promise<T> {
    let broken = false;
    try {
      return await run(async () => {
        await app.db.sql.exec('ALTER TABLE entities RENAME TO entities_away');
        broken = true;
      });
    } finally {
      if (broken) await app.db.sql.exec('ALTER TABLE entities_away RENAME TO entities');
    }
  }

  /** The export's error line: error level, its request id, the reason (rows sent, which page, what it answered). */
  async function expectLogged(requestId: string | null): Promise<void> {
    const errorLines = () => app.logs.map(json).filter((line) => line.requestId === requestId && Number(line.level) >= 50);
    const isFailure = (line: Record<string, unknown>) => (line.err as { type?: string } | undefined)?.type === 'CsvExportError';
    await eventually(async () => errorLines().filter(isFailure).length, 1);
    const lines = errorLines();
    const failure = lines.find(isFailure);
    expect(failure, JSON.stringify(lines)).toBeDefined();
    expect((failure!.err as { message: string }).message).toMatch(
      /^CSV export of \/api\/entities stopped after \d+ rows: page \d+ answered 500 INTERNAL_ERROR/,
    );
    expect(failure!.err).toMatchObject({ status: 500, code: 'INTERNAL_ERROR', rows: expect.any(Number), pages: expect.any(Number) });
    // The access log calls it the server's failure, not a client that left.
    const accessLine = () => app.logs.map(json).find((line) => line.requestId === requestId && line.ms !== undefined);
    await eventually(async () => (accessLine() ? 1 : 0), 1);
    expect(accessLine()).toMatchObject({ msg: 'response cut short by the server', status: 500, cut: true });
  }

  it('fetch: the body cannot be read to the end (the transfer is cut), and the failure is logged and counted', async () => {
    const before = await exports('failed');
    const outcome = await withEntitiesGone(async (breakNow) => {
      const response = await auth.fetch('/api/entities?format=csv&fields=id&limit=50');
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      await reader.read();
      await breakNow();
      try {
        for (let next = await reader.read(); !next.done; next = await reader.read());
      } catch (error) {
        return { error, requestId: response.headers.get('x-request-id') };
      }
      return { error: undefined, requestId: response.headers.get('x-request-id') };
    });
    // undici's "terminated": the connection closed before the body's end.
    expect(outcome.error).toBeInstanceOf(TypeError);
    await expectLogged(outcome.requestId);
    expect(await eventually(() => exports('failed'), before + 1)).toBe(before + 1);
  });

  it('raw HTTP/1.1: status 200, chunked, and the connection closes without the terminating chunk', async () => {
    const before = await exports('failed');
    const { head, body } = await withEntitiesGone(
      (breakNow) =>
        new Promise<{ head: string; body: string }>((resolve, reject) => {
          const { host, hostname, port } = new URL(app.url);
          const socket = connect(Number(port), hostname);
          const headers = Object.entries(auth.headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
          socket.write(`GET /api/entities?format=csv&fields=id&limit=50 HTTP/1.1\r\nHost: ${host}\r\n${headers}\r\n`);
          const chunks: Buffer[] = [];
          let breaking: Promise<void> | undefined;
          socket.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            breaking ??= breakNow();
          });
          socket.on('error', reject);
          socket.on('close', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            const split = text.indexOf('\r\n\r\n');
            void (breaking ?? Promise.resolve()).then(() => resolve({ head: text.slice(0, split), body: text.slice(split + 4) }), reject);
          });
        }),
    );
    expect(head).toMatch(/^HTTP\/1\.1 200 /);
    expect(head).toMatch(/\r\ntransfer-encoding: chunked/i);
    expect(head).toMatch(/\r\ncontent-type: text\/csv/i);
    expect(body).toContain('id\n');
    // A complete chunked body ends with the zero-length chunk; this one stops short of it.
    expect(body).not.toMatch(/(^|\r\n)0\r\n\r\n$/);
    const requestId = /\r\nx-request-id: ([^\r]+)/i.exec(head)![1]!;
    await expectLogged(requestId);
    expect(await eventually(() => exports('failed'), before + 1)).toBe(before + 1);
  });
});
