/**
 * `token:user`: a user token signed with the service's own key, for local use where no identity
 * provider is configured. Send it with `X-Client-Id: <the user id>`.
 */
import { SigningKeyStore } from '../auth/key-store.ts';
import { parsePermissionList } from '../auth/permissions.ts';
import { issueAccessToken } from '../auth/tokens.ts';
import { asUsageError, CliUsageError, parseOptions, type Command } from './command.ts';

export const tokenUserCommand: Command = {
  name: 'token:user',
  usage: 'token:user --user U --org ORG --permissions a,b',
  summary: 'Print a signed user token (subject U, organisation ORG)',
  run: async (args, context) => {
    const options = readOptions(args);
    const db = await context.database();
    const keys = new SigningKeyStore(db.sql, context.config, context.logger);
    const { accessToken } = await issueAccessToken(keys, context.config, {
      subject: options.user,
      orgId: options.org,
      permissions: options.permissions,
      kind: 'user',
    });
    // Only the token on stdout, so `TOKEN=$(npm run -s cli -- token:user ...)` works.
    context.print(accessToken);
    return 0;
  },
};

function readOptions(args: string[]) {
  const values = parseOptions(args, { user: { type: 'string' }, org: { type: 'string' }, permissions: { type: 'string' } });
  const user = values.user?.trim();
  const org = values.org?.trim();
  if (!user || user.length > 256) throw new CliUsageError('--user is required (the user id, at most 256 characters)');
  if (!org) throw new CliUsageError('--org is required');
  return { user, org, permissions: asUsageError(() => parsePermissionList(values.permissions ?? '')) };
}
