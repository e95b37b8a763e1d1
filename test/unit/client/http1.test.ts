/**
 * The hook's bare-socket HTTP/1.1 client (`client/http1`) against real node:http servers and raw TCP servers that
 * answer byte for byte: framing (content-length, chunked, up to the close, interim 1xx), and failures as the
 * `GateClientError`s `node:http` gave before it (refused, cut mid-answer, not HTTP, no answer in time, problem+json).
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { GateClientError } from '../../../src/client/errors.js';
import { postJson } from '../../../src/client/http1.js';
import { parseAnswer } from '../../../src/client/http1-parse.js';

/** What an unreachable gateway's message adds when nothing listens there. */
const NOT_RUNNING =
  '. Is tollgate running? Start it with `tollgate serve` (`npm start` in a clone), or set TOLLGATE_URL to where it runs';

/** A self-signed certificate for localhost (P-256, 100 years), trusted by no one: made for this test only. */
const SELF_SIGNED = {
  cert: `-----BEGIN CERTIFICATE-----
MIIBmzCCAUGgAwIBAgIUDnM15CxZLNJMkUK8gj4ng+51AlowCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyNTE1MTQ0NloYDzIxMjYxMTAx
MTUxNDQ2WjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASKDMivzmdtJYAvqdy1lRAXTyqZ1T6VJC6KPS73VntxL4L65NH0McEr
CBPWk/DvqiGFozw6U4R2w0xfvvwWS9bio28wbTAdBgNVHQ4EFgQUyyN9kZpcWdeY
DR9bPkURrX8S/zUwHwYDVR0jBBgwFoAUyyN9kZpcWdeYDR9bPkURrX8S/zUwDwYD
VR0TAQH/BAUwAwEB/zAaBgNVHREEEzARgglsb2NhbGhvc3SHBH8AAAEwCgYIKoZI
zj0EAwIDSAAwRQIgC92JIMf8QmicHEbf0cPX51bdVARYeDHcv3G0J7BmwzwCIQDl
EFP6F2X01hgn3NnkMgl1yPbWmq2VuIFhtSGYRdieMg==
-----END CERTIFICATE-----`,
  key: `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgffe6gsaUMHmReg+M
rLhVT9UdT+GNMi+D2qgf7p6y5XWhRANCAASKDMivzmdtJYAvqdy1lRAXTyqZ1T6V
JC6KPS73VntxL4L65NH0McErCBPWk/DvqiGFozw6U4R2w0xfvvwWS9bi
-----END PRIVATE KEY-----`,
};

const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

