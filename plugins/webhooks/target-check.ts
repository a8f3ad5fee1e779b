import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** Addresses a webhook may not reach unless private targets are allowed (loopback, private, link-local ...). */
const PRIVATE = new BlockList();
for (const [network, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['::ffff:0:0', 96]] as const) {
  PRIVATE.addSubnet(network, prefix, 'ipv6');
}

/** Why a URL may not be a webhook target, or undefined: http(s) only, no credentials in it. */
export function urlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'invalid-url';
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return 'http-or-https-only';
  if (parsed.username || parsed.password) return 'no-credentials-in-url';
  return undefined;
}

/**
 * Whether the URL's host resolves only to public addresses (checked at each delivery, so a name
 * that later points inside the network is refused then). `allowPrivate` lifts the check (tests,
 * or receivers on the same network, by configuration).
 */
export async function reachable(url: string, allowPrivate: boolean): Promise<boolean> {
  if (allowPrivate) return true;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  const addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true }).catch(() => []);
  return addresses.length > 0 && addresses.every(({ address, family }) => !PRIVATE.check(address, family === 6 ? 'ipv6' : 'ipv4'));
}
