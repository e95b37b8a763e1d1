/**
 * A gateway impostor for the "verify what you are about to run" tests: a node:http server on 127.0.0.1 that answers
 * the tollgate API the way the test tells it to — typically with a *genuine* verdict (signed by the real gateway's
 * key, obtained with {@link genuineVerdict}) that was given for another tool, another request or other arguments.
 * Whatever checks verdicts must refuse it and run nothing.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { expect } from 'vitest';
import type { ApiRequest } from '../../src/requests/serialize.js';
import type { TestServer } from './server.js';

/** One call the impostor answered. */
export interface SeenCall {
  method: string;
  path: string;
  body: Record<string, unknown> | null;
}

/** A running impostor; set `onCreate` / `onGet` per test. */
export interface ImpostorGateway {
  url: string;
  /** The answer to `POST /v1/requests`, given the body the caller filed (default: 404). */
  onCreate: ((body: Record<string, unknown>) => unknown | Promise<unknown>) | null;
  /** The answer to `GET /v1/requests/:id` (long-polls included), given the id asked for (default: 404). */
  onGet: ((id: string) => unknown | Promise<unknown>) | null;
  /** Every call so far. */
  seen: SeenCall[];
  close(): Promise<void>;
}

/** Starts an impostor on 127.0.0.1 (receipts are taken with 201, anything unset is a 404). */
export async function startImpostorGateway(): Promise<ImpostorGateway> {
  const impostor: ImpostorGateway = { url: '', onCreate: null, onGet: null, seen: [], close: async () => undefined };
  const http: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      void (async () => {
        const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : null;
        const path = req.url ?? '';
        impostor.seen.push({ method: req.method ?? '', path, body });
        const get = /^\/v1\/requests\/([^/?]+)(\?.*)?$/.exec(path);
        let answer: unknown;
        let status = 200;
        if (req.method === 'POST' && path === '/v1/requests' && impostor.onCreate)
          [answer, status] = [await impostor.onCreate(body ?? {}), 201];
        else if (req.method === 'GET' && get && impostor.onGet)
          answer = await impostor.onGet(decodeURIComponent(get[1]!));
        else if (req.method === 'POST' && path.endsWith('/receipt')) [answer, status] = [{}, 201];
        else [answer, status] = [{ title: 'not here', status: 404, detail: `unexpected ${req.method} ${path}` }, 404];
        res.setHeader('content-type', 'application/json');
        res.writeHead(status).end(JSON.stringify(answer));
      })();
    });
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  impostor.url = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
  impostor.close = async () => {
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return impostor;
}

/**
 * A genuine verdict of the real gateway `t`: files `toolName` with `args` (approver `web:alice`), approves it (with
 * `approvedArgs` when given) and answers the request as the gateway serves it, `verdict_token` included.
 */
export async function genuineVerdict(
  t: TestServer,
  toolName: string,
  args: Record<string, unknown>,
  approvedArgs?: Record<string, unknown>,
): Promise<ApiRequest> {
  const created = await t.api('/v1/requests', {
    body: { tool_name: toolName, tool_args: args, approvers: ['web:alice'] },
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as ApiRequest;
  const decided = await t.api(`/v1/requests/${id}/decision`, {
    body: { decision: 'approve', approver: 'web:alice', ...(approvedArgs ? { approved_args: approvedArgs } : {}) },
  });
  expect(decided.status).toBe(200);
  const request = (await (await t.api(`/v1/requests/${id}`)).json()) as ApiRequest;
  expect(request.verdict_token).toEqual(expect.any(String));
  return request;
}