async function httpServer(handler: RequestListener): Promise<string> {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => server.close());
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A TCP server that reads the request head and writes `answer` (then closes, unless `keepOpen`). */
async function rawServer(answer: string[], keepOpen = false): Promise<string> {
  const sockets: Socket[] = [];
  const server = createTcpServer((socket) => {
    sockets.push(socket);
    socket.once('data', async () => {
      for (const part of answer) {
        socket.write(part);
        await new Promise((resolve) => setImmediate(resolve)); // separate reads on the client
      }
      if (!keepOpen) socket.end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => {
    sockets.forEach((s) => s.destroy());
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const post = (base: string, timeoutMs = 5000) =>
  postJson(
    { url: base, token: 'tok' },
    new URL(`${base}/v1/hooks/claude-code?wait=1&channel=a%20b`),
    '{"tool_name":"Bash","é":1}',
    timeoutMs,
  );
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable(),
    (error: unknown) => error as GateClientError,
  );

describe('postJson over a bare socket', () => {
  it('sends one POST with the token, JSON body, path and query, and reads a content-length answer', async () => {
    let seen: { method?: string; url?: string; headers?: Record<string, unknown>; body?: string } = {};
    const base = await httpServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        seen = { method: req.method, url: req.url, headers: req.headers, body };
        res.setHeader('tollgate-request-status', 'approved');
        res.end('{"hookSpecificOutput":{"ok":"é"}}');
      });
    });
    const answer = await post(base);
    expect(answer).toMatchObject({ status: 200, body: '{"hookSpecificOutput":{"ok":"é"}}' });
    expect(answer.headers['tollgate-request-status']).toBe('approved');
    expect(seen).toMatchObject({
      method: 'POST',
      url: '/v1/hooks/claude-code?wait=1&channel=a%20b',
      body: '{"tool_name":"Bash","é":1}',
    });
    expect(seen.headers).toMatchObject({
      authorization: 'Bearer tok',
      'content-type': 'application/json',
      accept: 'application/json',
      connection: 'close',
    });
  });

  it('reads chunked answers, answers framed by the close, and skips interim 1xx answers', async () => {
    const chunked = await httpServer((_req, res) => {
      res.write('{"a":');
      setImmediate(() => res.end('"chunked"}'));
    });
    expect((await post(chunked)).body).toBe('{"a":"chunked"}');
    const untilClose = await rawServer(['HTTP/1.1 200 OK\r\nX-One: 1\r\nx-one: 2\r\n\r\n{"a":', '"closed"}']);
    expect(await post(untilClose)).toMatchObject({ body: '{"a":"closed"}', headers: { 'x-one': '1, 2' } });
    const interim = await rawServer(
      ['HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n', '{}'],
      true,
    );
    expect((await post(interim)).body).toBe('{}');
  });

  it('refuses a token that would break the request head, as node:http did', async () => {
    const error = await failure(
      postJson(
        { url: 'http://127.0.0.1:9', token: 'tok\r\nx-evil: 1' },
        new URL('http://127.0.0.1:9/v1/hooks/claude-code'),
        '{}',
        1000,
      ),
    );
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toBe('Invalid character in header content ["authorization"]');
  });

  it('rejects a non-2xx answer with its problem document', async () => {
    const base = await httpServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/problem+json' });
      res.end(
        JSON.stringify({
          type: 'https://tollgate.dev/problems/unauthorized',
          title: 'Unauthorized',
          status: 401,
          detail: 'invalid bearer token',
        }),
      );
    });
    const error = await failure(post(base));
    expect(error).toBeInstanceOf(GateClientError);
    expect(error).toMatchObject({
      status: 401,
      message: 'invalid bearer token',
      retryable: false,
      code: 'unauthorized',
    });
  });

  it('fails retryable (status 0) when refused, cut mid-answer, not HTTP, or silent past the timeout', async () => {
    const refused = await failure(post('http://127.0.0.1:9'));
    expect(refused).toMatchObject({
      status: 0,
      retryable: true,
      message: `cannot reach the gateway at http://127.0.0.1:9: connect ECONNREFUSED 127.0.0.1:9${NOT_RUNNING}`,
    });
    const cut = await rawServer(['HTTP/1.1 200 OK\r\ncontent-length: 50\r\n\r\n{"a"']);
    expect(await failure(post(cut))).toMatchObject({
      status: 0,
      retryable: true,
      message: expect.stringMatching(/: socket hang up$/),
    });
    const notHttp = await rawServer(['SSH-2.0-OpenSSH_9.6\r\n\r\n']);
    expect(await failure(post(notHttp))).toMatchObject({
      status: 0,
      retryable: true,
      message: expect.stringMatching(/: Parse Error: not an HTTP\/1.1 status line$/),
    });
    const silent = await rawServer([], true);
    expect(await failure(post(silent, 50))).toMatchObject({
      status: 0,
      retryable: true,
      message: expect.stringMatching(/: timed out$/),
    });
  });
});

