/**
 * Where webhooks may point (docs/webhooks.md, "URL safety"): http or https to a host whose every
 * address is public unicast. A loopback, private (RFC 1918, fc00::/7), link-local, unspecified, CGNAT,
 * multicast or otherwise reserved address could reach the service's own network (server-side request
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

/** The special-purpose range an address belongs to (`loopback`, `private`...), or undefined for public unicast. */
export function specialRange(address: string): string | undefined {
  if (!ipaddr.isValid(address)) return 'invalid';
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  const range = parsed.range();
  return range === 'unicast' ? undefined : range;
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
