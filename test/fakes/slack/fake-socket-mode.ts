/**
 * The Socket Mode half of the fake Slack: a minimal WebSocket server (RFC 6455 handshake and unfragmented frames,
 * which is all `@slack/socket-mode` uses) on the fake's own HTTP server. After `apps.connections.open`, the client
 * connects here, gets Slack's `hello`, and then receives the envelopes a test pushes; its acks are recorded.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';

const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** One connected Socket Mode client. */
class Connection {
  private buffer = Buffer.alloc(0);

  constructor(
    private readonly socket: Duplex,
    private readonly onText: (text: string) => void,
  ) {
    socket.on('data', (chunk: Buffer) => this.read(chunk));
    socket.on('error', () => socket.destroy());
  }

  sendText(text: string): void {
    this.send(0x1, Buffer.from(text, 'utf8'));
  }

  close(): void {
    this.socket.destroy();
  }

  private send(opcode: number, payload: Buffer): void {
    const length = payload.length;
    const header =
      length < 126 ? Buffer.from([0x80 | opcode, length]) : length < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
    if (length >= 126 && length < 65536) {
      header[0] = 0x80 | opcode;
      header[1] = 126;
      header.writeUInt16BE(length, 2);
    } else if (length >= 65536) {
      header[0] = 0x80 | opcode;
      header[1] = 127;
      header.writeBigUInt64BE(BigInt(length), 2);
    }
    if (!this.socket.destroyed) this.socket.write(Buffer.concat([header, payload]));
  }

  private read(chunk: Buffer): void {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    for (;;) {
      if (this.buffer.length < 2) return;
      const opcode = this.buffer[0]! & 0x0f;
      const masked = (this.buffer[1]! & 0x80) !== 0;
      let length = this.buffer[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.buffer.length < 4) return;
        length = this.buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.buffer.length < 10) return;
        length = Number(this.buffer.readBigUInt64BE(2));
        offset = 10;
      }
      const mask = masked ? this.buffer.subarray(offset, offset + 4) : null;
      if (masked) offset += 4;
      if (this.buffer.length < offset + length) return;
      const payload = Buffer.from(this.buffer.subarray(offset, offset + length));
      if (mask) for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i % 4]!;
      this.buffer = this.buffer.subarray(offset + length);
      if (opcode === 0x1) this.onText(payload.toString('utf8'));
      else if (opcode === 0x9) this.send(0xa, payload);
      else if (opcode === 0x8) {
        this.send(0x8, payload.subarray(0, 2));
        this.socket.end();
        return;
      }
    }
  }
}

/** The Socket Mode endpoint of the fake. */
export class FakeSocketMode {
  /** Messages the client sent (acks), parsed. */
  readonly received: Record<string, unknown>[] = [];
  private readonly connections = new Set<Connection>();
  private envelopes = 0;

  constructor(server: Server) {
    server.on('upgrade', (req: IncomingMessage, socket: Duplex) => this.accept(req, socket));
  }

  /** Connected clients. */
  get connected(): number {
    return this.connections.size;
  }

  /** Sends an `interactive` envelope (a tap) to every client; returns its envelope id. */
  pushInteractive(payload: Record<string, unknown>): string {
    const envelopeId = `env-${++this.envelopes}`;
    const envelope = {
      envelope_id: envelopeId,
      payload,
      type: 'interactive',
      accepts_response_payload: payload.type === 'view_submission',
      retry_attempt: 0,
      retry_reason: '',
    };
    for (const connection of this.connections) connection.sendText(JSON.stringify(envelope));
    return envelopeId;
  }

  /** Drops every connection. */
  closeAll(): void {
    for (const connection of this.connections) connection.close();
    this.connections.clear();
  }

  private accept(req: IncomingMessage, socket: Duplex): void {
    const key = req.headers['sec-websocket-key'];
    if (!req.url?.startsWith('/socket-mode') || typeof key !== 'string') {
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const accept = createHash('sha1')
      .update(key + WS_GUID)
      .digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`,
    );
    const connection = new Connection(socket, (text) =>
      this.received.push(JSON.parse(text) as Record<string, unknown>),
    );
    this.connections.add(connection);
    socket.on('close', () => this.connections.delete(connection));
    connection.sendText(
      JSON.stringify({
        type: 'hello',
        num_connections: 1,
        debug_info: { host: 'fake', approximate_connection_time: 3600 },
        connection_info: { app_id: 'A0FAKE' },
      }),
    );
  }
}
