/**
 * `keys:rotate-signing`: a new signing key signs from now on; the old one is retired but stays in the
 * JWKS (and valid for verification) until its last token has expired. Running servers pick the new
 * key up within a minute, or at once when they see a token signed with it.
 */
import { rotateSigningKey, ROTATION_GRACE_SECONDS } from '../auth/signing-keys.ts';
import { CliUsageError, type Command } from './command.ts';

export const keysRotateSigningCommand: Command = {
  name: 'keys:rotate-signing',
  usage: 'keys:rotate-signing',
  summary: 'Start signing tokens with a new key; the old one stays published until its tokens expire',
  run: async (args, context) => {
    if (args.length) throw new CliUsageError(`Unexpected arguments: ${args.join(' ')}`);
    if (context.config.SIGNING_KEY_JWK) {
      throw new CliUsageError('SIGNING_KEY_JWK is set: rotate by configuring a new key (the old one stays published until its tokens expire)');
    }
    const db = await context.database();
    const { kid, retired } = await rotateSigningKey(db.sql, context.config);
    const until = new Date(Date.now() + (context.config.TOKEN_TTL_SECONDS + ROTATION_GRACE_SECONDS) * 1000).toISOString();
    context.print(`New signing key: ${kid}`);
    if (retired.length) context.print(`Retired (published until about ${until}): ${retired.join(', ')}`);
    return 0;
  },
};
