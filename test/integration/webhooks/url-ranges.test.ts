// Which addresses a webhook URL may name, table-driven over HTTP: only public unicast passes. IPv6
// forms that stand for an IPv4 address (mapped, NAT64, SIIT) are judged as that address, and the
// deprecated IPv4-compatible block, 6to4, Teredo and the space outside 2000::/3 are refused outright.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { createApiKeyAndToken, type TestCredentials } from '../../helpers/auth.ts';
import { call } from '../management/support.ts';

let app: TestApp;
let admin: TestCredentials;

beforeAll(async () => {
  app = await startTestApp();
  admin = await createApiKeyAndToken(app);
});

afterAll(async () => {
  await app.close();
});

/** URL → the range named in the refusal (`undefined`: accepted). */
const TABLE: [string, string | undefined][] = [
  // The IPv4-compatible block (::/96): the two spellings of the finding, and a public-looking one.
  ['http://[::127.0.0.1]/', 'ipv4Compatible'],
  ['http://[0:0:0:0:0:0:7f00:1]/', 'ipv4Compatible'],
  ['http://[::10.0.0.1]/', 'ipv4Compatible'],
  ['http://[::8.8.8.8]/', 'ipv4Compatible'],
  // IPv4-mapped: judged as the IPv4 address.
  ['http://[::ffff:127.0.0.1]/', 'loopback'],
  ['http://[::ffff:169.254.169.254]/', 'linkLocal'],
  ['http://[::ffff:192.168.1.1]/', 'private'],
  ['http://[::ffff:8.8.8.8]/', undefined],
  // NAT64 (64:ff9b::/96) and SIIT (::ffff:0:0:0/96): the IPv4 host the network translates to.
  ['http://[64:ff9b::127.0.0.1]/', 'loopback'],
  ['http://[64:ff9b::10.1.2.3]/', 'private'],
  ['http://[64:ff9b::100.64.0.1]/', 'carrierGradeNat'],
  ['http://[64:ff9b::8.8.8.8]/', undefined],
  ['http://[::ffff:0:127.0.0.1]/', 'loopback'],
  ['http://[::ffff:0:8.8.8.8]/', undefined],
  ['http://[64:ff9b:1::a00:1]/', 'rfc6052'],
  // Tunnels to an IPv4 address: 6to4 (2002::/16) and Teredo (2001::/32), whatever they embed.
  ['http://[2002:7f00:1::1]/', '6to4'],
  ['http://[2002:808:808::1]/', '6to4'],
  ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'teredo'],
  // The rest of the IPv6 space that is not public unicast.
  ['http://[::]/', 'unspecified'],
  ['http://[::1]/', 'loopback'],
  ['http://[fe80::1]/', 'linkLocal'],
  ['http://[fd00::1]/', 'uniqueLocal'],
  ['http://[ff02::1]/', 'multicast'],
  ['http://[100::1]/', 'discard'],
  ['http://[2001:db8::1]/', 'reserved'],
  ['http://[4000::1]/', 'reserved'],
  ['http://[2606:4700:4700::1111]/', undefined],
  // IPv4, in the spellings a URL parser turns into a dotted quad.
  ['http://127.1/', 'loopback'],
  ['http://2130706433/', 'loopback'],
  ['http://0x7f.0.0.1/', 'loopback'],
  ['http://100.64.1.1/', 'carrierGradeNat'],
  ['http://255.255.255.255/', 'broadcast'],
  ['http://8.8.8.8/', undefined],
];

describe('webhook URLs by address', () => {
  it.each(TABLE)('%s → %s', async (url, range) => {
    const response = await call(admin, 'POST', '/api/webhooks', { url, events: ['entity.created'] });
    if (range === undefined) {
      expect(response.status).toBe(201);
      return;
    }
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('VALIDATION_ERROR');
    expect(response.body.error.details).toEqual([{ path: 'body.url', message: expect.stringContaining(` is a ${range} address; `) }]);
  });

  it('refuses the same at update, and leaves the URL as it was', async () => {
    const { id, url } = (await call(admin, 'POST', '/api/webhooks', { url: 'http://8.8.8.8/hook', events: ['entity.created'] })).body.data;
    for (const [refused] of TABLE.filter(([, range]) => range !== undefined).slice(0, 4)) {
      const response = await call(admin, 'PATCH', `/api/webhooks/${id}`, { url: refused });
      expect([refused, response.status]).toEqual([refused, 400]);
    }
    expect((await call(admin, 'GET', `/api/webhooks/${id}`)).body.data.url).toBe(url);
  });
});
