/**
 * A hand-written fake of the Slack Web API on 127.0.0.1 (port 0), for the real `@slack/web-api` client. It answers
 * the methods tollgate calls the way Slack does (form-encoded requests, `blocks`/`view` as JSON strings, bearer
 * token, HTTP 200 `{ok:false,error}` for platform errors, 429 + Retry-After for rate limits), records every call,
 * keeps every version of every message, checks Block Kit limits like Slack (`invalid_blocks`), and fails on demand.
 * It also serves `response_url`s (`/response/:id`) so ephemeral replies through them are recorded too, and Socket
 * Mode: `apps.connections.open` (app token) hands out a WebSocket URL on the same server ({@link FakeSocketMode}).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { blockProblem, visibleText } from './block-rules.js';
import { FakeSocketMode } from './fake-socket-mode.js';

/** One call the fake received. */
export interface RecordedCall {
  /** The Web API method (`chat.postMessage`), or `response_url` for posts to a response URL. */
  method: string;
  params: Record<string, unknown>;
  /** The bearer token sent, or null. */
  token: string | null;
}

/** What to answer instead of success. */
export type FakeFailure =
  { error: string } | { status: 429; retryAfterS: number } | { status: number; body?: string } | { hangUp: true };

/** One posted message and its versions (the first as posted, the last as shown now). */
export interface FakeMessage {
  channel: string;
  ts: string;
  versions: { text: string; blocks: unknown[] }[];
}

/** What {@link FakeSlack.card} reports about the latest version of a message. */
export interface FakeCard {
  text: string;
  actionable: boolean;
  blocks: unknown[];
}

