// `npm start` runs the compiled dist/main.js (scripts/build.mjs) with plain node: no TypeScript loader.
// Started from another working directory, it still finds what it reads at run time from the package
// root: the migrations, the demo data set, the prepared operations, package.json, the filter grammar.
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { testDatabaseKind } from '../helpers/db.ts';
import { createScratchDatabase } from '../helpers/server-process.ts';
import { PACKAGE_ROOT } from '../../src/package-root.ts';
import { adminOf, processEnvironment, startServer, stopServer, type RunningServer } from './usage/process-support.ts';

const DIST = join(PACKAGE_ROOT, 'dist');

let database: { url: string; drop(): Promise<void> } | undefined;
beforeAll(async () => {
  if (testDatabaseKind() === 'postgres') database = await createScratchDatabase();
});
afterAll(async () => {
  await database?.drop();
});

it('npm start runs the compiled server with node alone', () => {
  const scripts = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  expect(scripts.start).toBe('node --enable-source-maps --max-semi-space-size=64 dist/main.js');
  expect(scripts.postinstall).toMatch(/npm run build/);
  const code = readdirSync(DIST).filter((name) => name.endsWith('.js'));
  expect(code).toContain('main.js');
  const specifiersOf = (name: string) =>
    [...readFileSync(join(DIST, name), 'utf8').matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((match) => match[1]!);
  // The pattern finds imports (a chunk of helpers or of generated data may have none of its own).
  expect(specifiersOf('main.js').length).toBeGreaterThan(0);
  for (const name of code) {
    // Every import is a package, a node: built-in or a sibling chunk; nothing names TypeScript.
    for (const specifier of specifiersOf(name)) {
      expect(specifier).not.toMatch(/\.ts$|^tsx(\/|$)/);
      if (specifier.startsWith('.')) expect(specifier).toMatch(/^\.\/[\w-]+\.js$/);
    }
  }
});

it('started outside the package folder, migrates, loads the demo data and serves it', async () => {
  const env = processEnvironment({ LOAD_DEMO_DATA: 'true', ...(database ? { DATABASE_URL: database.url } : {}) });
  // Loading the demo data set (24k entities, 38k rounds) took 80 s on the embedded database of a
  // two-core machine busy with the rest of the suite: the start is bounded by the test's own time.
  const server: RunningServer = await startServer(env, mkdtempSync(join(tmpdir(), 'vda-elsewhere-')), 200_000);
  try {
    expect(server.server.output()).toMatch(/"msg":"applied \d+ migration\(s\)"/);
    const admin = await adminOf(server.url, env);
    const found = await fetch(`${server.url}/api/entities?filter=${encodeURIComponent('name[contains]:airbnb')}&fields=name`, { headers: admin.headers });
    expect(found.status).toBe(200);
    expect(((await found.json()) as { data: { name: string }[] }).data.map((row) => row.name)).toContain('Airbnb');
    const document = (await (await fetch(`${server.url}/openapi.json`)).json()) as { info: { version: string } };
    expect(document.info.version).toBe((JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version);
  } finally {
    expect(await stopServer(server)).toBe(0);
  }
}, 240_000);
