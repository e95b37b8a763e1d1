import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/utils/clock.js';
import { loadConfig } from '../../../src/config.js';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { createServer, type TollgateServer } from '../../../src/server.js';
import type { Scope } from '../../../src/tokens/scopes.js';

/** A gateway with small budgets (4 calls, 2 decisions a minute), its log lines captured, on a ManualClock at the start of a minute. */
interface Limited {
  url: string;
  server: TollgateServer;
  clock: ManualClock;
  logs: Record<string, unknown>[];
  call(secret: string, path: string, init?: { method?: string; body?: unknown }): Promise<Response>;
  token(name: string, scopes: Scope[], as?: string): Promise<string>;
}

const ADMINS = ['admin-one', 'admin-two'];
const running: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const stop of running.splice(0).reverse()) await stop();
});

async function start(env: Record<string, string> = {}, shared?: { dir: string; clock: ManualClock }): Promise<Limited> {
  const dir = shared?.dir ?? mkdtempSync(join(tmpdir(), 'tollgate-ratelimit-'));
  const clock = shared?.clock ?? new ManualClock(Date.UTC(2026, 0, 1, 9, 0, 0));
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean))
        logs.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const config = loadConfig(
    { port: 0, db: join(dir, `tollgate-${Math.random().toString(36).slice(2)}.db`) },
    {
      TOLLGATE_API_TOKENS: ADMINS.join(','),
      TOLLGATE_RATE_LIMIT: '4',
      TOLLGATE_RATE_LIMIT_DECISIONS: '2',
      TOLLGATE_RATE_LIMIT_WINDOW_S: '60',
      ...env,
    },
  );
  // An in-process scheduler even with REDIS_URL: only the rate limits are under test on Redis here.
  const server = await createServer({
    config,
    clock,
    logger: pino({ level: 'warn' }, sink),
    scheduler: new InProcessScheduler({ clock }),
  });
  const { url } = await server.listen();
  running.push(async () => {
    await server.close();
    if (!shared) rmSync(dir, { recursive: true, force: true });
  });
  const call = (secret: string, path: string, init: { method?: string; body?: unknown } = {}) =>
    fetch(`${url}${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  let made = 0;
  return {
    url,
    server,
    clock,
    logs,
    call,
    // Tokens are made by an admin, whose budget (shared by both admin tokens) the setup must not spend.
    async token(name, scopes, as) {
      if (++made > 2) throw new Error('this setup makes at most 2 tokens per window');
      const res = await call('admin-two', '/v1/tokens', { body: { name, scopes, ...(as ? { as } : {}) } });
      expect(res.status).toBe(201);
      return ((await res.json()) as { secret: string }).secret;
    },
  };
}

/** Files a request in-process as if `filedBy` had filed it (no API call, so no budget spent). */
async function fileAs(t: Limited, filedBy: string, n: number): Promise<string> {
  const { request } = await t.server.gateway.request({
    toolName: 'deploy',
    toolArgs: { n },
    approvers: ['web:alice'],
    filedBy,
  });
  return request.id;
}

interface Row {
  name: string;
  scopes: Scope[];
  as?: string;
  /** How many calls pass before the 429 (the smaller of the budgets the call counts against). */
  budget: number;
  /** Call number `i` (0-based) with `secret`; `ids` are requests the token filed. */
  call(t: Limited, secret: string, ids: string[], i: number): Promise<Response>;
  /** What the refused call (number `budget`) would have changed: read before and after it, must not differ. */
  state(t: Limited, ids: string[]): Promise<unknown>;
}

const rows: Row[] = [
  {
    name: 'create (POST /v1/requests)',
    scopes: ['request:create'],
    budget: 4,
    call: (t, s, _ids, i) =>
      t.call(s, '/v1/requests', { body: { tool_name: 'deploy', tool_args: { n: i }, approvers: ['web:alice'] } }),
    state: async (t) => (await t.server.gateway.list({ limit: 100 })).items.length,
  },
  {
    name: 'read (GET /v1/requests/:id)',
    scopes: ['request:read'],
    budget: 4,
    call: (t, s, ids) => t.call(s, `/v1/requests/${ids[0]}`),
    state: async (t, ids) => (await t.server.gateway.events(ids[0]!)).length,
  },
  {
    name: 'decide (POST /v1/requests/:id/decision)',
    scopes: ['request:decide'],
    as: 'web:alice',
    budget: 2,
    call: (t, s, ids, i) => t.call(s, `/v1/requests/${ids[i]}/decision`, { body: { decision: 'approve' } }),
    state: async (t, ids) => [
      (await t.server.gateway.mustGet(ids[2]!)).status,
      (await t.server.gateway.events(ids[2]!)).map((e) => e.type),
    ],
  },
];

describe('per-token rate limits', () => {
  for (const row of rows) {
    it(`${row.name}: ${row.budget} calls per window, then 429 with Retry-After; other tokens unaffected; the window resets`, async () => {
      const t = await start();
      const secret = await t.token('limited', row.scopes, row.as);
      const other = await t.token('other', row.scopes, row.as);
      // Requests are filed by someone else for the decide row (a token may not approve what it filed).
      const ids = await Promise.all(
        [0, 1, 2, 3, 4].map((n) => fileAs(t, row.scopes.includes('request:read') ? 'limited' : 'agent', n)),
      );
      const otherIds = await Promise.all(
        [5, 6].map((n) => fileAs(t, row.scopes.includes('request:read') ? 'other' : 'agent', n)),
      );
      await t.clock.advance(15_000);

      for (let i = 0; i < row.budget; i++)
        expect((await row.call(t, secret, ids, i)).status, `call ${i + 1}`).toBeLessThan(300);
      const before = await row.state(t, ids);
      const refused = await row.call(t, secret, ids, row.budget);
      expect(refused.status).toBe(429);
      // The window began at 09:00:00 and it is 09:00:15: 45 s to go.
      expect(refused.headers.get('retry-after')).toBe('45');
      expect(refused.headers.get('content-type')).toContain('application/problem+json');
      const problem = (await refused.json()) as { type: string; status: number; detail: string };
      expect(problem).toMatchObject({
        status: 429,
        type: expect.stringMatching(/\/tollgate_rate_limited$/) as unknown,
      });
      expect(problem.detail).toContain('"limited"');
      expect(await row.state(t, ids), 'a refused call records nothing').toEqual(before);

      expect((await row.call(t, other, otherIds, 0)).status, 'another token keeps its own budget').toBeLessThan(300);

      await t.clock.advance(44_000);
      const last = await row.call(t, secret, ids, row.budget);
      expect(last.status).toBe(429);
      expect(last.headers.get('retry-after')).toBe('1');
      await t.clock.advance(1_000);
      expect((await row.call(t, secret, ids, row.budget)).status, 'a new window').toBeLessThan(300);

      // Audited: one warning per token and window, naming the token, never its secret.
      const warnings = t.logs.filter((l) => l.tokenName === 'limited');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({
        level: 40,
        budget: row.budget === 2 ? 'decisions' : 'requests',
        retryAfterS: 45,
      });
      expect(JSON.stringify(t.logs)).not.toContain(secret);
    });
  }

  it('counts every TOLLGATE_API_TOKENS admin token against the one budget of "admin"', async () => {
    const t = await start();
    for (let i = 0; i < 4; i++) expect((await t.call('admin-one', '/v1/requests')).status).toBe(200);
    const refused = await t.call('admin-two', '/v1/requests');
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { detail: string }).detail).toContain('"admin"');
    expect(t.logs.find((l) => l.tokenName === 'admin')).toMatchObject({ budget: 'requests', path: '/v1/requests' });
  });

  it('counts the runtime hook routes too', async () => {
    const t = await start();
    const agent = await t.token('hook-agent', ['request:create']);
    for (let i = 0; i < 4; i++)
      expect((await t.call(agent, '/v1/hooks/claude-code', { body: {} })).status).not.toBe(429);
    expect((await t.call(agent, '/v1/hooks/claude-code', { body: {} })).status).toBe(429);
  });

  it('turns a budget off with 0', async () => {
    const t = await start({ TOLLGATE_RATE_LIMIT: '0' });
    for (let i = 0; i < 10; i++) expect((await t.call('admin-one', '/v1/requests')).status).toBe(200);
  });

  it('names the variable that is not a whole number', () => {
    expect(() => loadConfig({ port: 0 }, { TOLLGATE_RATE_LIMIT: 'lots' })).toThrow(
      /TOLLGATE_RATE_LIMIT: expected a whole number/,
    );
    expect(() => loadConfig({ port: 0 }, { TOLLGATE_RATE_LIMIT_WINDOW_S: '0' })).toThrow(
      /TOLLGATE_RATE_LIMIT_WINDOW_S/,
    );
    expect(loadConfig({ port: 0 }, {}).rateLimits).toEqual({ requests: 600, decisions: 120, windowS: 60 });
  });

  it('reads rate_limits from the YAML file, the environment winning', () => {
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-ratelimit-'));
    running.push(async () => rmSync(dir, { recursive: true, force: true }));
    const good = join(dir, 'good.yaml');
    writeFileSync(good, 'rate_limits:\n  requests: 50\n  decisions: 5\n  window_s: 30\n');
    expect(loadConfig({ port: 0, config: good }, { TOLLGATE_RATE_LIMIT_DECISIONS: '7' }).rateLimits).toEqual({
      requests: 50,
      decisions: 7,
      windowS: 30,
    });
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'rate_limits:\n  requests: -1\n');
    expect(() => loadConfig({ port: 0, config: bad }, {})).toThrow(/rate_limits\.requests/);
  });
});

describe('per-token rate limits with REDIS_URL', () => {
  it('shares one budget per token between replicas', async () => {
    const prefix = `tg-rl-${process.pid}-${Date.now()}`;
    const redis = new Redis('redis://127.0.0.1:6379');
    running.push(async () => {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    });
    const dir = mkdtempSync(join(tmpdir(), 'tollgate-ratelimit-'));
    running.push(async () => rmSync(dir, { recursive: true, force: true }));
    const clock = new ManualClock(Date.UTC(2026, 0, 1, 9, 0, 0));
    const env = { REDIS_URL: 'redis://127.0.0.1:6379', TOLLGATE_QUEUE_PREFIX: prefix };
    const a = await start(env, { dir, clock });
    const b = await start(env, { dir, clock });
    for (const replica of [a, b, a, b]) expect((await replica.call('admin-one', '/v1/requests')).status).toBe(200);
    expect((await b.call('admin-one', '/v1/requests')).status).toBe(429);
    expect((await redis.keys(`${prefix}:ratelimit*`)).length).toBeGreaterThan(0);
  });

  it('keeps limiting on each replica while Redis is unreachable', async () => {
    const t = await start({ REDIS_URL: 'redis://127.0.0.1:1' });
    for (let i = 0; i < 4; i++) expect((await t.call('admin-one', '/v1/requests')).status).toBe(200);
    expect((await t.call('admin-one', '/v1/requests')).status).toBe(429);
  });
});
