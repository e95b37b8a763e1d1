/**
 * @module client/http1
 * One JSON POST to the gateway over a bare `node:net` (or `node:tls`) socket speaking HTTP/1.1, for a command that
 * must start fast: `tollgate claude-hook` runs as a fresh process per tool call, and there everything node loads is
 * paid again each time. The global `fetch` loads undici (~50 ms here); `node:http` loads its agent, client, parser and
 * server modules and builds a `ClientRequest` and `IncomingMessage` around the socket (~7 ms of CPU per call on this
 * machine, under load, measured against this module). One request with `connection: close` and one answer need none of
 * that: the request is one write, the answer is a status line, headers and a body framed by `content-length`,
 * `transfer-encoding: chunked` or the end of the connection. Failures are the {@link GateClientError}s
 * {@link GateClient} throws, with the same words, so callers branch on `status` and `retryable` alike.
 */
import type { Socket } from 'node:net';
import { unreachableError, type GatewayConnection } from './connection.js';
import { GateClientError, problemFromText } from './errors.js';
import { parseAnswer, type HttpAnswer } from './http1-parse.js';

/** A 2xx answer: its status, headers (lower-case names) and body text. */
export type PostAnswer = HttpAnswer;

/**
 * POSTs `body` (JSON text) to `url` with the connection's bearer token. Resolves with a 2xx answer; rejects with a
 * {@link GateClientError}: the problem+json of any other status, or status 0 when no answer came within `timeoutMs`
 * (refused, reset, cut mid-answer, not HTTP, timed out).
 */
export function postJson(
  connection: GatewayConnection,
  url: URL,
  body: string,
  timeoutMs: number,
): Promise<PostAnswer> {
  const unreachable = (error: unknown) => unreachableError(connection.url, error);
  // What node:http refuses in a header value (a CR or LF would start another header): refused here the same way.
  if (/[^\t\x20-\x7e\x80-\xff]/.test(connection.token))
    return Promise.reject(new TypeError('Invalid character in header content ["authorization"]'));
  const payload = Buffer.from(body);
  const head =
    `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\nauthorization: Bearer ${connection.token}\r\n` +
    `accept: application/json\r\ncontent-type: application/json\r\ncontent-length: ${payload.length}\r\nconnection: close\r\n\r\n`;
  return new Promise<PostAnswer>((resolve, reject) => {
    const addresses = connectAddresses(url);
    let socket = connect(url, addresses.shift()!);
    let received: Buffer = Buffer.alloc(0);
    let settled = false;
    const settle = (error: unknown, answer?: HttpAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!answer) {
        socket.destroy(); // a request given up on must end at the gateway too (it stops waiting for a verdict)
        reject(unreachable(error));
        return;
      }
      // The whole answer is in and the gateway closes its side (connection: close). Not destroy(): on node 20 to 24
      // net's _destroy touches process.stderr, building a stderr stream for nothing (~0.5 ms); an unref'd socket lets
      // the process exit, and is closed by the gateway or at exit.
      socket.unref();
      if (answer.status >= 200 && answer.status < 300) resolve(answer);
      else {
        const problem = problemFromText(answer.status, answer.statusText, answer.body);
        reject(new GateClientError(problem.detail, answer.status, problem));
      }
    };
    // The same error node:http gives a request whose socket closed before a whole answer came.
    const hangUp = () => Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const timer = setTimeout(
      () => settle(Object.assign(new Error(`no answer in ${timeoutMs} ms`), { name: 'TimeoutError' })),
      timeoutMs,
    );
    /** Sends the request on `current`; a refused connection moves on to the next address, if there is one. */
    const send = (current: Socket) => {
      current.on('error', (error: NodeJS.ErrnoException) => {
        if (current !== socket) return; // a socket given up for the next address
        if (error.code !== 'ECONNREFUSED' || !addresses.length || settled) return settle(error);
        current.destroy();
        send((socket = connect(url, addresses.shift()!)));
      });
      current.on('data', (chunk: Buffer) => {
        received = received.length ? Buffer.concat([received, chunk]) : chunk;
        try {
          const answer = parseAnswer(received, false);
          if (answer) settle(null, answer);
        } catch (error) {
          settle(error);
        }
      });
      // Never half-close our side: node's HTTP server takes a client's end as the client gone and drops the long-poll.
      current.on('end', () => {
        try {
          settle(hangUp(), parseAnswer(received, true) ?? undefined);
        } catch (error) {
          settle(error);
        }
      });
      current.on('close', () => current === socket && settle(hangUp()));
      current.setNoDelay(true);
      current.write(Buffer.concat([Buffer.from(head, 'latin1'), payload]));
    };
    send(socket);
  });
}

/**
 * The addresses to connect to for `url`, in order: its host, or for `localhost` the loopback addresses (RFC 6761
 * §6.3), IPv4 first, as the gateway listens on 127.0.0.1 by default (a refused 127.0.0.1 falls through to ::1 at
 * once, as node's own address selection would). Naming them spares the resolver: for a host name node loads `dns` and
 * asks `getaddrinfo` on libuv's thread pool, which it starts for that: ~10 ms more CPU per hook call, measured on a
 * loaded 2-core machine where the whole hook otherwise cost ~20 ms beyond `node -e 0`.
 */
function connectAddresses(url: URL): string[] {
  // URL keeps an IPv6 host in brackets; sockets want it bare.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  return host === 'localhost' ? ['127.0.0.1', '::1'] : [host];
}

/**
 * A TCP socket to `address` (`url`'s host or one it stands for) at `url`'s port, through TLS for `https:` (the same
 * checks `node:https` makes by default, against `url`'s host name).
 */
function connect(url: URL, address: string): Socket {
  // getBuiltinModule, not import(): in the CommonJS hook bundle an import() would start the ES module loader (~7 ms).
  const net = process.getBuiltinModule('node:net');
  if (url.protocol !== 'https:') return net.connect({ host: address, port: Number(url.port || 80) });
  // As node:https's agent does: name the server for SNI unless the host is an address (RFC 6066 forbids it there).
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const servername = net.isIP(host) ? undefined : host;
  return process
    .getBuiltinModule('node:tls')
    .connect({ host: address, port: Number(url.port || 443), ...(servername ? { servername } : {}) });
}
