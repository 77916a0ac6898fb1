import { describe, expect, it } from 'vitest';
import { domainOf, isDomain, normaliseDomain } from '../../../src/identifiers/domain.ts';

// Every spelling a CRM export holds for one website becomes one domain.
const CASES: [input: string, domain: string][] = [
  ['stripe.com', 'stripe.com'],
  ['Stripe.COM', 'stripe.com'],
  ['www.stripe.com', 'stripe.com'],
  ['WWW.Stripe.com', 'stripe.com'],
  ['https://stripe.com', 'stripe.com'],
  ['http://www.stripe.com/', 'stripe.com'],
  ['HTTPS://WWW.STRIPE.COM/pricing', 'stripe.com'],
  ['https://www.stripe.com/pricing?utm_source=crm&utm_medium=x#plans', 'stripe.com'],
  ['stripe.com.', 'stripe.com'],
  ['https://stripe.com.:443/', 'stripe.com'],
  ['stripe.com:8080/path', 'stripe.com'],
  ['//www.stripe.com/about', 'stripe.com'],
  ['  https://stripe.com  ', 'stripe.com'],
  ['jane.doe@stripe.com', 'stripe.com'],
  ['Jane.Doe@WWW.Stripe.com', 'stripe.com'],
  ['mailto:jane@stripe.com', 'stripe.com'],
  ['https://user:secret@stripe.com/x', 'stripe.com'],
  ['dashboard.stripe.com', 'dashboard.stripe.com'],
  ['www2.stripe.com', 'www2.stripe.com'],
  ['münchen.de', 'xn--mnchen-3ya.de'],
  ['https://www.MÜNCHEN.de/stadt', 'xn--mnchen-3ya.de'],
  ['xn--mnchen-3ya.de', 'xn--mnchen-3ya.de'],
  ['bücher.example.com', 'xn--bcher-kva.example.com'],
  ['globex.co.uk', 'globex.co.uk'],
  ['', ''],
  ['   ', ''],
  ['http://', ''],
  ['not a website', ''],
];

describe('normaliseDomain', () => {
  it.each(CASES)('%j → %j', (input, domain) => {
    expect(domainOf(input)).toBe(domain);
  });

  it('keeps a single word as it is, for filters that search within domains', () => {
    expect(normaliseDomain('Stripe')).toBe('stripe');
    expect(domainOf('Stripe')).toBe('');
  });

  it('tells host names from other text', () => {
    expect(isDomain('stripe.com')).toBe(true);
    expect(isDomain('xn--mnchen-3ya.de')).toBe(true);
    expect(isDomain('stripe')).toBe(false);
    expect(isDomain('-stripe.com')).toBe(false);
    expect(isDomain('stripe.c0m')).toBe(false);
    expect(isDomain('127.0.0.1')).toBe(false);
  });
});