/** The fake Slack server. */
export class FakeSlack {
  readonly calls: RecordedCall[] = [];
  private readonly messages = new Map<string, FakeMessage>();
  private readonly failures = new Map<string, FakeFailure[]>();
  private readonly brokenChannels = new Map<string, string>();
  private counter = 100;
  /** Workspace members by email (lower case), for `users.lookupByEmail`. */
  readonly users = new Map<string, string>();
  /** The Socket Mode endpoint (taps pushed over a WebSocket). */
  readonly socketMode: FakeSocketMode;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly token: string,
    readonly appToken: string,
  ) {
    this.socketMode = new FakeSocketMode(server);
  }

  /** Starts a fake that accepts the bot `token` and the `appToken` (anything else gets `invalid_auth`). */
  static async start(options: { token?: string; appToken?: string } = {}): Promise<FakeSlack> {
    const token = options.token ?? 'xoxb-fake-token';
    let fake: FakeSlack | null = null;
    const server = createServer((req, res) => void fake!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    fake = new FakeSlack(server, `http://127.0.0.1:${port}`, token, options.appToken ?? 'xapp-fake-token');
    return fake;
  }

  /** The value for `SLACK_API_URL`. */
  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  /** A response URL served by this fake; posts to it are recorded as `response_url` calls. */
  responseUrl(id = 'r1'): string {
    return `${this.url}/response/${id}`;
  }

  /** Makes the next `times` calls to `method` fail with `failure`. */
  failNext(method: string, failure: FakeFailure, times = 1): void {
    const queue = this.failures.get(method) ?? [];
    for (let i = 0; i < times; i++) queue.push(failure);
    this.failures.set(method, queue);
  }

  /** Makes every post to and update in `channel` fail with `error` (e.g. `channel_not_found`) until healed. */
  breakChannel(channel: string, error = 'channel_not_found'): void {
    this.brokenChannels.set(channel, error);
  }

  /** Lets `channel` work again. */
  healChannel(channel: string): void {
    this.brokenChannels.delete(channel);
  }

  /** Calls to `method`, oldest first. */
  callsTo(method: string): RecordedCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** A message by reference (`C0123:1700000000.000100`). */
  message(ref: string): FakeMessage | undefined {
    return this.messages.get(ref);
  }

  /** Every message, in the order posted. */
  allMessages(): FakeMessage[] {
    return [...this.messages.values()];
  }

  /** The latest version of a message as a reader sees it. */
  card(ref: string): FakeCard | null {
    const latest = this.messages.get(ref)?.versions.at(-1);
    if (!latest) return null;
    return {
      text: visibleText(latest.blocks),
      actionable: latest.blocks.some((b) => (b as { type?: string }).type === 'actions'),
      blocks: latest.blocks,
    };
  }

  /** Stops the server. */
  async close(): Promise<void> {
    this.socketMode.closeAll();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private nextTs(): string {
    this.counter += 1;
    return `1700000000.${String(this.counter).padStart(6, '0')}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const params = parseParams(raw, req.headers['content-type'] ?? '');
    const path = new URL(req.url ?? '/', this.url).pathname;
    if (path.startsWith('/response/')) {
      this.calls.push({
        method: 'response_url',
        params: { ...params, id: path.slice('/response/'.length) },
        token: null,
      });
      reply(res, 200, 'ok', 'text/plain');
      return;
    }
    const method = /^\/api\/([\w.]+)$/.exec(path)?.[1];
    if (req.method !== 'POST' || !method) {
      reply(res, 404, 'not found', 'text/plain');
      return;
    }
    const auth = req.headers.authorization;
    const token = auth?.startsWith('Bearer ') ? auth.slice(7) : typeof params.token === 'string' ? params.token : null;
    this.calls.push({ method, params, token });

    const failure = this.failures.get(method)?.shift();
    if (failure) return fail(res, failure);
    if (method === 'apps.connections.open') {
      // Only app-level tokens open sockets; the URL points back at this server.
      return replyJson(
        res,
        token === this.appToken
          ? { ok: true, url: `${this.url.replace('http', 'ws')}/socket-mode?ticket=${this.counter++}` }
          : { ok: false, error: 'invalid_auth' },
      );
    }
    if (token !== this.token) return replyJson(res, { ok: false, error: token ? 'invalid_auth' : 'not_authed' });
    replyJson(res, this.answer(method, params));
  }

  private answer(method: string, params: Record<string, unknown>): Record<string, unknown> {
    const channel = typeof params.channel === 'string' ? params.channel : '';
    const broken = this.brokenChannels.get(channel);
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          url: 'https://fake.slack.com/',
          team: 'Fake',
          user: 'tollgate',
          team_id: 'T0FAKE',
          user_id: 'U0BOT',
          bot_id: 'B0BOT',
        };
      case 'chat.postMessage': {
        if (!channel) return { ok: false, error: 'channel_not_found' };
        if (broken) return { ok: false, error: broken };
        const blocks = params.blocks ?? [];
        const problem = blockProblem(blocks);
        if (problem) return { ok: false, error: 'invalid_blocks', errors: [problem] };
        // Posting to a user id opens a DM, whose channel id starts with D.
        const conversation = /^[UW]/.test(channel) ? `D${channel.slice(1)}` : channel;
        const ts = this.nextTs();
        this.messages.set(`${conversation}:${ts}`, {
          channel: conversation,
          ts,
          versions: [{ text: String(params.text ?? ''), blocks: blocks as unknown[] }],
        });
        return {
          ok: true,
          channel: conversation,
          ts,
          message: { type: 'message', text: params.text, ts, bot_id: 'B0BOT' },
        };
      }
      case 'chat.update': {
        if (broken) return { ok: false, error: broken };
        const message = this.messages.get(`${channel}:${String(params.ts)}`);
        if (!message) return { ok: false, error: 'message_not_found' };
        const blocks = params.blocks ?? [];
        const problem = blockProblem(blocks);
        if (problem) return { ok: false, error: 'invalid_blocks', errors: [problem] };
        message.versions.push({ text: String(params.text ?? ''), blocks: blocks as unknown[] });
        return { ok: true, channel, ts: message.ts, text: params.text };
      }
      case 'users.lookupByEmail': {
        const id = this.users.get(String(params.email ?? '').toLowerCase());
        return id
          ? { ok: true, user: { id, profile: { email: params.email } } }
          : { ok: false, error: 'users_not_found' };
      }
      case 'chat.postEphemeral':
        if (!channel || !params.user) return { ok: false, error: 'invalid_arguments' };
        if (broken) return { ok: false, error: broken };
        return { ok: true, message_ts: this.nextTs() };
      case 'views.open': {
        const view = params.view as Record<string, unknown> | undefined;
        if (!params.trigger_id) return { ok: false, error: 'invalid_trigger_id' };
        if (!view || view.type !== 'modal' || !view.title || String((view.title as { text?: string }).text).length > 24)
          return { ok: false, error: 'invalid_arguments' };
        const problem = blockProblem(view.blocks ?? []);
        if (problem) return { ok: false, error: 'invalid_blocks', errors: [problem] };
        return { ok: true, view: { ...view, id: `V${this.counter++}`, state: { values: {} } } };
      }
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

const JSON_FIELDS = new Set(['blocks', 'view', 'attachments', 'metadata']);

/** Slack accepts form bodies (JSON-valued fields as strings) and JSON bodies. */
function parseParams(raw: string, contentType: string): Record<string, unknown> {
  if (!raw) return {};
  if (contentType.includes('application/json')) return JSON.parse(raw) as Record<string, unknown>;
  const params: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    params[key] = JSON_FIELDS.has(key) ? safeJson(value) : value;
  }
  return params;
}

function safeJson(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch {
    return value;
  }
}

function fail(res: ServerResponse, failure: FakeFailure): void {
  if ('hangUp' in failure) {
    res.socket?.destroy();
    return;
  }
  if ('error' in failure) return replyJson(res, { ok: false, error: failure.error });
  if (failure.status === 429 && 'retryAfterS' in failure) {
    res.setHeader('retry-after', String(failure.retryAfterS));
    return replyJson(res, { ok: false, error: 'ratelimited' }, 429);
  }
  reply(res, failure.status, ('body' in failure && failure.body) || 'upstream trouble', 'text/plain');
}

function replyJson(res: ServerResponse, body: unknown, status = 200): void {
  reply(res, status, JSON.stringify(body), 'application/json; charset=utf-8');
}

function reply(res: ServerResponse, status: number, body: string, type: string): void {
  res.writeHead(status, { 'content-type': type });
  res.end(body);
}
