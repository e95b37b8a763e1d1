/**
 * @module bench/scenarios/events-receiver
 * The event scenarios' sink: a local HTTP server in the orchestrator's process (node:http on 127.0.0.1) answering 204
 * to every POST, checking its `tollgate-signature`, and indexing `created` events by request. It takes CloudEvents
 * batches (a JSON array, the sinks' default) and single structured events alike.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sleep } from '../stats.js';

const CREATED = 'dev.tollgate.request.created';

/** Milliseconds on the clock every process on the machine shares (CLOCK_MONOTONIC). */
export const sharedNow = () => Number(process.hrtime.bigint()) / 1e6;

/** What the receiver keeps of a `created` event. */
export interface Arrival {
  /** On {@link sharedNow}. */
  at: number;
  /** The event's `time` (its commit, wall clock ms). */
  time: number;
  /** Wall clock at arrival minus the event's `time`, in ms. */
  sinceCommit: number;
}

/** The sink of the event scenarios. */
export class Receiver {
  /** Events received (a batch counts its events), and POSTs. */
  received = 0;
  posts = 0;
  badSignatures = 0;
  readonly created = new Map<string, Arrival>();
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(secret: string): Promise<Receiver> {
    let self: Receiver | null = null;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const at = sharedNow();
        const wall = Date.now();
        res.writeHead(204).end();
        self?.take(
          Buffer.concat(chunks).toString('utf8'),
          String(req.headers['tollgate-signature'] ?? ''),
          secret,
          at,
          wall,
        );
      });
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    self = new Receiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`);
    return self;
  }

  private take(body: string, header: string, secret: string, at: number, wall: number): void {
    this.posts++;
    const t = /(?:^|,)t=(\d+)/.exec(header)?.[1];
    const v1 = /(?:^|,)v1=([0-9a-f]+)/.exec(header)?.[1];
    const expected = t ? createHmac('sha256', secret).update(`${t}.${body}`).digest() : null;
    const given = v1 ? Buffer.from(v1, 'hex') : null;
    const parsed = JSON.parse(body) as Event | Event[];
    const events = Array.isArray(parsed) ? parsed : [parsed];
    this.received += events.length;
    if (!expected || !given || given.length !== expected.length || !timingSafeEqual(given, expected))
      this.badSignatures += events.length;
    for (const event of events) {
      if (event.type !== CREATED || !event.subject || this.created.has(event.subject)) continue;
      const time = Date.parse(event.time ?? '');
      this.created.set(event.subject, { at, time, sinceCommit: wall - time });
    }
  }

  /** Waits for the `created` event of `requestId`. */
  async createdOf(requestId: string): Promise<Arrival> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const found = this.created.get(requestId);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no ${CREATED} event for ${requestId} within 30 s`);
      await sleep(1);
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

interface Event {
  type?: string;
  subject?: string;
  time?: string;
}
