/**
 * @module utils/outbound
 * Where `callback_url` webhooks may go. A caller chooses the URL and the gateway POSTs to it, so without a check any
 * token holder could make the gateway reach loopback services, the cloud metadata endpoint (169.254.169.254) or the
 * private network behind it (SSRF). Loopback, private, link-local, CGNAT and unique-local targets, and URLs with
 * credentials, are refused unless the operator lists the host in `TOLLGATE_CALLBACK_ALLOW`; the check runs when a
 * request is filed (on the URL) and again before each POST (on every address the host resolves to). Webhooks never
 * follow redirects (see `gateway/jobs.ts`).
 *
 * @remarks Left out: pinning the resolved address for the connection itself. A host that resolves to a public address
 * at the check and to a private one a moment later (DNS rebinding) is not caught; put an egress proxy in front of the
 * gateway where that matters (docs/production.md).
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv6');

/** True for loopback, private, link-local, CGNAT, multicast and unspecified addresses (IPv4-mapped IPv6 included). */
export function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return PRIVATE.check(mapped, 'ipv4');
  const family = isIP(address);
  if (family === 0) return false;
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Hosts an operator allows despite the rules (`TOLLGATE_CALLBACK_ALLOW`, comma-separated; `*` allows every host). */
export function parseCallbackAllow(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((h) =>
      h
        .trim()
        .toLowerCase()
        .replace(/^\[|\]$/g, ''),
    )
    .filter(Boolean);
}

function hostOf(url: URL): string {
  return url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
}

function allowed(host: string, allow: readonly string[]): boolean {
  return allow.includes('*') || allow.includes(host);
}

/** Why `raw` may not be a callback target judging by the URL alone, or null when it may. */
export function callbackUrlProblem(raw: string, allow: readonly string[]): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'only http and https callbacks are sent';
  if (url.username || url.password)
    return 'credentials in the URL are refused (sign callbacks with TOLLGATE_CALLBACK_SECRET instead)';
  const host = hostOf(url);
  if (allowed(host, allow)) return null;
  if (host === 'localhost' || host.endsWith('.localhost'))
    return `${host} is a loopback host (allow it with TOLLGATE_CALLBACK_ALLOW)`;
  if (isPrivateAddress(host))
    return `${host} is a loopback, private or link-local address (allow it with TOLLGATE_CALLBACK_ALLOW)`;
  return null;
}

/** Checks the URL and every address its host resolves to, just before a POST. Throws with the reason when refused. */
export async function assertCallbackTarget(raw: string, allow: readonly string[]): Promise<void> {
  const problem = callbackUrlProblem(raw, allow);
  if (problem) throw new Error(`callback_url refused: ${problem}`);
  const host = hostOf(new URL(raw));
  if (allowed(host, allow) || isIP(host)) return;
  const addresses = await lookup(host, { all: true });
  const inside = addresses.find((a) => isPrivateAddress(a.address));
  if (inside)
    throw new Error(
      `callback_url refused: ${host} resolves to ${inside.address}, a private address (allow it with TOLLGATE_CALLBACK_ALLOW)`,
    );
}
