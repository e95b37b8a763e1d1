/**
 * @module http/requests-routes
 * The `/v1/requests` routes (contract): create, read with long-poll, SSE, decide, cancel, audit list and export.
 */
import { decidedByPeople } from '../people/query.js';
import type { ServerResponse } from 'node:http';
import { Router } from 'express';
import {
  cancelSchema,
  createRequestSchema,
  decisionSchema,
  exportQuerySchema,
  listQuerySchema,
  parseInput,
  receiptSchema,
  waitQuerySchema,
} from '../api/api-schema.js';
import type { DecisionRejection } from '../channel/channel.js';
import { ForbiddenError, NotFoundError, TollgateError, ValidationError } from '../api/errors.js';
import type { Gateway } from '../gateway/gateway.js';
import { fromApiInput, toApiEvent, toApiRequest } from '../requests/serialize.js';
import { decidingIdentity, mayCancel, mayRead, type Principal, type Scope } from '../tokens/scopes.js';
import type { ConfirmationRequest } from '../requests/types.js';
import { principalOf, requireScope } from './auth.js';
import { streamExport } from './export.js';
import { waitUntilFinal } from './long-poll.js';
import { streamRequestEvents } from './sse.js';
import { streamVerdicts } from './verdict-stream.js';

const REJECTION_STATUS: Record<DecisionRejection, number> = {
  not_found: 404,
  bad_nonce: 403,
  not_authorized: 403,
  self_approval: 403,
  already_decided: 409,
  duplicate_approval: 409,
  args_mismatch: 409,
  invalid: 400,
};

/** Scopes of the hot routes, checked by the router below and by the lean routes alike. */
export const CREATE_SCOPES = ['request:create'] as const satisfies readonly Scope[];
export const READ_SCOPES = ['request:read', 'audit:read', 'request:decide'] as const satisfies readonly Scope[];
export const DECIDE_SCOPES = ['request:decide'] as const satisfies readonly Scope[];

