// `npm start` says what it is doing: each start-up step is logged as it begins, the demo load reports
// progress, and logs are JSON unless a human reads them (pino-pretty on a terminal or LOG_FORMAT=pretty).
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoDataIfEmpty } from '../../src/data/demo.ts';
import { createLogger } from '../../src/logger.ts';
import { createTestDatabase, testDatabaseKind, type TestDatabase } from '../helpers/db.ts';
import { createScratchDatabase, freePort, startServerProcess, waitForOutput } from '../helpers/server-process.ts';

const FIXTURE_DIR = fileURLToPath(new URL('../fixtures/import/basic', import.meta.url));

let database: { url: string; drop(): Promise<void> } | undefined;
let db: TestDatabase;

beforeAll(async () => {
  if (testDatabaseKind() === 'postgres') database = await createScratchDatabase();
  db = await createTestDatabase();
});

afterAll(async () => {
  await db.destroy();
  await database?.drop();
});

function memoryLogger(pretty: boolean) {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: createLogger({ level: 'info', destination, pretty }), lines };
}

describe('start-up steps', () => {
  it('logs each step in order, as JSON when stdout is not a terminal', async () => {
    const port = freePort();
    const server = startServerProcess({ ...(database ? { DATABASE_URL: database.url } : {}), PORT: String(port) });
    try {
      await waitForOutput(server, /"msg":"listening"/, 90_000);
      const messages = server.output().split('\n').filter((line) => line.startsWith('{')).map((line) => (JSON.parse(line) as { msg: string }).msg);
      const steps = ['starting', 'opening the database', 'applying migrations', 'checking the token signing key and the administrator key',
        'building the API: GraphQL schema, REST routes, OpenAPI document', 'listening'];
      const positions = steps.map((step) => messages.indexOf(step));
      expect(positions.every((position) => position >= 0), messages.join(' | ')).toBe(true);
      expect([...positions].sort((a, b) => a - b)).toEqual(positions);
      expect(messages.some((message) => /^applied \d+ migration\(s\)$|^database schema is up to date$/.test(message))).toBe(true);
    } finally {
      server.child.kill('SIGTERM');
      await server.exit;
    }
  }, 120_000);
});

describe('log format', () => {
  it('pretty: one readable line a message, no JSON', () => {
    const { logger, lines } = memoryLogger(true);
    logger.info({ file: 'entities.jsonl' }, 'loading');
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO.*: loading$/);
    expect(() => JSON.parse(lines[0]!)).toThrow();
    expect(lines.join('\n')).toContain('file: "entities.jsonl"');
  });

  it('json: one object a line', () => {
    const { logger, lines } = memoryLogger(false);
    logger.info('loading');
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: 'loading', level: 30 });
  });
});

describe('demo load progress', () => {
  it('logs each file as it is loaded, with its record count', async () => {
    const { logger, lines } = memoryLogger(false);
    const result = await loadDemoDataIfEmpty(db, logger, FIXTURE_DIR);
    expect(result.loaded).toBe(true);
    const messages = lines.map((line) => JSON.parse(line) as { msg: string; file?: string; records?: number; percent?: number });
    const done = messages.filter((message) => / loaded \(\d+ records\)$/.test(message.msg));
    expect(done.map((message) => message.file)).toContain('entities.jsonl');
    for (const message of done) expect(message.percent).toBe(100);
    expect(done.find((message) => message.file === 'entities.jsonl')!.records).toBe(result.counts!.entities);
    expect(messages.at(-1)!.msg).toBe('demo data set loaded');
  });
});
