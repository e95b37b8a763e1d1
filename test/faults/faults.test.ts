/**
 * The fault suite: two replicas, each on its own host (a network namespace), reaching PostgreSQL and Redis over links
 * the suite cuts, under a steady load of creates, long-polls and decisions. Then a checker proves that nothing the
 * gateway acknowledged was lost or changed, that no request got two verdicts or a verdict after its deadline, that
 * every overdue request is expired, that every long-poll got its verdict, and that no 5xx but a 503 with Retry-After
 * was ever answered. It prints a table of what happened (docs/production.md quotes it).
 *
 * Runs where network namespaces can be made (root and `ip netns`, as in CI); elsewhere it says why it did not run.
 *
 * Over 30 s by design (about a minute): the faults are real time — partitions must outlast the clients' timeouts
 * (5 s for a call, 9 s for a long-poll) and the requests' 4–7 s deadlines for the checker to prove anything — so it
 * runs with the other waiting files in vitest.config.ts's `waiting` project, beside them rather than before them.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { compiledCli } from '../helpers/compiled-cli.js';
import { freshDatabase, withClient, type FreshDatabase } from '../integration/postgres/fresh-database.js';
import { check } from './checker.js';
import { Forwarder } from './forwarder.js';
import { runLoad, type Entry } from './load.js';
import { FaultHost, netnsUnavailable } from './netns.js';

const TOKEN = `tg_fault_${randomUUID()}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const unavailable = netnsUnavailable();

/** A replica host: its namespace, its three links, and the gateway process in it. */
interface Replica extends Entry {
  host: FaultHost;
  links: { postgres: Forwarder; redis: Forwarder; clients: Forwarder };
  process: ChildProcess;
  /** What its gateway printed (stdout and stderr) since its last start. */
  output?: () => string;
}

const cleanup: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await Promise.resolve(step()).catch(() => undefined);
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Our own redis-server (the suite restarts it), keeping nothing on disk. */
async function startRedis(port: number): Promise<ChildProcess> {
  const redis = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100; i++) {
    try {
      if (
        execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: ['ignore', 'pipe', 'ignore'] })
          .toString()
          .trim() === 'PONG'
      )
        return redis;
    } catch {
      // not up yet
    }
    await sleep(50);
  }
  throw new Error(`redis-server did not start on ${port}`);
}

async function startGateway(
  host: FaultHost,
  databaseUrl: string,
  redisUrl: string,
  prefix: string,
): Promise<{ process: ChildProcess; output: () => string }> {
  const child = host.spawn(
    process.execPath,
    [await compiledCli(), 'serve', '--port', '8787', '--host', '0.0.0.0', '--db', databaseUrl],
    {
      ...process.env,
      TOLLGATE_CLI: '1',
      TOLLGATE_API_TOKENS: TOKEN,
      REDIS_URL: redisUrl,
      TOLLGATE_QUEUE_PREFIX: prefix,
      TOLLGATE_RATE_LIMIT: '0',
      LOG_LEVEL: 'error',
    },
  );
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  for (let i = 0; i < 600 && !output.includes('listening on'); i++) {
    if (child.exitCode !== null) throw new Error(`gateway on ${host.name} exited:\n${output}`);
    await sleep(50);
  }
  if (!output.includes('listening on')) throw new Error(`gateway on ${host.name} did not start:\n${output}`);
  return { process: child, output: () => output };
}

