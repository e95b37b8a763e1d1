/**
 * Redis for tests: the shared server on 127.0.0.1:6379 (each test under its own key prefix, deleted afterwards),
 * and private `redis-server` processes on free ports for tests that kill and restart Redis.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** The shared test Redis. */
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Deletes every key under `prefix:` (what a test's queues and feed left behind). */
export async function deleteKeys(prefix: string, url = REDIS_URL): Promise<number> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    let deleted = 0;
    let cursor = '0';
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length) deleted += await client.unlink(...keys);
    } while (cursor !== '0');
    return deleted;
  } finally {
    client.disconnect();
  }
}

/** A port nobody listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A `redis-server` of this test alone, with append-only persistence in a temp dir, that can be killed and restarted. */
export class PrivateRedis {
  readonly dir = mkdtempSync(join(tmpdir(), 'tollgate-redis-'));
  private child: ChildProcess | null = null;

  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts the server and resolves once it answers PING. */
  async start(): Promise<void> {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(this.port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'yes',
        '--appendfsync',
        'always',
        '--dir',
        this.dir,
      ],
      { stdio: 'ignore' },
    );
    this.child = child;
    const client = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    client.on('error', () => undefined); // refused while the server boots: retried below
    try {
      for (let i = 0; ; i++) {
        if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}`);
        try {
          if (client.status !== 'ready') await client.connect();
          if ((await client.ping()) === 'PONG') return;
        } catch (error) {
          if (i > 200) throw error;
          client.disconnect();
          await new Promise((r) => setTimeout(r, 25));
        }
      }
    } finally {
      client.disconnect();
    }
  }

  /** SIGKILLs the server (no shutdown save: only the append-only file survives). */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGKILL');
    });
  }

  /** Kills the server and removes its files. */
  async destroy(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
