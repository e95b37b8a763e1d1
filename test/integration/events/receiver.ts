/**
 * A webhook receiver on 127.0.0.1 for the event stream's tests: records every CloudEvent it accepts (a batch body is
 * split into its events, each keeping the POST's body and signature), fails POSTs on demand, and can hold its
 * answers until a test releases them, to put several batches in flight and finish them in any order.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One event as received. */
export interface Received {
  type: string;
  id: string;
  subject: string;
  data: { event: { type: string }; request: { tool_name: string } };
  /** The `tollgate-signature` of its POST, and the POST's raw body (the batch, for a batch). */
  signature: string;
  body: string;
  /** Which POST brought it (1, 2, …, counting failed ones). */
  post: number;
}

/** A POST whose answer is held. */
export interface HeldPost {
  post: number;
  events: number;
  /** Answers it: 204 records its events; anything else fails it. */
  answer(status: number): void;
}

/** The receiver: `received` in the order the accepted POSTs arrived. */
export class Receiver {
  readonly received: Received[] = [];
  /** How many POSTs to fail (500) next. */
  failing = 0;
  attempts = 0;
  /** While true, answers wait in {@link held} for the test. */
  hold = false;
  readonly held: HeldPost[] = [];
  /** Content types seen, and the most POSTs waiting for an answer at once. */
  readonly contentTypes = new Set<string>();
  maxConcurrent = 0;
  private open = 0;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<Receiver> {
    let receiver: Receiver | null = null;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const post = receiver!.take(
          String(req.headers['content-type']),
          String(req.headers['tollgate-signature']),
          Buffer.concat(chunks).toString('utf8'),
          (status) => res.writeHead(status).end(),
        );
        // A POST the sink gave up on (its 10 s timeout, on a slow machine) is no longer in flight: drop it unanswered.
        res.on('close', () => post && !res.writableFinished && receiver!.drop(post));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    receiver = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`);
    return receiver;
  }

  private take(contentType: string, signature: string, body: string, reply: (status: number) => void): HeldPost | null {
    const post = ++this.attempts;
    this.contentTypes.add(contentType.split(';')[0]!);
    this.open++;
    this.maxConcurrent = Math.max(this.maxConcurrent, this.open);
    const parsed = JSON.parse(body) as
      Omit<Received, 'signature' | 'body' | 'post'> | Omit<Received, 'signature' | 'body' | 'post'>[];
    const events = Array.isArray(parsed) ? parsed : [parsed];
    const answer = (status: number) => {
      this.open--;
      if (status >= 200 && status < 300)
        for (const event of events) this.received.push({ ...event, signature, body, post });
      reply(status);
    };
    if (this.failing > 0) {
      this.failing--;
      answer(500);
    } else if (this.hold) {
      const held = { post, events: events.length, answer };
      this.held.push(held);
      return held;
    } else answer(204);
    return null;
  }

  /** Forgets a held POST whose connection closed before its answer. */
  drop(post: HeldPost): void {
    const at = this.held.indexOf(post);
    if (at < 0) return;
    this.held.splice(at, 1);
    this.open--;
  }

  types(): string[] {
    return this.received.map((r) => r.type);
  }

  /** The ids of each request's events in the order they were first received (a repeat is left out). */
  byRequest(): Map<string, number[]> {
    const seen = new Set<string>();
    const out = new Map<string, number[]>();
    for (const r of this.received) {
      if (seen.has(r.id)) continue;
      seen.add(r.id);
      out.set(r.subject, [...(out.get(r.subject) ?? []), Number(r.id.slice(4))]);
    }
    return out;
  }

  async close(): Promise<void> {
    for (const post of this.held.splice(0)) post.answer(503);
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}
