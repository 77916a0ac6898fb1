/**
 * docs/adding-a-field.md's patch is what adding a field takes, and cannot go stale: its ```diff block,
 * with the field renamed to one nobody has seen, is applied with `git apply` to a copy of the tree,
 * which then generates its Prisma client and runs test/fixtures/adding-a-field/check.ts. That script
 * reads each derived surface of the built schema (filters, sort, catalogue, REST selection, OpenAPI,
 * MCP, aggregates, importer, writers, change triggers) and imports a record carrying the field into a
 * database migrated with the patch's migration (this project's database: PGlite or PostgreSQL).
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { testDatabaseKind, testPostgresUrl } from '../helpers/db.ts';

const run = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;
const copy = mkdtempSync(join(tmpdir(), 'adding-a-field-'));

afterAll(() => rmSync(copy, { recursive: true, force: true }));

/** The page's one diff block. */
function documentedPatch(): string {
  const page = readFileSync(join(root, 'docs/adding-a-field.md'), 'utf8');
  const blocks = [...page.matchAll(/^```diff\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
  expect(blocks).toHaveLength(1);
  return blocks[0]!;
}

/** The parts of the tree a build needs; node_modules is shared, the generated client is made afresh. */
function copyTree(): void {
  for (const path of ['src', 'scripts', 'test/fixtures/adding-a-field', 'prisma/schema.prisma', 'prisma/migrations', 'package.json', 'tsconfig.json', 'prisma.config.ts']) {
    cpSync(join(root, path), join(copy, path), { recursive: true, filter: (source) => !source.includes('/src/db/generated') });
  }
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'), 'dir');
}

it('applies to a copy of the tree under a new name, and the field is on every surface and in the database', async () => {
  const field = `zz_headcount_${Date.now().toString(36)}`;
  const patch = documentedPatch().replaceAll('employee_count', field);
  expect(patch).toContain(field);
  copyTree();
  writeFileSync(join(copy, 'field.diff'), patch);
  await run('git', ['apply', '--verbose', 'field.diff'], { cwd: copy });
  const changed = (await run('git', ['apply', '--numstat', 'field.diff'], { cwd: copy })).stdout.trim().split('\n');
  // At most three files besides one new migration.
  expect(changed.filter((line) => !line.includes('prisma/migrations/')).length).toBeLessThanOrEqual(3);
  expect(changed.filter((line) => line.includes('prisma/migrations/'))).toHaveLength(1);

  await run(process.execPath, ['scripts/generate.mjs'], { cwd: copy });
  const database = testDatabaseKind() === 'postgres' ? testPostgresUrl() : 'pglite';
  const { stdout } = await run(join(copy, 'node_modules/.bin/tsx'), ['test/fixtures/adding-a-field/check.ts', field, database], {
    cwd: copy,
    maxBuffer: 16 * 1024 * 1024,
  });
  const { derived, database: stored } = JSON.parse(stdout.trim().split('\n').at(-1)!);

  expect(derived).toEqual({
    sdl: true,
    catalogue: { name: field, type: 'int', operators: ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in_any', 'nin_any'], sortable: true, nullable: true },
    sortable: true,
    filterCompiles: true,
    listSelection: true,
    recordFields: true,
    openApiProperty: expect.objectContaining({ type: ['integer', 'null'] }),
    openApiExample: 120,
    metrics: expect.arrayContaining(['sum', 'avg', 'median']),
    mcpFilterDescription: true,
    importAccepts: true,
    importRefusal: [field],
    writerColumns: true,
    triggerHides: false,
    feedField: field,
  });
  expect(stored.stored).toBe(121);
  expect(stored.changes).toEqual([
    { kind: 'created', changed_columns: null },
    { kind: 'updated', changed_columns: [field, 'updated_at'].sort() },
  ]);
  expect(stored.importError).toContain(`line 1: ${field}: expected integer`);
}, 240_000);
