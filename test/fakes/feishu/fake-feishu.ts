/**
 * A hand-written fake of the Feishu/Lark Open API on 127.0.0.1 port 0, for the real `lark.Client`:
 * tenant tokens, `im.message.create` (with uuid de-duplication), `im.message.patch`, the delayed card update, and
 * failures on demand (HTTP 200 `{code, msg}` business errors, HTTP errors, lost answers). It records every call.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One recorded API call. */
export interface FakeFeishuCall {
  route: FakeRoute;
  method: string;
  path: string;
  query: Record<string, string>;
  body: Record<string, unknown>;
  authorization: string | null;
}

/** The routes the fake serves. */
export type FakeRoute = 'token' | 'send' | 'patch' | 'reply' | 'card_update' | 'batch_get_id' | 'unknown';

/** A failure to inject into the next call(s) of a route. */
export interface FakeFailure {
  /** Business error code (answered as HTTP `status`, default 200). */
  code?: number;
  msg?: string;
  /** HTTP status; with no `code`, the body is `{}`. */
  status?: number;
  headers?: Record<string, string>;
  /** Apply the call (create the message), then lose the answer (HTTP 502): a retry must not duplicate the card. */
  afterApply?: boolean;
}

/** A message the fake holds. */
export interface FakeMessage {
  messageId: string;
  receiveIdType: string;
  receiveId: string;
  uuid: string | null;
  /** Every version of the card, the first as sent. */
  versions: Record<string, unknown>[];
}

const RECEIVE_ID_TYPES = new Set(['chat_id', 'open_id', 'user_id', 'union_id', 'email']);

/** The fake server. */
export class FakeFeishu {
  readonly calls: FakeFeishuCall[] = [];
  /** Tenant members by email (lower case) → open id, for `contact/v3/users/batch_get_id`. */
  readonly users = new Map<string, string>();
  readonly messages = new Map<string, FakeMessage>();
  private readonly apps = new Map<string, string>();
  private readonly tokens = new Set<string>();
  private readonly failures = new Map<FakeRoute, FakeFailure[]>();
  private readonly byUuid = new Map<string, string>();
  private seq = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** Starts a fake on 127.0.0.1 port 0. */
  static async start(): Promise<FakeFeishu> {
    let fake: FakeFeishu | null = null;
    const server = createServer((req, res) => void fake!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    fake = new FakeFeishu(server, `http://127.0.0.1:${port}`);
    return fake;
  }

  /** Lets `appId` get tokens with `appSecret`. */
  registerApp(appId: string, appSecret: string): void {
    this.apps.set(appId, appSecret);
  }

  /** Makes the next `times` calls of `route` fail with `failure`. */
  failNext(route: FakeRoute, failure: FakeFailure, times = 1): void {
    const queue = this.failures.get(route) ?? [];
    for (let i = 0; i < times; i++) queue.push(failure);
    this.failures.set(route, queue);
  }

  /** Revokes every issued tenant token (API calls with them get HTTP 400 code 99991663). */
  revokeTokens(): void {
    this.tokens.clear();
  }

  /** Recorded calls of one route. */
  callsTo(route: FakeRoute): FakeFeishuCall[] {
    return this.calls.filter((c) => c.route === route);
  }

  /** The latest card of a message (null when unknown). */
  card(messageId: string): Record<string, unknown> | null {
    const message = this.messages.get(messageId);
    return message ? message.versions[message.versions.length - 1]! : null;
  }

  /** The message whose card buttons carry `requestId`. */
  messageFor(requestId: string): FakeMessage | null {
    return (
      [...this.messages.values()].find((m) => JSON.stringify(m.versions[0]).includes(`"request_id":"${requestId}"`)) ??
      null
    );
  }

  /** Stops the server. */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', this.url);
    let body: Record<string, unknown> = {};
    try {
      body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
    } catch {
      return send(res, 400, { code: 9499, msg: 'body is not JSON' });
    }
    const route = routeOf(req.method ?? 'GET', url.pathname);
    this.calls.push({
      route,
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body,
      authorization: req.headers.authorization ?? null,
    });
    if (route === 'unknown') return send(res, 404, { code: 404, msg: `no route ${req.method} ${url.pathname}` });

    const failure = this.failures.get(route)?.shift();
    if (failure && !failure.afterApply)
      return send(
        res,
        failure.status ?? 200,
        failure.code !== undefined ? { code: failure.code, msg: failure.msg ?? 'injected failure' } : {},
        failure.headers,
      );
    if (route === 'token') return this.token(res, body);
    if (!this.tokens.has((req.headers.authorization ?? '').replace(/^Bearer /, ''))) {
      return send(res, 400, {
        code: 99991663,
        msg: 'Invalid access token for authorization. Please make a request with token attached.',
      });
    }
    const answer =
      route === 'send'
        ? this.create(url, body)
        : route === 'patch'
          ? this.patch(url, body)
          : route === 'batch_get_id'
            ? this.batchGetId(url, body)
            : { status: 200, body: { code: 0, msg: 'success', data: {} } };
    if (failure?.afterApply) return send(res, 502, {});
    return send(res, answer.status, answer.body);
  }

