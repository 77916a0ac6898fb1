/**
 * Domains of platforms where companies keep a profile or a page (`facebook.com/tracksby`,
 * `twitter.com/nowbox`, `linkedin.com/company/acme`): a website there is a profile, never the
 * company's own domain, so two companies with profiles on one platform share nothing by it. Matching
 * neither finds candidates by such a website nor weighs it for or against one (docs/finding-companies.md,
 * "Matching a CRM export"). A subdomain of one is one too (`m.facebook.com`, `en.wikipedia.org`).
 */
const PLATFORMS = new Set([
  'facebook.com', 'fb.com', 'fb.me', 'twitter.com', 'x.com', 't.co', 'linkedin.com', 'lnkd.in',
  'medium.com', 'github.com', 'gitlab.com', 'bitbucket.org', 'instagram.com', 'youtube.com', 'youtu.be',
  'tiktok.com', 'pinterest.com', 'tumblr.com', 'vimeo.com', 'myspace.com', 'reddit.com', 'angel.co',
  'angellist.com', 'wellfound.com', 'crunchbase.com', 'producthunt.com', 'wikipedia.org', 'about.me',
  'linktr.ee', 'yelp.com', 'glassdoor.com', 'wordpress.com', 'blogspot.com', 'sites.google.com',
  'plus.google.com', 'play.google.com', 'apps.apple.com', 'itunes.apple.com',
]);

/** Whether a normalised domain (src/identifiers/domain.ts) is a platform's, or a subdomain of one. */
export function isPlatformDomain(domain: string): boolean {
  for (let at = 0; at >= 0; at = domain.indexOf('.', at) + 1 || -1) {
    if (PLATFORMS.has(domain.slice(at))) return true;
  }
  return false;
}
