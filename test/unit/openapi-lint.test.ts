// `@redocly/cli lint` with its recommended rules (redocly.yaml) over the document the service serves:
// no error, and no warning but the ones the README explains (OpenAPI, "Lint").
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { buildOpenApiDocument } from '../../src/openapi/index.ts';
import { loadOperations } from '../../src/rest/operations.ts';
import { routes } from '../../src/rest/routes.ts';
import { getSchema } from '../../src/api-schema.ts';

const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The warnings the README explains, by rule. */
const EXPLAINED_WARNINGS = ['no-server-example.com'];

it('passes the recommended rules with no error and only the explained warnings', async () => {
  const schema = getSchema();
  const config = loadConfig({ LOAD_DEMO_DATA: 'false' });
  const file = join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(buildOpenApiDocument({ schema, operations: loadOperations(schema), routes, config })));
  const redocly = new URL('../../node_modules/.bin/redocly', import.meta.url).pathname;
  const { stdout } = await promisify(execFile)(redocly, ['lint', file, '--config', new URL('../../redocly.yaml', import.meta.url).pathname, '--format', 'json'], {
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  const { problems } = JSON.parse(stdout) as { problems: { ruleId: string; severity: string; message: string }[] };
  expect(problems.filter((problem) => problem.severity === 'error')).toEqual([]);
  expect([...new Set(problems.map((problem) => problem.ruleId))]).toEqual(EXPLAINED_WARNINGS);
}, 60_000);
