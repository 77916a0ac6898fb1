import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { weakEtag } from '../../../src/http/etag.ts';

// express's own default, which the validators handed out so far were made with.
const etag = createRequire(import.meta.url)('etag') as (entity: Buffer | string, options: { weak: boolean }) => string;

describe('weakEtag', () => {
  const bodies = ['', '{}', '{"data":{"id":1,"name":"Zürich ✓"}}', 'x'.repeat(100_000), '\u{1F680} rocket'];
  it.each(bodies.map((body) => [body.slice(0, 20), body]))('tags %j as express does', (_label, body) => {
    expect(weakEtag(body)).toBe(etag(body, { weak: true }));
    expect(weakEtag(Buffer.from(body))).toBe(etag(Buffer.from(body), { weak: true }));
  });

  it('tells bodies apart that differ in one byte', () => {
    expect(weakEtag('{"a":1}')).not.toBe(weakEtag('{"a":2}'));
  });
});