describe('postJson to localhost', () => {
  /** A node:http server on `host` answering `{"at":host}`; resolves with its port. */
  async function serverOn(host: string): Promise<number> {
    const server = createServer((_req, res) => res.end(JSON.stringify({ at: host })));
    server.listen(0, host);
    await once(server, 'listening');
    closers.push(() => server.close());
    return (server.address() as AddressInfo).port;
  }

  it('connects to 127.0.0.1, or to ::1 when 127.0.0.1 refuses, as the resolver would have', async () => {
    expect((await post(`http://localhost:${await serverOn('127.0.0.1')}`)).body).toBe('{"at":"127.0.0.1"}');
    const v6 = await serverOn('::1');
    expect((await post(`http://localhost:${v6}`)).body).toBe('{"at":"::1"}');
    const refused = await failure(post('http://localhost:9'));
    expect(refused).toMatchObject({
      status: 0,
      retryable: true,
      message: `cannot reach the gateway at http://localhost:9: connect ECONNREFUSED ::1:9${NOT_RUNNING}`,
    });
  });

  /** Runs `postJson` to `base` in a fresh node (`env` added): resolves with its answer or error, and whether `dns` loaded. */
  async function postInChild(
    base: string,
    env: Record<string, string> = {},
  ): Promise<{ body?: string; error?: string; dns: boolean }> {
    const module = fileURLToPath(new URL('../../../src/client/http1.ts', import.meta.url));
    const script = `const { postJson } = await import(${JSON.stringify(module)});
      const answer = await postJson({ url: '${base}', token: 't' }, new URL('${base}/x'), '{}', 5000).catch((error) => ({ error: error.message }));
      console.log(JSON.stringify({ ...answer, headers: undefined, status: undefined, statusText: undefined, dns: process.moduleLoadList.includes('NativeModule dns') }));`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { env: { ...process.env, ...env } },
    );
    return JSON.parse(stdout) as { body?: string; error?: string; dns: boolean };
  }

  it('does not load the resolver for it (dns and getaddrinfo cost the hook ~10 ms of CPU per call)', async () => {
    const port = await serverOn('127.0.0.1');
    expect(await postInChild(`http://localhost:${port}`)).toEqual({ body: '{"at":"127.0.0.1"}', dns: false });
  });

  it('checks a TLS certificate against the name localhost, not the address it connects to', async () => {
    // Valid for DNS:localhost only (P-256, 100 years), trusted in the child through NODE_EXTRA_CA_CERTS.
    const cert = `-----BEGIN CERTIFICATE-----
MIIBljCCATugAwIBAgIUXH4bggSFMOwrp3bTMxiQXQ1uE7YwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJbG9jYWxob3N0MCAXDTI2MTEyNzEyNTg1MFoYDzIxMjYxMTAz
MTI1ODUwWjAUMRIwEAYDVQQDDAlsb2NhbGhvc3QwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAASG39Vv0dOwiZQ2nGfL6+StuKZA8EjCUikQo5h7KvELJAxdW7jtLX2V
pYONyrzMJDo1JhlTR1vEQB4VR6F6UPm9o2kwZzAdBgNVHQ4EFgQUwcvp7IvkUbp9
rfm8W1GiImMiHsEwHwYDVR0jBBgwFoAUwcvp7IvkUbp9rfm8W1GiImMiHsEwDwYD
VR0TAQH/BAUwAwEB/zAUBgNVHREEDTALgglsb2NhbGhvc3QwCgYIKoZIzj0EAwID
SQAwRgIhAK1uy3FbAR3bEoQKh/UZxCQInYLJzC3bXMc91Ly1v/wQAiEA0eUuW9N7
orx8sraEPd7HR9/1wcdoFLEDb27+btJj8PQ=
-----END CERTIFICATE-----`;
    const key = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgtR44pRgkH4TcSihB
xwlQe6LJPbGGDmIp+rvRq6SUiIWhRANCAASG39Vv0dOwiZQ2nGfL6+StuKZA8EjC
UikQo5h7KvELJAxdW7jtLX2VpYONyrzMJDo1JhlTR1vEQB4VR6F6UPm9
-----END PRIVATE KEY-----`;
    const server = createHttpsServer({ cert, key }, (_req, res) => res.end('{"tls":true}'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(() => server.close());
    const port = (server.address() as AddressInfo).port;
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-http1-'));
    closers.push(() => rmSync(dir, { recursive: true, force: true }));
    const ca = join(dir, 'ca.pem');
    writeFileSync(ca, cert);
    expect(await postInChild(`https://localhost:${port}`, { NODE_EXTRA_CA_CERTS: ca })).toEqual({
      body: '{"tls":true}',
      dns: false,
    });
    expect((await postInChild(`https://127.0.0.1:${port}`, { NODE_EXTRA_CA_CERTS: ca })).error).toMatch(
      /IP: 127\.0\.0\.1 is not in the cert's list/,
    );
  });
});

describe('postJson over TLS', () => {
  it('checks the certificate as node:https does: a gateway no CA vouches for gets no request', async () => {
    let asked = false;
    const server = createHttpsServer(SELF_SIGNED, (_req, res) => {
      asked = true;
      res.end('{}');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    closers.push(() => server.close());
    const error = await failure(post(`https://localhost:${(server.address() as AddressInfo).port}`));
    expect(error).toMatchObject({
      status: 0,
      retryable: true,
      message: expect.stringMatching(/^cannot reach the gateway at https:\/\/localhost:\d+: self-signed certificate/),
    });
    expect(asked).toBe(false);
  });
});

describe('parseAnswer', () => {
  const bytes = (s: string) => Buffer.from(s, 'latin1');
  it('waits for the whole answer, whatever its framing', () => {
    expect(parseAnswer(bytes('HTTP/1.1 200 OK\r\ncontent-le'), false)).toBeNull();
    expect(parseAnswer(bytes('HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\nab'), false)).toBeNull();
    expect(
      parseAnswer(bytes('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n'), false),
    ).toBeNull();
    expect(
      parseAnswer(
        bytes('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2;x=1\r\nab\r\n1\r\nc\r\n0\r\nTrailer: t\r\n\r\n'),
        false,
      ),
    ).toMatchObject({ body: 'abc' });
    expect(parseAnswer(bytes('HTTP/1.1 204 No Content\r\n\r\n'), false)).toMatchObject({ status: 204, body: '' });
    expect(parseAnswer(bytes('HTTP/1.0 200 OK\r\n\r\nall'), false)).toBeNull();
    expect(parseAnswer(bytes('HTTP/1.0 200 OK\r\n\r\nall'), true)).toMatchObject({ body: 'all' });
  });
  it('refuses what is not an HTTP/1.x answer', () => {
    expect(() => parseAnswer(bytes('HTTP/2 200\r\n\r\n'), false)).toThrow(/not an HTTP\/1.1 status line/);
    expect(() => parseAnswer(bytes('HTTP/1.1 200 OK\r\nno colon\r\n\r\n'), false)).toThrow(/bad header line/);
    expect(() => parseAnswer(bytes('HTTP/1.1 200 OK\r\ncontent-length: x\r\n\r\n'), false)).toThrow(
      /bad content-length/,
    );
    expect(() => parseAnswer(bytes('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n'), false)).toThrow(
      /bad chunk size/,
    );
  });
});
