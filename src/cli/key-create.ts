/** `key:create`: an API key from the command line (e.g. for a first integration); prints the secret once. */
import { createApiKey } from '../auth/api-keys.ts';
import { parsePermissionList } from '../auth/permissions.ts';
import { asUsageError, CliUsageError, parseOptions, type Command } from './command.ts';

export const keyCreateCommand: Command = {
  name: 'key:create',
  usage: 'key:create --name N --permissions a,b --org ORG [--json]',
  summary: 'Create an API key; prints client_id and client_secret (shown only this once)',
  run: async (args, context) => {
    const options = readOptions(args);
    const db = await context.database();
    const key = await createApiKey(db.prisma, { ...options, createdBy: 'cli' });
    const tokenUrl = `${context.config.AUTH_URL}/oauth/token`;
    if (options.json) {
      context.print(JSON.stringify({
        id: key.id,
        client_id: key.client_id,
        client_secret: key.client_secret,
        org_id: options.orgId,
        permissions: key.permissions,
        token_url: tokenUrl,
        audience: context.config.PUBLIC_URL,
      }, null, 2));
    } else {
      context.print(`client_id:     ${key.client_id}`);
      context.print(`client_secret: ${key.client_secret}`);
      context.print(`The secret is shown only now; store it safely. Get a token at ${tokenUrl} (audience ${context.config.PUBLIC_URL}).`);
    }
    return 0;
  },
};

function readOptions(args: string[]) {
  const values = parseOptions(args, {
    name: { type: 'string' },
    permissions: { type: 'string' },
    org: { type: 'string' },
    json: { type: 'boolean' },
  });
  const name = values.name?.trim();
  if (!name || name.length > 200) throw new CliUsageError('--name is required (1 to 200 characters)');
  if (!values.org?.trim()) throw new CliUsageError('--org is required');
  if (!values.permissions) throw new CliUsageError('--permissions is required (comma-separated)');
  const permissions = asUsageError(() => parsePermissionList(values.permissions!));
  if (permissions.length === 0) throw new CliUsageError('--permissions must name at least one permission');
  return { name, orgId: values.org.trim(), permissions, json: values.json ?? false };
}
