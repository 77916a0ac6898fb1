/**
 * A search's `q` read as a website: a domain, URL or e-mail address becomes the normalised domain the
 * entity's `website_domain` holds (the one normaliser, src/identifiers/domain.ts); anything else, a
 * name with spaces among it, is no domain. `Booking.com` is both, and is searched as both.
 */
import { domainOf } from '../identifiers/domain.ts';

export function searchDomain(q: string): string | null {
  const text = q.trim();
  if (!text || /\s/.test(text)) return null;
  return domainOf(text) || null;
}
