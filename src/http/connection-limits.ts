/**
 * @module http/connection-limits
 * Bounds the sockets one HTTP server holds, so clients that open connections and never finish their headers
 * (slowloris) cannot starve `/healthz`, long-polls and decisions.
 *
 * - A total cap and a per-address cap. When a new connection would exceed a cap, the oldest connection of that
 *   scope with no request in flight (headers still arriving, or idle keep-alive) is closed to make room — so a
 *   fresh, well-behaved client is served while the half-sent sockets are shed. Only when every connection in the
 *   scope is busy answering a request is the new connection refused (closed at once).
 * - A short headers timeout (node checks it every `checkIntervalMs`), so half-sent headers do not hold a socket
 *   for a minute.
 *
 * Configured from the environment ({@link connectionLimitsFromEnv}); behind a reverse proxy every client shares the
 * proxy's address, so raise the per-address cap there (docs/production.md).
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { ValidationError } from '../api/errors.js';

/** Limits applied by {@link applyConnectionLimits}. */
export interface ConnectionLimits {
  /** Most sockets open at once (`TOLLGATE_MAX_CONNECTIONS`, default 16384: room for 10,000 parked long-polls). */
  maxConnections: number;
  /** Most sockets open at once from one remote address (`TOLLGATE_MAX_CONNECTIONS_PER_ADDRESS`, default 4096). */
  maxPerAddress: number;
  /** Time a client has to send its request headers (`TOLLGATE_HEADERS_TIMEOUT_MS`, default 10 s). */
  headersTimeoutMs: number;
  /** How often node checks the headers timeout (default: a fifth of the timeout, at least 250 ms). */
  checkIntervalMs?: number;
}

/** The defaults: generous for agents and inbox streams, tight enough that a flood cannot take every descriptor. */
export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  maxConnections: 16_384,
  maxPerAddress: 4096,
  headersTimeoutMs: 10_000,
};

/** Reads the limits from the environment; a value that is not a positive integer is a start-up error naming it. */
export function connectionLimitsFromEnv(env: Record<string, string | undefined>): ConnectionLimits {
  const read = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isSafeInteger(value) || value < 1)
      throw new ValidationError(`${name}: must be a positive integer, got ${JSON.stringify(raw)}`);
    return value;
  };
  return {
    maxConnections: read('TOLLGATE_MAX_CONNECTIONS', DEFAULT_CONNECTION_LIMITS.maxConnections),
    maxPerAddress: read('TOLLGATE_MAX_CONNECTIONS_PER_ADDRESS', DEFAULT_CONNECTION_LIMITS.maxPerAddress),
    headersTimeoutMs: read('TOLLGATE_HEADERS_TIMEOUT_MS', DEFAULT_CONNECTION_LIMITS.headersTimeoutMs),
  };
}

/** Counts of what the limiter did, for tests and logs. */
export interface ConnectionLimiterStats {
  open: number;
  evicted: number;
  refused: number;
}

/**
 * Applies `limits` to `server` (call before `listen`). Returns live counters.
 * @example applyConnectionLimits(http, connectionLimitsFromEnv(process.env))
 */
export function applyConnectionLimits(server: Server, limits: ConnectionLimits): ConnectionLimiterStats {
  server.headersTimeout = limits.headersTimeoutMs;
  // The request timeout must not be shorter than the headers timeout (node refuses to start otherwise).
  if (server.requestTimeout > 0 && server.requestTimeout < limits.headersTimeoutMs)
    server.requestTimeout = limits.headersTimeoutMs;
  // Read by node when the server starts listening; the default (30 s) would let half-sent headers live that long.
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval =
    limits.checkIntervalMs ?? Math.max(250, Math.floor(limits.headersTimeoutMs / 5));

  // Insertion-ordered sets: the first evictable socket found is the oldest.
  const all = new Set<Socket>();
  const byAddress = new Map<string, Set<Socket>>();
  const inFlight = new WeakMap<Socket, number>();
  const stats: ConnectionLimiterStats = { open: 0, evicted: 0, refused: 0 };

  const makeRoom = (scope: Set<Socket>): boolean => {
    for (const socket of scope) {
      if (!inFlight.get(socket)) {
        forget(socket);
        socket.destroy();
        stats.evicted++;
        return true;
      }
    }
    return false;
  };
  const forget = (socket: Socket): void => {
    if (!all.delete(socket)) return;
    const key = socket.remoteAddress ?? '';
    const peers = byAddress.get(key);
    peers?.delete(socket);
    if (peers?.size === 0) byAddress.delete(key);
    stats.open = all.size;
  };

  server.on('connection', (socket: Socket) => {
    const key = socket.remoteAddress ?? '';
    const peers = byAddress.get(key) ?? new Set<Socket>();
    const fits =
      (peers.size < limits.maxPerAddress || makeRoom(peers)) && (all.size < limits.maxConnections || makeRoom(all));
    if (!fits) {
      stats.refused++;
      socket.destroy();
      return;
    }
    all.add(socket);
    peers.add(socket);
    byAddress.set(key, peers);
    stats.open = all.size;
    socket.once('close', () => forget(socket));
  });
  server.on('request', (req, res) => {
    const socket = req.socket;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    res.once('close', () => inFlight.set(socket, Math.max(0, (inFlight.get(socket) ?? 1) - 1)));
  });
  return stats;
}
