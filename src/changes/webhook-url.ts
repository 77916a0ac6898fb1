/**
 * Where webhooks may point (docs/webhooks.md, "URL safety"): http or https to a host whose every
 * address is public unicast. A loopback, private (RFC 1918, fc00::/7), link-local, unspecified, CGNAT,
 * multicast or otherwise reserved address (IPv6 forms that embed one included) could reach the service's own network (server-side request
 * forgery), so it is refused at creation, at update, and again at each delivery, when the name is
 * resolved once and the connection goes to the very address checked (a second lookup could answer
 * otherwise: DNS rebinding). WEBHOOK_ALLOW_PRIVATE_URLS=true lifts the rule (a private deployment,
 * the tests' receivers on 127.0.0.1).
 */
import { lookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

/** A host name → its addresses (the system resolver by default; tests inject their own). */
export type ResolveHost = (hostname: string) => Promise<string[]>;

export const systemResolver: ResolveHost = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((entry) => entry.address);

export interface UrlPolicy {
  allowPrivate: boolean;
  resolve: ResolveHost;
}

/** A refusal, worded for a client: why the URL or the address it resolved to is not allowed. */
export class UrlRefused extends Error {
  override name = 'UrlRefused';
}

/** Where global unicast IPv6 addresses are allocated; the rest of the space is reserved or special. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
/** The deprecated IPv4-compatible block (RFC 4291 2.5.5.1): `::7f00:1` is 127.0.0.1 in IPv6 clothes. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
/** NAT64's well-known prefix (RFC 6052): a DNS64 network reaches IPv4 host a.b.c.d as 64:ff9b::a.b.c.d. */
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');
/** IPv4-translated addresses (RFC 6145, SIIT): ::ffff:0:a.b.c.d. */
const IPV4_TRANSLATED = ipaddr.parseCIDR('::ffff:0:0:0/96');

const lastIPv4 = (address: ipaddr.IPv6): ipaddr.IPv4 => {
  const bytes = address.toByteArray();
  return new ipaddr.IPv4(bytes.slice(12));
};

/**
 * The IPv4 destination an IPv6 address stands for, where the network turns it into one: mapped
 * (::ffff:a.b.c.d), NAT64 and SIIT translated. Judged as that IPv4 address, so a mapped loopback is a
 * loopback and a NAT64 address of a public host is public.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  if (address.match(NAT64) || address.match(IPV4_TRANSLATED)) return lastIPv4(address);
  return undefined;
}

function ipv6Range(address: ipaddr.IPv6): string | undefined {
  const embedded = embeddedIPv4(address);
  if (embedded) return ipv4Range(embedded);
  const range = address.range();
  if (range !== 'unicast') return range;
  // ipaddr.js calls whatever it has no name for unicast, the deprecated IPv4-compatible block (RFC 4291)
  // and the rest of the space outside 2000::/3 included: none of it is routed on the internet.
  if (address.match(IPV4_COMPATIBLE)) return 'ipv4Compatible';
  return address.match(GLOBAL_UNICAST) ? undefined : 'reserved';
}

const ipv4Range = (address: ipaddr.IPv4): string | undefined => {
  const range = address.range();
  return range === 'unicast' ? undefined : range;
};

/**
 * The special-purpose range an address belongs to (`loopback`, `private`...), or undefined for public
 * unicast. Only public unicast passes: IPv4 that ipaddr.js calls unicast, IPv6 in 2000::/3 that it
 * calls unicast, and IPv6 forms that stand for an IPv4 address judged as that address. 6to4 and Teredo,
 * which tunnel to an IPv4 address, are refused as such.
 */
export function specialRange(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'invalid';
  const parsed = ipaddr.parse(address);
  return parsed.kind() === 'ipv6' ? ipv6Range(parsed as ipaddr.IPv6) : ipv4Range(parsed as ipaddr.IPv4);
}

/** The URL's host as an address or a name: `[::1]` → `::1`. */
const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** RFC 6761: `localhost` and names under it are loopback, whatever a resolver says. */
const isLocalhostName = (host: string): boolean => /(^|\.)localhost\.?$/i.test(host);

function refuseAddress(host: string, address: string): void {
  const range = specialRange(address);
  if (range === undefined) return;
  const what = host === address ? address : `${host} (${address})`;
  throw new UrlRefused(`${what} is a ${range} address; webhooks must reach public addresses (WEBHOOK_ALLOW_PRIVATE_URLS=true allows others)`);
}

/**
 * At creation and update: the host must not be, or resolve to, a special-purpose address. A name that
 * does not resolve yet is accepted (its DNS may come later): every delivery checks again.
 */
export async function checkWebhookUrl(url: URL, policy: UrlPolicy): Promise<void> {
  if (policy.allowPrivate) return;
  const host = hostOf(url);
  if (isLocalhostName(host)) throw new UrlRefused(`${host} is a loopback name; webhooks must reach public addresses (WEBHOOK_ALLOW_PRIVATE_URLS=true allows others)`);
  if (ipaddr.isValid(host)) return refuseAddress(host, host);
  let addresses: string[];
  try {
    addresses = await policy.resolve(host);
  } catch {
    return;
  }
  for (const address of addresses) refuseAddress(host, address);
}

export interface PinnedAddress {
  address: string;
  family: 4 | 6;
}

/**
 * At delivery: the one address to connect to, resolved now and checked. Every address of the name
 * must be allowed (one private address among public ones is refused, not skipped).
 */
export async function resolveForDelivery(url: URL, policy: UrlPolicy): Promise<PinnedAddress> {
  const host = hostOf(url);
  if (!policy.allowPrivate && isLocalhostName(host)) throw new UrlRefused(`${host} is a loopback name; refused`);
  let addresses: string[];
  if (ipaddr.isValid(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await policy.resolve(host);
    } catch (error) {
      throw new UrlRefused(`could not resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    if (addresses.length === 0) throw new UrlRefused(`could not resolve ${host}: no address`);
  }
  if (!policy.allowPrivate) for (const address of addresses) refuseAddress(host, address);
  const address = addresses[0]!;
  return { address, family: ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4 };
}