  private token(res: ServerResponse, body: Record<string, unknown>): void {
    const secret = this.apps.get(String(body.app_id));
    if (secret === undefined) return send(res, 200, { code: 10003, msg: 'invalid param: app_id not found' });
    if (secret !== body.app_secret) return send(res, 200, { code: 10014, msg: 'app secret invalid' });
    const token = `t-${randomBytes(12).toString('hex')}`;
    this.tokens.add(token);
    send(res, 200, { code: 0, msg: 'ok', tenant_access_token: token, expire: 7200 });
  }

  private create(url: URL, body: Record<string, unknown>): { status: number; body: unknown } {
    const receiveIdType = url.searchParams.get('receive_id_type') ?? '';
    if (!RECEIVE_ID_TYPES.has(receiveIdType)) return fail(99992402, 'field validation failed: receive_id_type');
    if (typeof body.receive_id !== 'string' || !body.receive_id)
      return fail(99992402, 'field validation failed: receive_id');
    if (body.msg_type !== 'interactive') return fail(230001, 'invalid msg_type');
    const uuid = typeof body.uuid === 'string' ? body.uuid : null;
    const existing = uuid ? this.byUuid.get(uuid) : undefined;
    if (existing) return ok({ message_id: existing, chat_id: this.messages.get(existing)!.receiveId });
    const card = parseCard(body.content);
    if (typeof card === 'string') return fail(230099, card);
    const messageId = `om_${(++this.seq).toString().padStart(6, '0')}${randomBytes(4).toString('hex')}`;
    this.messages.set(messageId, { messageId, receiveIdType, receiveId: body.receive_id, uuid, versions: [card] });
    if (uuid) this.byUuid.set(uuid, messageId);
    return ok({
      message_id: messageId,
      chat_id: receiveIdType === 'chat_id' ? body.receive_id : 'oc_p2p',
      msg_type: 'interactive',
    });
  }

  /** Like Feishu: every address asked is answered, with `user_id` only for the ones that are users. */
  private batchGetId(url: URL, body: Record<string, unknown>): { status: number; body: unknown } {
    if (url.searchParams.get('user_id_type') !== 'open_id')
      return fail(99992402, 'field validation failed: user_id_type');
    const emails = Array.isArray(body.emails) ? (body.emails as string[]) : [];
    return ok({
      user_list: emails.map((email) => ({
        email,
        ...(this.users.has(email.toLowerCase()) ? { user_id: this.users.get(email.toLowerCase()) } : {}),
      })),
    });
  }

  private patch(url: URL, body: Record<string, unknown>): { status: number; body: unknown } {
    const id = decodeURIComponent(url.pathname.split('/').pop() ?? '');
    const message = this.messages.get(id);
    if (!message) return fail(230001, `invalid message_id ${id}`);
    const card = parseCard(body.content);
    if (typeof card === 'string') return fail(230099, card);
    message.versions.push(card);
    return ok({});
  }
}

function routeOf(method: string, path: string): FakeRoute {
  if (method === 'POST' && path === '/open-apis/auth/v3/tenant_access_token/internal') return 'token';
  if (method === 'POST' && path === '/open-apis/im/v1/messages') return 'send';
  if (method === 'PATCH' && /^\/open-apis\/im\/v1\/messages\/[^/]+$/.test(path)) return 'patch';
  if (method === 'POST' && /^\/open-apis\/im\/v1\/messages\/[^/]+\/reply$/.test(path)) return 'reply';
  if (method === 'POST' && path === '/open-apis/interactive/v1/card/update') return 'card_update';
  if (method === 'POST' && path === '/open-apis/contact/v3/users/batch_get_id') return 'batch_get_id';
  return 'unknown';
}

/** Checks what Feishu checks of a 2.0 card: JSON, schema 2.0, update_multi, named buttons with object values. */
function parseCard(content: unknown): Record<string, unknown> | string {
  if (typeof content !== 'string') return 'content must be a JSON string';
  let card: Record<string, unknown>;
  try {
    card = JSON.parse(content) as Record<string, unknown>;
  } catch {
    return 'content is not JSON';
  }
  if (card.schema !== '2.0') return 'card schema must be 2.0';
  if ((card.config as { update_multi?: boolean } | undefined)?.update_multi !== true)
    return 'update_multi must be true to patch a shared card';
  for (const button of findAll(card, 'button')) {
    if (typeof button.name !== 'string' || !button.name) return 'button without name';
    const behaviors = button.behaviors as { type: string; value: unknown }[] | undefined;
    if (!behaviors?.every((b) => b.type === 'callback' && typeof b.value === 'object' && b.value !== null))
      return 'button callback value must be an object';
  }
  return card;
}

/** Every element with `tag` in a card. */
export function findAll(node: unknown, tag: string): Record<string, unknown>[] {
  if (Array.isArray(node)) return node.flatMap((n) => findAll(n, tag));
  if (typeof node !== 'object' || node === null) return [];
  const object = node as Record<string, unknown>;
  const own = object.tag === tag ? [object] : [];
  return [...own, ...Object.values(object).flatMap((v) => findAll(v, tag))];
}

/** All visible text of a card (titles, texts, captions, placeholders), one piece per line. */
export function visibleText(card: unknown): string {
  return [...findAll(card, 'plain_text'), ...findAll(card, 'markdown')].map((t) => String(t.content ?? '')).join('\n');
}

function ok(data: unknown) {
  return { status: 200, body: { code: 0, msg: 'success', data } };
}

function fail(code: number, msg: string) {
  return { status: 200, body: { code, msg } };
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
