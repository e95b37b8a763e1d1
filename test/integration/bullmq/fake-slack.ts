/**
 * A minimal fake of the Slack Web API for the multi-process tests: answers every method with `ok`, hands out a
 * unique `ts` per posted message, and records `chat.postMessage` and `chat.update` calls.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One recorded Web API call. */
export interface SlackCall {
  method: string;
  channel: string | undefined;
  ts: string | undefined;
  text: string;
}

/** The fake Slack API server. */
export class FakeSlack {
  readonly calls: SlackCall[] = [];
  private readonly server: Server;
  private seq = 0;

  constructor() {
    this.server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        const method = (req.url ?? '').replace(/^\/api\//, '').split('?')[0]!;
        const params = parseBody(body, req.headers['content-type'] ?? '');
        const channel = params.channel;
        const ts = method === 'chat.postMessage' ? `${Date.now()}.${String(++this.seq).padStart(6, '0')}` : params.ts;
        this.calls.push({ method, channel, ts, text: body });
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ok: true, channel, ts, user_id: 'UBOT', bot_id: 'BBOT', team_id: 'T1' }));
      });
    });
  }

  /** Starts listening on 127.0.0.1, port 0; resolves with the `SLACK_API_URL` to use. */
  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api/`;
  }

  /** Calls of one method. */
  of(method: string): SlackCall[] {
    return this.calls.filter((c) => c.method === method);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function parseBody(body: string, contentType: string): Record<string, string | undefined> {
  if (contentType.includes('json')) {
    try {
      return JSON.parse(body) as Record<string, string>;
    } catch {
      return {};
    }
  }
  return Object.fromEntries(new URLSearchParams(body));
}
