import { describe, expect, it } from 'vitest';
import { domainOf } from '../../../src/identifiers/domain.ts';
import { isPlatformDomain } from '../../../src/identifiers/platforms.ts';

describe('platform domains', () => {
  it('are the platforms where companies keep a profile, and their subdomains', () => {
    for (const website of ['https://www.facebook.com/tracksby', 'twitter.com/nowbox', 'https://www.linkedin.com/company/acme', 'medium.com/@acme',
      'github.com/acme', 'm.facebook.com/acme', 'https://en.wikipedia.org/wiki/Acme', 'uk.linkedin.com/in/jane', 'acme.medium.com']) {
      expect(isPlatformDomain(domainOf(website)), website).toBe(true);
    }
  });

  it('are not a company’s own domain, even one that ends like a platform’s', () => {
    for (const website of ['stripe.com', 'notfacebook.com', 'facebook.com.evil.example', 'acme.github.io', 'google.com', 'slack.com', 'x.company.io']) {
      expect(isPlatformDomain(domainOf(website)), website).toBe(false);
    }
  });
});