describe.skipIf(unavailable !== null)(
  `fault suite across network namespaces${unavailable ? ` — not run: ${unavailable}` : ''}`,
  () => {
    it(
      'keeps every acknowledged create and verdict through kills, partitions and restarts',
      { timeout: 240_000 },
      async () => {
        const database: FreshDatabase = await freshDatabase({ migrate: true });
        cleanup.push(() => database.drop());
        const redisPort = await freePort();
        let redis = await startRedis(redisPort);
        cleanup.push(() => void redis.kill('SIGKILL'));
        const prefix = `tgf-${randomUUID()}`;
        const pgTarget = new URL(database.url);

        async function replica(name: string, n: number): Promise<Replica> {
          const host = FaultHost.create(`${process.pid % 100000}${name}`, n);
          cleanup.push(() => host.destroy());
          const links = {
            postgres: await Forwarder.start(host.gateway, 0, {
              host: pgTarget.hostname,
              port: Number(pgTarget.port || 5432),
            }),
            redis: await Forwarder.start(host.gateway, 0, { host: '127.0.0.1', port: redisPort }),
            clients: await Forwarder.start('127.0.0.1', 0, { host: host.address, port: 8787 }),
          };
          cleanup.push(() => Promise.all(Object.values(links).map((l) => l.close())).then(() => undefined));
          const r = { name, host, links, url: `http://127.0.0.1:${links.clients.port}` } as Replica;
          await boot(r);
          return r;
        }
        async function boot(r: Replica): Promise<void> {
          const dbUrl = new URL(database.url);
          dbUrl.hostname = r.host.gateway;
          dbUrl.port = String(r.links.postgres.port);
          const started = await startGateway(
            r.host,
            dbUrl.toString(),
            `redis://${r.host.gateway}:${r.links.redis.port}`,
            prefix,
          );
          r.process = started.process;
          r.output = started.output;
        }

        const a = await replica('a', 1);
        const b = await replica('b', 2);
        const replicas = [a, b];
        let stopping = false;
        const load = runLoad({ replicas: () => replicas, token: TOKEN, agents: 8, stop: () => stopping });

        const faults: { fault: string; seconds: number }[] = [];
        async function fault(name: string, run: () => Promise<void>): Promise<void> {
          const started = Date.now();
          await run();
          faults.push({ fault: name, seconds: Math.round((Date.now() - started) / 100) / 10 });
          await sleep(2000);
        }
        await sleep(3000);
        await fault('kill -9 of replica host A, restarted 2 s later', async () => {
          a.host.killAll();
          await sleep(2000);
          await boot(a);
        });
        // 12 s: longer than a call's 5 s, a long-poll's 9 s and every deadline, so each of them meets the partition.
        await fault('A partitioned from PostgreSQL', async () => {
          a.links.postgres.partition();
          await sleep(12_000);
          a.links.postgres.heal();
        });
        await fault('B partitioned from Redis', async () => {
          b.links.redis.partition();
          await sleep(10_000);
          b.links.redis.heal();
        });
        await fault('A partitioned from its clients', async () => {
          a.links.clients.partition();
          await sleep(10_000);
          a.links.clients.heal();
        });
        await fault('Redis restarted (its jobs lost)', async () => {
          redis.kill('SIGKILL');
          await sleep(1000);
          redis = await startRedis(redisPort);
        });
        await fault("PostgreSQL terminates every replica's connections", async () => {
          await withClient(database.url, (c) =>
            c.query(
              'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()',
            ),
          );
        });
        stopping = true;
        const ledger = await load;
        // The last deadlines pass; a request nobody reads is expired by the due-scan or the next read.
        await sleep(9000);
        await Promise.all(
          replicas.map((r) =>
            fetch(`${r.url}/v1/requests?status=pending&limit=500`, {
              headers: { authorization: `Bearer ${TOKEN}` },
            }).then(
              (res) => res.text(),
              (error: unknown) => {
                // A replica that no longer answers: say which, and what it printed before it went.
                throw new Error(
                  `replica ${r.name} does not answer (${String(error)}); its output:\n${r.output?.() ?? ''}`,
                );
              },
            ),
          ),
        );
        const findings = await withClient(database.url, (c) => check(c, ledger));

        const reattached = [...ledger.waits.values()].reduce((n, w) => n + w.reattached, 0);
        console.log(
          [
            'fault suite (2 replicas in network namespaces, PostgreSQL and Redis over veth links, 8 agents)',
            ...faults.map((f) => `  ${f.fault.padEnd(52)} ${f.seconds.toFixed(1)} s`),
            `  load: ${ledger.calls} calls, ${ledger.unanswered} unanswered (partitions, kills), ${ledger.retryable} 503 + Retry-After, ${ledger.bad5xx.length} other 5xx`,
            `  acknowledged creates ${ledger.created.size}, found ${ledger.created.size - findings.missingCreates.length}; acknowledged verdicts ${ledger.verdicts.size}, found as acknowledged ${ledger.verdicts.size - findings.wrongVerdicts.length}`,
            `  long-polls ${ledger.waits.size}, re-attached ${reattached} times, without verdict ${findings.waitsWithoutVerdict.length}`,
            `  requests ${findings.requests}; two verdicts ${findings.twoVerdicts.length}; verdict after deadline ${findings.verdictsAfterDeadline.length}; overdue pending ${findings.overduePending.length}`,
            `  expired ${findings.expired}; lateness of expiry p99 ${findings.latenessP99Ms} ms`,
          ].join('\n'),
        );
        expect(ledger.created.size).toBeGreaterThan(50);
        expect(ledger.verdicts.size).toBeGreaterThan(20);
        expect(findings).toMatchObject({
          missingCreates: [],
          wrongVerdicts: [],
          twoVerdicts: [],
          verdictsAfterDeadline: [],
          overduePending: [],
          waitsWithoutVerdict: [],
          waitsDisagreeing: [],
        });
        expect(ledger.bad5xx).toEqual([]);
      },
    );
  },
);
