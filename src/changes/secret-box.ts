/**
 * Webhook secrets at rest. Every delivery is signed with its webhook's secret, so the secret itself is
 * kept, not a hash. With WEBHOOK_SECRET_KEY (32 random bytes, base64) the service stores new secrets
 * encrypted with AES-256-GCM under that key (`enc:v1:<iv>:<tag>:<ciphertext>`), so a copy of the
 * database alone does not give them away; without it they are stored as they are. The stored form
 * says which it is, so secrets stored before a key was configured keep working.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const PREFIX = 'enc:v1:';

export interface SecretBox {
  /** The form to store. */
  seal(secret: string): string;
  /** The secret from its stored form; throws when it is encrypted and the key is missing or another. */
  open(stored: string): string;
}

export class SecretUnavailable extends Error {
  override name = 'SecretUnavailable';
}

export function secretBox(key: Buffer | undefined): SecretBox {
  return {
    seal: (secret) => {
      if (!key) return secret;
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const ciphertext = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return `${PREFIX}${[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64')).join(':')}`;
    },
    open: (stored) => {
      if (!stored.startsWith(PREFIX)) return stored;
      if (!key) throw new SecretUnavailable('the secret is stored encrypted and WEBHOOK_SECRET_KEY is not set');
      const [iv, tag, ciphertext] = stored.slice(PREFIX.length).split(':').map((part) => Buffer.from(part, 'base64'));
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv!);
        decipher.setAuthTag(tag!);
        return Buffer.concat([decipher.update(ciphertext!), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretUnavailable('the secret was encrypted with another WEBHOOK_SECRET_KEY');
      }
    },
  };
}
