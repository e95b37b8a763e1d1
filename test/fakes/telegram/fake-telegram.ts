/**
 * A hand-written fake of the Telegram Bot API on 127.0.0.1 (port 0), for the real grammY client (`apiRoot`): the
 * methods tollgate calls (`getMe`, `sendMessage`, `editMessageText`, `answerCallbackQuery`, `getUpdates`,
 * `setWebhook`, `deleteWebhook`) under `/bot<token>/<method>`, answered as Telegram does (`{ok, result}` or
 * `{ok: false, error_code, description, parameters}` with the same HTTP status; 401 for another token; HTML parse
 * errors, "message is not modified", "query is too old", 409 for `getUpdates` while a webhook is set; 429 with
 * `retry_after`). Every call is recorded and every version of every message kept. It also plays Telegram's side of
 * taps: {@link FakeTelegram.tapUpdate} builds the `callback_query` update for a button the bot actually sent, which
 * is then queued for `getUpdates` (long polling) or posted to the gateway's webhook, with or without the secret.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buttonsOf, keyboardProblem, parseHtml, type ParsedHtml } from './html-rules.js';

type Json = Record<string, unknown>;

/** One Bot API call the fake received. */
export interface RecordedCall {
  method: string;
  body: Json;
}

/** One version of a message: what was sent, and what a reader sees. */
export interface MessageVersion {
  html: string;
  parsed: ParsedHtml;
  replyMarkup?: Json;
}

/** One sent message and its versions (the first as sent, the last as shown now). */
export interface FakeMessage {
  chatId: number;
  messageId: number;
  versions: MessageVersion[];
}

/** What to answer instead of success. */
export type FakeFailure = { status: 429; retryAfterS: number } | { status: number; description?: string; html?: true };

/** A user who taps (`id` is an integer on the wire; see {@link FakeTelegram.tapUpdate} for strings). */
export interface FakeUser {
  id: number | string;
  username?: string;
  first_name?: string;
}

