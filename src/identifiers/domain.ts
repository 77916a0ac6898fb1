/**
 * The one way a website becomes the domain it is compared by: in the filter grammar (`website[eq]:`),
 * the importer and seeder (the `website_domain` column), matching and search. Whatever a CRM holds,
 * `https://www.Stripe.com/pricing?utm_source=x`, `stripe.com.`, `jane@stripe.com`, `STRIPE.COM:443`,
 * is the domain `stripe.com`. An internationalised name is written in punycode (`münchen.de` →
 * `xn--mnchen-3ya.de`), as DNS and most CRMs store it.
 */
import { domainToASCII } from 'node:url';

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const TOP_LABEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

/**
 * The normalised domain of a website, URL, bare domain or e-mail address; `""` when there is none.
 * Scheme, `www.`, case, trailing dots, user info, port, path, query and fragment are dropped.
 */
export function normaliseDomain(input: string): string {
  let text = input.trim().replace(/^mailto:/i, '');
  if (!text) return '';
  if (!SCHEME.test(text)) {
    // An e-mail address names its domain after the last @; a URL's user info comes before its host.
    const at = text.lastIndexOf('@');
    if (at >= 0 && !text.slice(0, at).includes('/')) text = text.slice(at + 1);
    text = `http://${text.replace(/^\/\//, '')}`;
  }
  let host: string;
  try {
    host = new URL(text).hostname;
  } catch {
    return '';
  }
  host = domainToASCII(host.replace(/\.+$/, '')).toLowerCase();
  return host.startsWith('www.') ? host.slice('www.'.length) : host;
}

/** Whether a normalised domain is a real-looking host name: labels of letters, digits and hyphens, a dot, a top level. */
export function isDomain(domain: string): boolean {
  if (domain.length === 0 || domain.length > 253) return false;
  const labels = domain.split('.');
  return labels.length >= 2 && labels.every((label) => LABEL.test(label)) && TOP_LABEL.test(labels[labels.length - 1]!);
}

/** The domain of `input` if it is one (a website, URL or e-mail address), else `""`. */
export function domainOf(input: string): string {
  const domain = normaliseDomain(input);
  return isDomain(domain) ? domain : '';
}
