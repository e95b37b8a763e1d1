/**
 * @module utils/outbound
 * The one check of every URL tollgate calls on someone's behalf: `callback_url` webhooks, Web Push endpoints, event
 * sinks and the `webhook` tool-call hook (hooks/builtin/webhook). A caller chooses the URL and the gateway POSTs to
 * it, so without a check any token holder (or anyone who can subscribe a device) could make the gateway reach loopback services, the cloud metadata endpoint
 * (169.254.169.254) or the private network behind it (SSRF), and read the answer from what the gateway does next.
 *
 * Refused: loopback, private, link-local, CGNAT, benchmark, multicast, reserved and unspecified addresses, and the
 * IPv6 forms that carry an IPv4 address (mapped `::ffff:a.b.c.d` in either spelling, compatible `::a.b.c.d`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`: the embedded address is what is judged), URLs with credentials and names under
 * `localhost`. The URL is checked when it is given (a request filed, a device subscribed, a sink configured), and
 * {@link postOutbound} checks **the address it actually connects to**, through the socket's own `lookup`: a name that
 * resolved to a public address at the first check and to a private one now (DNS rebinding) is refused there.
 *
 * An operator allows hosts or networks with `TOLLGATE_OUTBOUND_ALLOW` (comma-separated host names, addresses or CIDR
 * ranges such as `10.0.0.0/8`; `*` allows everything; `TOLLGATE_CALLBACK_ALLOW`, its earlier name, is read too): a
 * private deployment, a bridge on the same host, the test suite's fakes on 127.0.0.1.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const)
  PRIVATE.addSubnet(net, prefix, 'ipv6');

/** The 8 16-bit groups of an IPv6 address (with a dotted IPv4 tail, `::` expanded), or null when it is not one. */
function ipv6Groups(address: string): number[] | null {
  if (isIP(address) !== 6) return null;
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const middle = tail === undefined ? [] : new Array<number>(8 - left.length - right.length).fill(0);
  return [...left, ...middle, ...right];
}

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4), or null. */
function embeddedIPv4(groups: number[]): string | null {
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zero = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zero(0, 5) && groups[5] === 0xffff) return v4(groups[6]!, groups[7]!); // ::ffff:a.b.c.d
  if (zero(0, 6) && (groups[6]! !== 0 || groups[7]! > 1)) return v4(groups[6]!, groups[7]!); // ::a.b.c.d
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zero(2, 6)) return v4(groups[6]!, groups[7]!); // NAT64
  if (groups[0] === 0x2002) return v4(groups[1]!, groups[2]!); // 6to4
  return null;
}

/**
 * True for loopback, private, link-local, CGNAT, documentation, multicast, reserved and unspecified addresses, and
 * for IPv6 addresses that carry one of those (mapped, compatible, NAT64, 6to4). False for names (not addresses).
 */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return PRIVATE.check(bare, 'ipv4');
  if (family !== 6) return false;
  const groups = ipv6Groups(bare);
  const inner = groups ? embeddedIPv4(groups) : null;
  if (inner !== null) return PRIVATE.check(inner, 'ipv4');
  return PRIVATE.check(bare.replace(/%.*$/, ''), 'ipv6');
}