/** The fake Telegram. */
export class FakeTelegram {
  readonly calls: RecordedCall[] = [];
  /** The webhook registered with `setWebhook`, or null. */
  webhook: { url: string; secret_token?: string } | null = null;
  private readonly messages = new Map<string, FakeMessage>();
  private readonly failures = new Map<string, FakeFailure[]>();
  private readonly queue: Json[] = [];
  private readonly openQueries = new Set<string>();
  private waiters: (() => void)[] = [];
  private nextMessageId = 100;
  private nextUpdateId = 700_000_000;
  private nextQueryId = 1;

  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly token: string,
  ) {}

  /** Starts a fake that accepts the bot `token`. */
  static async start(options: { token?: string } = {}): Promise<FakeTelegram> {
    let fake: FakeTelegram | null = null;
    const server = createServer((req, res) => void fake!.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    fake = new FakeTelegram(
      server,
      `http://127.0.0.1:${port}`,
      options.token ?? '123456789:AAFakeTelegramTokenForTests0000000',
    );
    return fake;
  }

  /** The value for `TELEGRAM_API_ROOT`. */
  get apiRoot(): string {
    return this.url;
  }

  /** Makes the next `times` calls of `method` fail with `failure`. */
  failNext(method: string, failure: FakeFailure, times = 1): void {
    const list = this.failures.get(method) ?? [];
    for (let i = 0; i < times; i++) list.push(failure);
    this.failures.set(method, list);
  }

  /** Calls of `method`, oldest first. */
  callsTo(method: string): RecordedCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  /** Every message, in the order sent. */
  allMessages(): FakeMessage[] {
    return [...this.messages.values()];
  }

  /** The latest version of a message (`<chat id>:<message id>`) as a reader sees it. */
  card(
    ref: string,
  ): { text: string; actionable: boolean; tags: ParsedHtml['tags']; buttons: ReturnType<typeof buttonsOf> } | null {
    const latest = this.messages.get(ref)?.versions.at(-1);
    if (!latest) return null;
    const buttons = buttonsOf(latest.replyMarkup);
    return { text: latest.parsed.text, actionable: buttons.length > 0, tags: latest.parsed.tags, buttons };
  }

  /**
   * The update Telegram sends when `from` taps the button with `callbackData` on `message`. A contract user id that is
   * not a number (`approver1`) is passed as written: Telegram's ids are integers, the adapter reads either as a string.
   */
  tapUpdate(message: FakeMessage, callbackData: string, from: FakeUser): Json {
    const id = typeof from.id === 'string' && /^\d+$/.test(from.id) ? Number(from.id) : from.id;
    const queryId = String(this.nextQueryId++);
    this.openQueries.add(queryId);
    const latest = message.versions.at(-1)!;
    return {
      update_id: this.nextUpdateId++,
      callback_query: {
        id: queryId,
        from: {
          id,
          is_bot: false,
          first_name: from.first_name ?? `User ${String(id)}`,
          ...(from.username ? { username: from.username } : {}),
        },
        message: {
          message_id: message.messageId,
          date: 1_700_000_000,
          chat: { id: message.chatId, type: message.chatId < 0 ? 'supergroup' : 'private' },
          text: latest.parsed.text,
          ...(latest.replyMarkup ? { reply_markup: latest.replyMarkup } : {}),
        },
        chat_instance: '-5000000000000000001',
        data: callbackData,
      },
    };
  }

  /** Queues an update for `getUpdates` (long polling) and wakes a waiting poll. */
  queueUpdate(update: Json): void {
    this.queue.push(update);
    this.wake();
  }

  /** How many queued updates the bot has not confirmed yet. */
  get pendingUpdates(): number {
    return this.queue.length;
  }

  /** Posts `update` to a webhook `url` as Telegram does, with `secret` in the header (none when null). */
  async postUpdate(url: string, update: Json, secret: string | null): Promise<{ status: number; body: string }> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (secret !== null) headers['x-telegram-bot-api-secret-token'] = secret;
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(update) });
    return { status: response.status, body: await response.text() };
  }

  /** The `answerCallbackQuery` calls for the query of `update`. */
  answersTo(update: Json): RecordedCall[] {
    const id = (update.callback_query as { id: string }).id;
    return this.callsTo('answerCallbackQuery').filter((c) => c.body.callback_query_id === id);
  }

  /** Stops the server (and any poll waiting on it). */
  async close(): Promise<void> {
    this.wake();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const match = /^\/bot([^/]+)\/(\w+)$/.exec(new URL(req.url ?? '/', this.url).pathname);
    if (!match) return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found' });
    const method = match[2]!;
    const body = raw ? (JSON.parse(raw) as Json) : {};
    this.calls.push({ method, body });
    if (decodeURIComponent(match[1]!) !== this.token)
      return reply(res, 401, { ok: false, error_code: 401, description: 'Unauthorized' });
    const failure = this.failures.get(method)?.shift();
    if (failure) return fail(res, failure);
    switch (method) {
      case 'getMe':
        return ok(res, {
          id: Number(this.token.split(':')[0]),
          is_bot: true,
          first_name: 'Tollgate',
          username: 'tollgate_test_bot',
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
        });
      case 'setWebhook':
        this.webhook = {
          url: String(body.url),
          ...(typeof body.secret_token === 'string' ? { secret_token: body.secret_token } : {}),
        };
        return ok(res, true);
      case 'deleteWebhook':
        this.webhook = null;
        return ok(res, true);
      case 'sendMessage':
        return this.sendMessage(res, body);
      case 'editMessageText':
        return this.editMessageText(res, body);
      case 'answerCallbackQuery':
        return this.answerCallbackQuery(res, body);
      case 'getUpdates':
        return this.getUpdates(req, res, body);
      default:
        return reply(res, 404, { ok: false, error_code: 404, description: 'Not Found: method not found' });
    }
  }

  private sendMessage(res: ServerResponse, body: Json): void {
    const chatId = Number(body.chat_id);
    if (!Number.isInteger(chatId)) return badRequest(res, 'Bad Request: chat not found');
    const version = this.version(body);
    if (typeof version === 'string') return badRequest(res, version);
    const message: FakeMessage = { chatId, messageId: this.nextMessageId++, versions: [version] };
    this.messages.set(`${chatId}:${message.messageId}`, message);
    ok(res, this.wire(message));
  }

  private editMessageText(res: ServerResponse, body: Json): void {
    const message = this.messages.get(`${String(body.chat_id)}:${String(body.message_id)}`);
    if (!message) return badRequest(res, 'Bad Request: message to edit not found');
    const version = this.version(body);
    if (typeof version === 'string') return badRequest(res, version);
    const latest = message.versions.at(-1)!;
    if (
      latest.parsed.text === version.parsed.text &&
      JSON.stringify(latest.replyMarkup ?? null) === JSON.stringify(version.replyMarkup ?? null)
    ) {
      return badRequest(
        res,
        'Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message',
      );
    }
    message.versions.push(version);
    ok(res, this.wire(message));
  }

  private answerCallbackQuery(res: ServerResponse, body: Json): void {
    const id = String(body.callback_query_id);
    // A query can be answered once; after that (or for an id Telegram never sent) it is "too old".
    if (!this.openQueries.delete(id))
      return badRequest(res, 'Bad Request: query is too old and response timeout expired or query ID is invalid');
    if (typeof body.text === 'string' && body.text.length > 200)
      return badRequest(res, 'Bad Request: MESSAGE_TOO_LONG');
    ok(res, true);
  }

  private async getUpdates(req: IncomingMessage, res: ServerResponse, body: Json): Promise<void> {
    if (this.webhook)
      return reply(res, 409, {
        ok: false,
        error_code: 409,
        description:
          "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      });
    const offset = typeof body.offset === 'number' ? body.offset : 0;
    // An offset confirms every update before it: they are never sent again.
    while (this.queue.length && (this.queue[0]!.update_id as number) < offset) this.queue.shift();
    const timeoutS = typeof body.timeout === 'number' ? body.timeout : 0;
    if (!this.queue.length && timeoutS > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutS * 1000);
        const done = () => {
          clearTimeout(timer);
          resolve();
        };
        this.waiters.push(done);
        res.once('close', done);
      });
      if (res.destroyed) return;
    }
    const limit = typeof body.limit === 'number' ? body.limit : 100;
    ok(res, this.queue.slice(0, limit));
  }

  /** A message version from a send or edit body, or Telegram's error for it. */
  private version(body: Json): MessageVersion | string {
    if (typeof body.text !== 'string' || !body.text) return 'Bad Request: message text is empty';
    const parsed = body.parse_mode === 'HTML' ? parseHtml(body.text) : { text: body.text, tags: [] };
    if (typeof parsed === 'string') return parsed;
    if (!parsed.text.trim()) return 'Bad Request: message text is empty';
    if (parsed.text.length > 4096) return 'Bad Request: message is too long';
    const problem = keyboardProblem(body.reply_markup);
    if (problem) return problem;
    return { html: body.text, parsed, ...(body.reply_markup ? { replyMarkup: body.reply_markup as Json } : {}) };
  }

  /** A Message object as the Bot API returns it. */
  private wire(message: FakeMessage): Json {
    const latest = message.versions.at(-1)!;
    return {
      message_id: message.messageId,
      date: 1_700_000_000,
      chat: { id: message.chatId, type: message.chatId < 0 ? 'supergroup' : 'private' },
      text: latest.parsed.text,
      ...(latest.replyMarkup ? { reply_markup: latest.replyMarkup } : {}),
    };
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function fail(res: ServerResponse, failure: FakeFailure): void {
  if (failure.status === 429 && 'retryAfterS' in failure) {
    return reply(res, 429, {
      ok: false,
      error_code: 429,
      description: `Too Many Requests: retry after ${failure.retryAfterS}`,
      parameters: { retry_after: failure.retryAfterS },
    });
  }
  const f = failure as { status: number; description?: string; html?: true };
  // A proxy in front of the Bot API answers a 502 with an HTML page, not JSON.
  if (f.html) {
    res.writeHead(f.status, { 'content-type': 'text/html' });
    res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
    return;
  }
  reply(res, f.status, { ok: false, error_code: f.status, description: f.description ?? 'Internal Server Error' });
}

function ok(res: ServerResponse, result: unknown): void {
  reply(res, 200, { ok: true, result });
}

function badRequest(res: ServerResponse, description: string): void {
  reply(res, 400, { ok: false, error_code: 400, description });
}

function reply(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}
