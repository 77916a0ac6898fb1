/**
 * Deterministic identifiers: name-based UUIDs (RFC 4122 version 5) and slugs. Importing the same record
 * twice, or re-running the converter or the seeder, gives the same values.
 */
import { createHash } from 'node:crypto';

/** This project's UUID namespace (itself a random v4 UUID, fixed forever). */
export const UUID_NAMESPACE = '6f1e7b2a-3c4d-4e5f-9a8b-7c6d5e4f3a2b';

const namespaceBytes = Buffer.from(UUID_NAMESPACE.replaceAll('-', ''), 'hex');

export function uuidV5(name: string, namespace: Buffer = namespaceBytes): string {
  const hash = createHash('sha1').update(namespace).update(name, 'utf8').digest();
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** Lower-case ASCII words joined by `-`; accents are dropped rather than lost with their letter. */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
