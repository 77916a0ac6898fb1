// The command-line tools: key:create and token:user, run against the database a live app uses.
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliUsageError, type CliContext } from '../../../src/cli/command.ts';
import { keyCreateCommand } from '../../../src/cli/key-create.ts';
import { tokenUserCommand } from '../../../src/cli/token-user.ts';
import { createLogger } from '../../../src/logger.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { requestToken } from '../../helpers/auth.ts';
import { callApi } from './support.ts';

let app: TestApp;

beforeAll(async () => {
  app = await startTestApp();
});

afterAll(async () => {
  await app.close();
});

async function run(command: typeof keyCreateCommand, args: string[]): Promise<{ code: number; lines: string[] }> {
  const lines: string[] = [];
  const context: CliContext = {
    config: app.config,
    logger: createLogger({ level: 'silent' }),
    database: async () => app.db,
    print: (line) => lines.push(line),
  };
  return { code: await command.run(args, context), lines };
}

describe('key:create', () => {
  it('prints client_id and client_secret once; the key works', async () => {
    const { code, lines } = await run(keyCreateCommand, ['--name', 'cli key', '--permissions', 'read:entities,read:founders', '--org', 'cli-org']);
    expect(code).toBe(0);
    const clientId = /^client_id:\s+(\S+)$/.exec(lines[0]!)?.[1];
    const clientSecret = /^client_secret:\s+(vds_\S+)$/.exec(lines[1]!)?.[1];
    expect(clientId && clientSecret).toBeTruthy();
    const stored = await app.db.prisma.apiKey.findUniqueOrThrow({ where: { client_id: clientId! } });
    expect(stored).toMatchObject({ name: 'cli key', org_id: 'cli-org', permissions: ['read:entities', 'read:founders'], created_by: 'cli' });
    const token = await requestToken(app, clientId!, clientSecret!);
    expect((await callApi(app, token, clientId!)).status).toBe(200);
  });

  it('prints JSON with --json', async () => {
    const { lines } = await run(keyCreateCommand, ['--name', 'json key', '--permissions', 'read:entities', '--org', 'cli-org', '--json']);
    const printed = JSON.parse(lines.join('\n'));
    expect(printed).toEqual({
      id: expect.any(Number),
      client_id: expect.any(String),
      client_secret: expect.stringMatching(/^vds_/),
      org_id: 'cli-org',
      permissions: ['read:entities'],
      token_url: `${app.config.AUTH_URL}/oauth/token`,
      audience: app.config.PUBLIC_URL,
    });
  });

  it.each([
    [['--permissions', 'read:entities', '--org', 'o'], /--name/],
    [['--name', 'n', '--org', 'o'], /--permissions/],
    [['--name', 'n', '--permissions', 'read:entities'], /--org/],
    [['--name', 'n', '--permissions', 'read:entities,read:all', '--org', 'o'], /read:all/],
    [['--name', 'n', '--permissions', 'read:entities', '--org', 'o', '--bogus'], /bogus/],
  ])('refuses %j', async (args, message) => {
    const attempt = run(keyCreateCommand, args);
    await expect(attempt).rejects.toBeInstanceOf(CliUsageError);
    await expect(attempt).rejects.toThrow(message);
  });
});

describe('token:user', () => {
  it('prints a user token signed with the service key; X-Client-Id is the user id', async () => {
    const { code, lines } = await run(tokenUserCommand, ['--user', 'alice', '--org', 'cli-org', '--permissions', 'read:entities']);
    expect(code).toBe(0);
    expect(lines).toHaveLength(1);
    const token = lines[0]!;
    const claims = decodeJwt(token);
    expect(claims).toMatchObject({ sub: 'alice', org_id: 'cli-org', permissions: ['read:entities'], iss: app.config.PUBLIC_URL });
    expect(claims.gty).toBeUndefined();
    expect((await callApi(app, token, 'alice')).status).toBe(200);
    expect((await callApi(app, token, 'bob')).status).toBe(400);
    expect((await callApi(app, token, 'alice', '/api/founders')).status).toBe(403);
  });

  it('refuses a missing user', async () => {
    await expect(run(tokenUserCommand, ['--org', 'o', '--permissions', 'read:entities'])).rejects.toThrow(/--user/);
  });
});