/** What a route answers: a status, a JSON body and any extra headers. */
export interface JsonReply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Sends a {@link JsonReply} on a plain node response (express's and the lean routes'). */
export function sendJson(res: ServerResponse, reply: JsonReply): void {
  const body = JSON.stringify(reply.body);
  res.statusCode = reply.status;
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  res.setHeader('content-type', 'application/json; charset=utf-8');
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

/** `POST /v1/requests`: files a request (201), or answers the one an idempotency key already filed (200). */
export async function createRequest(gateway: Gateway, principal: Principal, rawBody: unknown): Promise<JsonReply> {
  const body = parseInput(createRequestSchema, rawBody ?? {}, 'body');
  const { request, created } = await gateway.request({
    ...fromApiInput(body),
    filedBy: principal.name,
    filedByPerson: principal.person ?? undefined,
  });
  return {
    status: created ? 201 : 200,
    body: toApiRequest(request),
    headers: { location: `/v1/requests/${request.id}` },
  };
}

/**
 * `GET /v1/requests/:id[?wait=S]`: the request, or with `wait` the request once final (or as it is after S seconds).
 * The wait ends early when `res` closes (the caller went away).
 */
export async function readRequest(
  gateway: Gateway,
  principal: Principal,
  rawId: string,
  query: unknown,
  res: ServerResponse,
): Promise<JsonReply> {
  const { wait } = parseInput(waitQuerySchema, query, 'query');
  const id = requestId(rawId);
  if (!wait) return { status: 200, body: toApiRequest(readable(await gateway.mustGet(id), principal, gateway)) };
  // The wait's own first read is the one checked: one read of the row per long-poll, not one to check and one to wait.
  return waitUntilFinal(gateway, id, wait * 1000, res, (row) => readable(row, principal, gateway)).then(asReply);
}

function asReply(request: ConfirmationRequest): JsonReply {
  return { status: 200, body: toApiRequest(request) };
}

/** `POST /v1/requests/:id/decision`: decides as the token's identity (or the named one, for admin tokens). */
export async function decideRequest(
  gateway: Gateway,
  principal: Principal,
  rawId: string,
  rawBody: unknown,
): Promise<JsonReply> {
  const id = requestId(rawId);
  const body = parseInput(decisionSchema, rawBody ?? {}, 'body');
  const directory = gateway.directory();
  const approver = decidingIdentity(principal, body.approver, (account) => directory.personOf(account));
  if (!approver) {
    throw body.approver === undefined
      ? new ValidationError('approver: required for this token (name the approver identity to decide as)', [
          { path: 'approver', message: 'required' },
        ])
      : new ForbiddenError(
          `token "${principal.name}" may decide only as ${principal.as ?? 'nobody'}, not as ${body.approver}`,
          'tollgate_wrong_identity',
        );
  }
  const [channel, userId] = approver.includes(':') ? splitOnce(approver) : ['api', approver];
  const outcome = await gateway.decide({
    requestId: id,
    decision: body.decision,
    reason: body.reason,
    option: body.option,
    approvedArgs: body.approved_args,
    argsSha256: body.args_sha256,
    grant: body.grant,
    actor: { channel, userId },
    // Over the API: always recorded as "api" with the token's name, never as a tap in the approver's channel.
    via: 'api',
    token: { name: principal.name, trusted: principal.scopes.includes('admin') },
  });
  if (outcome.ok) return { status: 200, body: toApiRequest(outcome.request) };
  const status = REJECTION_STATUS[outcome.code];
  if (status === 404) throw new NotFoundError(`no request with id ${id}`);
  if (status === 403) throw new ForbiddenError(outcome.message, `tollgate_${outcome.code}`);
  if (status === 409) throw new TollgateError(outcome.message, 409, `tollgate_${outcome.code}`);
  throw new ValidationError(outcome.message);
}

/** Builds the router mounted at `/v1/requests`. */
export function requestsRouter(gateway: Gateway): Router {
  const router = Router();

  router.post('/', requireScope(...CREATE_SCOPES), async (req, res) => {
    sendJson(res, await createRequest(gateway, principalOf(res), req.body));
  });

  router.get('/', requireScope('audit:read'), async (req, res) => {
    const q = parseInput(listQuerySchema, req.query, 'query');
    const page = await gateway.list({
      status: q.status,
      toolName: q.tool_name,
      agentId: q.agent_id,
      agentKind: q.agent_kind,
      repo: q.repo,
      respondedBy: q.responded_by,
      respondedByPeople: decidedByPeople(gateway.directory(), q),
      includeVotes: true,
      since: q.since,
      until: q.until,
      limit: q.limit,
      cursor: q.cursor,
    });
    res.json({ items: page.items.map(toApiRequest), next_cursor: page.nextCursor });
  });

  router.get('/export', requireScope('audit:read'), async (req, res) => {
    const q = parseInput(exportQuerySchema, req.query, 'query');
    const respondedByPeople = decidedByPeople(gateway.directory(), q);
    const pages = gateway.exportPages(
      {
        status: q.status,
        toolName: q.tool_name,
        agentId: q.agent_id,
        agentKind: q.agent_kind,
        repo: q.repo,
        respondedBy: q.responded_by,
        respondedByPeople,
        includeVotes: true,
        since: q.since,
        until: q.until,
      },
      q.format,
    );
    await streamExport(res, pages, q.format);
  });

  // One stream for the verdicts of many requests (a POST: thousands of ids go in the body, not the URL).
  router.post('/verdicts', requireScope(...READ_SCOPES), async (req, res) => {
    await streamVerdicts(
      gateway,
      principalOf(res),
      req.body,
      (request, principal) => readable(request, principal, gateway),
      res,
    );
  });

  router.get('/:id', requireScope(...READ_SCOPES), async (req, res) => {
    const reply = await readRequest(gateway, principalOf(res), String(req.params.id), req.query, res);
    if (!res.destroyed) sendJson(res, reply);
  });

  router.get('/:id/events', requireScope(...READ_SCOPES), async (req, res) => {
    const id = requestId(String(req.params.id));
    readable(await gateway.mustGet(id), principalOf(res), gateway);
    if (req.accepts(['text/event-stream', 'application/json']) === 'application/json') {
      res.json({ items: (await gateway.events(id)).map(toApiEvent) });
      return;
    }
    await streamRequestEvents(gateway, id, req, res);
  });

  router.post('/:id/decision', requireScope(...DECIDE_SCOPES), async (req, res) => {
    sendJson(res, await decideRequest(gateway, principalOf(res), String(req.params.id), req.body));
  });

  router.post('/:id/receipt', requireScope('request:create'), async (req, res) => {
    const body = parseInput(receiptSchema, req.body ?? {}, 'body');
    const id = requestId(String(req.params.id));
    const principal = principalOf(res);
    const request = await gateway.mustGet(id);
    // Only the token that filed the request (or an admin) reports how it ran: a receipt is the agent's own word.
    if (!principal.scopes.includes('admin') && request.filedBy !== principal.name)
      throw new NotFoundError(`no request with id ${id}`);
    const event = await gateway.recordReceipt(id, {
      outcome: body.outcome,
      detail: body.detail,
      argsSha256: body.args_sha256,
      actor: `token:${principal.name}`,
    });
    res.status(201).json({
      request_id: id,
      type: event.type,
      actor: event.actor,
      channel: event.channel,
      detail: event.detail,
      at: event.at.toISOString(),
    });
  });

  router.post('/:id/cancel', requireScope('request:cancel'), async (req, res) => {
    const body = parseInput(cancelSchema, req.body ?? {}, 'body');
    const id = requestId(String(req.params.id));
    const principal = principalOf(res);
    const request = readable(await gateway.mustGet(id), principal, gateway);
    if (!mayCancel(principal, request.filedBy))
      throw new ForbiddenError(
        `token "${principal.name}" may cancel only the requests it filed`,
        'tollgate_insufficient_scope',
      );
    const cancelled = await gateway.cancel(id, body.actor ?? `token:${principal.name}`, body.reason);
    res.json(toApiRequest(cancelled));
  });

  return router;
}

/**
 * A request the caller may see; others answer 404 as if absent, so a token learns nothing of requests it did not file
 * — or, for a decide token, of requests its identity is not an approver of (an approver sees what the card shows).
 */
function readable(
  request: ConfirmationRequest,
  principal: Principal,
  gateway: Pick<Gateway, 'mayDecide'>,
): ConfirmationRequest {
  if (mayRead(principal, request.filedBy) || request.filedBy === principal.name) return request;
  if (principal.scopes.includes('request:decide') && principal.as && gateway.mayDecide(request, principal.as))
    return request;
  throw new NotFoundError(`no request with id ${request.id}`);
}

/** Request ids are UUIDs; anything else is a 404 without touching the database. */
function requestId(id: string): string {
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw new NotFoundError(`no request with id ${id.slice(0, 80)}`);
  return id.toLowerCase();
}

function splitOnce(value: string): [string, string] {
  const i = value.indexOf(':');
  return [value.slice(0, i), value.slice(i + 1)];
}
