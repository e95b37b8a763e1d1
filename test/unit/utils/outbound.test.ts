/**
 * The one outbound check (#58, finding 4): every form of a private address is refused, and the address judged is the
 * address connected to, so a name that resolves to a public address when the URL is checked and to a private one when
 * the socket connects (DNS rebinding) reaches nothing.
 */
import type { lookup } from 'node:dns';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchangeOutbound, isPrivateAddress, outboundUrlProblem, postOutbound } from '../../../src/utils/outbound.js';

let server: Server;
let port: number;
const hits: string[] = [];
beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const size = /^\/answer\/(\d+)$/.exec(req.url ?? '')?.[1];
    if (size) res.writeHead(200, { 'content-type': 'application/json' }).end(`"${'x'.repeat(Number(size) - 2)}"`);
    else res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A resolver that answers `127.0.0.1` for every name: what a rebinding name answers at connect time. */
const rebinding = ((_host: string, options: unknown, callback: (...args: unknown[]) => void) => {
  const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all;
  if (all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
}) as unknown as typeof lookup;

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '10.0.0.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::',
    '::1',
    'fe80::1',
    'fd12::1',
    '::ffff:127.0.0.1',
    '::ffff:a9fe:a9fe',
    '::ffff:7f00:1',
    '::a9fe:a9fe',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::10.0.0.1',
    '2002:a9fe:a9fe::',
    '2002:0a00:0001::1',
  ])('%s is private', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808', 'example.com'])(
    '%s is not',
    (address) => {
      expect(isPrivateAddress(address)).toBe(false);
    },
  );
});

describe('postOutbound', () => {
  it('refuses a name whose address at connect time is private (DNS rebinding), and nothing is sent', async () => {
    expect(outboundUrlProblem(`http://rebind.example:${port}/x`, [])).toBeNull();
    const before = hits.length;
    await expect(
      postOutbound(`http://rebind.example:${port}/x`, { headers: {}, body: '{}', resolver: rebinding }, []),
    ).rejects.toThrow(/rebind\.example resolves to 127\.0\.0\.1, a private address/);
    expect(hits.length).toBe(before);
  });

  it('posts where the operator allows the name, a range or the address, and never follows a redirect', async () => {
    const allowed = { headers: {}, body: '{}', resolver: rebinding };
    expect(await postOutbound(`http://rebind.example:${port}/a`, allowed, ['rebind.example'])).toBe(204);
    expect(await postOutbound(`http://127.0.0.1:${port}/b`, allowed, ['127.0.0.0/8'])).toBe(204);
    expect(hits).toContain('/a');
    expect(hits).toContain('/b');
    await expect(postOutbound(`http://127.0.0.1:${port}/c`, allowed, [])).rejects.toThrow(/127\.0\.0\.1 is a loopback/);
    expect(hits).not.toContain('/c');
  });
});

describe('exchangeOutbound', () => {
  it('returns the answer with its status up to maxBytes, refuses a longer one, and checks the target alike', async () => {
    const post = { headers: {}, body: '{}' };
    const allow = ['127.0.0.1'];
    expect(await exchangeOutbound(`http://127.0.0.1:${port}/answer/1024`, post, allow, 1024)).toEqual({
      status: 200,
      body: `"${'x'.repeat(1022)}"`,
    });
    await expect(exchangeOutbound(`http://127.0.0.1:${port}/answer/1025`, post, allow, 1024)).rejects.toThrow(
      'the answer is over 1024 bytes',
    );
    await expect(exchangeOutbound(`http://127.0.0.1:${port}/answer/10`, post, [])).rejects.toThrow(
      /127\.0\.0\.1 is a loopback/,
    );
  });
});
