/**
 * A TCP forwarder on this side of a fault host's link (PostgreSQL, Redis, or the clients' way in). `partition()`
 * behaves like a network partition, not a refusal: bytes stop moving both ways and new connections hang, with no
 * RST and no FIN, exactly as when packets are dropped; `heal()` lets the held bytes through, as TCP's retransmits
 * would after a short partition.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** One listening forwarder. */
export class Forwarder {
  private partitioned = false;
  private readonly pairs = new Set<[Socket, Socket]>();
  /** Bytes that arrived while partitioned, in order, with where they go. */
  private held: [Socket, Buffer][] = [];

  private constructor(
    private readonly server: Server,
    readonly host: string,
    readonly port: number,
  ) {}

  /** Listens on `host:port` (0: any free port) and forwards to `target`. */
  static async start(host: string, port: number, target: { host: string; port: number }): Promise<Forwarder> {
    let forwarder: Forwarder | null = null;
    const server = createServer((client) => forwarder!.accept(client, target));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, resolve);
    });
    forwarder = new Forwarder(server, host, (server.address() as AddressInfo).port);
    return forwarder;
  }

  /** Bytes stop in both directions; new connections are accepted and left hanging. */
  partition(): void {
    this.partitioned = true;
    for (const [a, b] of this.pairs) {
      a.pause();
      b.pause();
    }
  }

  heal(): void {
    this.partitioned = false;
    for (const [to, chunk] of this.held.splice(0)) if (!to.destroyed) to.write(chunk);
    for (const [a, b] of this.pairs) {
      a.resume();
      b.resume();
    }
  }

  async close(): Promise<void> {
    for (const [a, b] of this.pairs) {
      a.destroy();
      b.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket, target: { host: string; port: number }): void {
    const upstream = connect(target.port, target.host);
    const pair: [Socket, Socket] = [client, upstream];
    this.pairs.add(pair);
    if (this.partitioned) {
      client.pause();
      upstream.pause();
    }
    // By hand rather than pipe(): a pipe resumes a paused source on 'drain', which would leak bytes through a partition.
    const forward = (from: Socket, to: Socket) =>
      from.on('data', (chunk: Buffer) => {
        if (!this.partitioned) return void to.write(chunk);
        this.held.push([to, chunk]);
        from.pause();
      });
    forward(client, upstream);
    forward(upstream, client);
    const end = () => {
      this.pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  }
}