/** Hosts, addresses and CIDR ranges an operator allows (`TOLLGATE_OUTBOUND_ALLOW`; `*` allows every target). */
export function parseOutboundAllow(...values: (string | undefined)[]): string[] {
  return values
    .flatMap((value) => (value ?? '').split(','))
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

/** Whether the allow-list names `host` (a name or an address), or a range holding it. */
function allowed(host: string, allow: readonly string[]): boolean {
  if (allow.includes('*') || allow.includes(host)) return true;
  const family = isIP(host);
  if (family === 0) return false;
  for (const entry of allow) {
    const [net, bits] = entry.split('/');
    if (bits === undefined || isIP(net!) === 0) continue;
    const list = new BlockList();
    const type = isIP(net!) === 4 ? 'ipv4' : 'ipv6';
    try {
      list.addSubnet(net!, Number(bits), type);
    } catch {
      continue;
    }
    if (isIP(host) === isIP(net!) && list.check(host, type)) return true;
  }
  return false;
}

/** Whether the operator's allow-list names the host of URL `raw` (or a range holding its address). */
export function isAllowedTarget(raw: string, allow: readonly string[]): boolean {
  try {
    return allowed(hostOf(new URL(raw)), allow);
  } catch {
    return false;
  }
}

const ALLOW_HINT = 'allow it with TOLLGATE_OUTBOUND_ALLOW';

/** Why `raw` may not be called judging by the URL alone, or null when it may. `what` names it in messages. */
export function outboundUrlProblem(raw: string, allow: readonly string[]): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'only http and https URLs are called';
  if (url.username || url.password) return 'credentials in the URL are refused';
  const host = hostOf(url);
  if (allowed(host, allow)) return null;
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is a loopback host (${ALLOW_HINT})`;
  if (isPrivateAddress(host)) return `${host} is a loopback, private or link-local address (${ALLOW_HINT})`;
  return null;
}

/** The check of `callback_url` at filing: {@link outboundUrlProblem}, with the hint callers had before. */
export const callbackUrlProblem = outboundUrlProblem;

/** A `lookup` for sockets that refuses private addresses unless allowed: what the connection really uses. */
function guardedLookup(host: string, allow: readonly string[], resolve: typeof dnsLookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true } as LookupAllOptions, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const inside = allowed(host, allow) ? undefined : addresses.find((a) => isPrivateAddress(a.address));
      if (inside)
        return callback(
          Object.assign(new Error(`${host} resolves to ${inside.address}, a private address (${ALLOW_HINT})`), {
            code: 'ERR_OUTBOUND_REFUSED',
          }),
          '',
          0,
        );
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

/** What {@link postOutbound} sends. */
export interface OutboundPost {
  headers: Record<string, string>;
  body: string | Uint8Array;
  /** Gives up after this long (default 10 s). */
  timeoutMs?: number;
  method?: string;
  /** The resolver the socket uses (default `dns.lookup`): tests play a name that rebinds between two lookups. */
  resolver?: typeof dnsLookup;
}

/**
 * POSTs `body` to `raw` after {@link outboundUrlProblem}, connecting only to an address the check accepts (a name is
 * resolved by the socket through the guarded lookup, so the address judged is the address connected to). Never
 * follows a redirect: the status is returned as it is. The answer's body is read and dropped.
 * @throws Error saying why the target was refused, or the network error.
 */
export async function postOutbound(raw: string, post: OutboundPost, allow: readonly string[]): Promise<number> {
  return (await exchange(raw, post, allow, 0)).status;
}

/**
 * {@link postOutbound}, keeping the answer's body (up to `maxBytes`, 1 MiB by default; a longer one is an error): for
 * a caller that reads what the target says, such as the `webhook` hook's verdict.
 * @throws Error saying why the target was refused, that the answer was too long, or the network error.
 */
export function exchangeOutbound(
  raw: string,
  post: OutboundPost,
  allow: readonly string[],
  maxBytes = 1 << 20,
): Promise<{ status: number; body: string }> {
  return exchange(raw, post, allow, maxBytes);
}

/** Sends, and reads up to `keep` bytes of the answer (0: drops it). */
async function exchange(
  raw: string,
  post: OutboundPost,
  allow: readonly string[],
  keep: number,
): Promise<{ status: number; body: string }> {
  const problem = outboundUrlProblem(raw, allow);
  if (problem) throw new Error(`refused: ${problem}`);
  const url = new URL(raw);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const body = typeof post.body === 'string' ? Buffer.from(post.body) : post.body;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: post.method ?? 'POST',
        headers: { ...post.headers, 'content-length': String(body.byteLength) },
        lookup: guardedLookup(hostOf(url), allow, post.resolver ?? dnsLookup),
        signal: AbortSignal.timeout(post.timeoutMs ?? 10_000),
        agent: false,
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (keep === 0) return;
          size += chunk.byteLength;
          if (size > keep) res.destroy(new Error(`the answer is over ${keep} bytes`));
          else chunks.push(chunk);
        });
        res.once('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        res.once('error', reject);
      },
    );
    req.once('error', reject);
    req.end(body);
  });
}
