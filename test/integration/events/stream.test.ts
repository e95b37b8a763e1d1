/**
 * The event stream: webhook sinks receiving signed CloudEvents, at least once and in order per request, through a sink
 * that is down for a while and a gateway restart; filters; the pull API; config errors. A real HTTP receiver on
 * 127.0.0.1 (pipelined batches: pipeline.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { PYTHON3 } from '../../support/python.js';
import { parse as parseYaml } from 'yaml';
import { ManualClock } from '../../../src/utils/clock.js';
import { loadSinks } from '../../../src/events/config.js';
import { signatureHeader } from '../../../src/events/sink.js';
import { verifyAnchor } from '../../../src/verify/index.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';
import { sharedRedisEnv } from '../postgres/replica-pair.js';
import { Receiver } from './receiver.js';

const SECRET = 'sink-secret-0123456789';

/** The verification snippet of docs/events.md, as a consumer would write it. */
function verify(secret: string, header: string, body: string): boolean {
  const { t, v1 } = Object.fromEntries(header.split(',').map((kv) => kv.split('='))) as { t: string; v1: string };
  return v1 === createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
}

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

async function gateway(
  receiver: Receiver,
  options: { sink?: string; clock?: ManualClock; dbPath?: string; env?: Record<string, string> } = {},
): Promise<TestServer> {
  const sink = options.sink ?? '';
  const t = await startTestServer({
    policy: `events:\n  - { url: "${receiver.url}", secret: ${SECRET}${sink} }\n`,
    env: { TOLLGATE_CALLBACK_ALLOW: '127.0.0.1', ...options.env },
    clock: options.clock,
    dbPath: options.dbPath,
  });
  open.push(t);
  return t;
}
async function file(t: TestServer, tool = 'deploy'): Promise<string> {
  const res = await t.api('/v1/requests', {
    body: { tool_name: tool, tool_args: { env: 'prod' }, approvers: ['web:ops'] },
  });
  return ((await res.json()) as { id: string }).id;
}
const decide = (t: TestServer, id: string, decision = 'approve') =>
  t.api(`/v1/requests/${id}/decision`, { body: { decision, approver: 'web:ops' } });

describe('event stream', () => {
  it('posts signed CloudEvents for every change, in order', async () => {
    const receiver = await Receiver.start();
    open.push(receiver);
    const t = await gateway(receiver);
    const id = await file(t);
    await decide(t, id);
    await eventually(async () => {
      await t.gateway.stream!.flush();
      expect(receiver.types()).toEqual(['dev.tollgate.request.created', 'dev.tollgate.request.approved']);
    });
    const [created, approved] = receiver.received;
    expect(created).toMatchObject({
      subject: id,
      specversion: '1.0',
      source: 'tollgate',
      datacontenttype: 'application/json',
      data: { request: { id, tool_name: 'deploy' } },
    });
    expect(Number(approved!.id.slice(4))).toBeGreaterThan(Number(created!.id.slice(4)));
    expect(receiver.received.every((r) => verify(SECRET, r.signature, r.body))).toBe(true);
    expect(verify('another-secret-000000', created!.signature, created!.body)).toBe(false);
    expect([...receiver.contentTypes]).toEqual(['application/cloudevents-batch+json']);
  });

  it('posts one structured event per POST to a sink with batch: false', async () => {
    const receiver = await Receiver.start();
    open.push(receiver);
    const t = await gateway(receiver, { sink: ', batch: false' });
    const id = await file(t);
    await decide(t, id);
    await eventually(async () => {
      await t.gateway.stream!.flush();
      expect(receiver.types()).toEqual(['dev.tollgate.request.created', 'dev.tollgate.request.approved']);
    });
    expect([...receiver.contentTypes]).toEqual(['application/cloudevents+json']);
    expect(receiver.received.map((r) => JSON.parse(r.body) as { id: string })).toMatchObject([
      { id: receiver.received[0]!.id },
      { id: receiver.received[1]!.id },
    ]);
    expect(receiver.received.every((r) => verify(SECRET, r.signature, r.body))).toBe(true);
  });

  it('keeps the backlog of a sink that is down, says so on /readyz, and delivers it in order once it is back', async () => {
    const clock = new ManualClock(Date.now());
    const receiver = await Receiver.start();
    open.push(receiver);
    const t = await gateway(receiver, { clock });
    await t.gateway.stream!.flush(); // the sink starts at the present
    receiver.failing = 1000;
    const ids = [await file(t), await file(t)];
    await decide(t, ids[0]!, 'deny');
    await t.gateway.stream!.flush();
    const readyz = (await (await fetch(`${t.url}/readyz`)).json()) as {
      status: string;
      checks: Record<string, { ready: boolean; detail?: string }>;
    };
    expect(readyz.status).toBe('ready');
    expect(Object.values(readyz.checks).find((c) => c.detail?.startsWith('failing'))?.detail).toMatch(
      /answered 500.*events behind/,
    );
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toMatch(/tollgate_event_sink_backlog\{sink="events\[0\] 127\.0\.0\.1:\d+"\} [1-9]/);
    expect(metrics).toMatch(/tollgate_event_sink_deliveries\{sink="[^"]+",outcome="failed"\} [1-9]/);
    const attempts = receiver.attempts;
    await t.gateway.stream!.flush();
    expect(receiver.attempts).toBe(attempts); // backing off: no retry before its time
    receiver.failing = 0;
    await clock.advance(2000);
    await eventually(async () => {
      await t.gateway.stream!.flush();
      expect(receiver.types().sort()).toEqual([
        'dev.tollgate.request.created',
        'dev.tollgate.request.created',
        'dev.tollgate.request.denied',
      ]);
    });
    // Two requests' events may come in two batches in flight at once; each request's come in order.
    expect(receiver.received.filter((r) => r.subject === ids[0]).map((r) => r.type)).toEqual([
      'dev.tollgate.request.created',
      'dev.tollgate.request.denied',
    ]);
  });

  it('resumes after a restart from the last event the sink acknowledged', async () => {
    const receiver = await Receiver.start();
    open.push(receiver);
    const first = await gateway(receiver);
    await first.gateway.stream!.flush();
    const id = await file(first);
    await eventually(async () => {
      await first.gateway.stream!.flush();
      expect(receiver.received).toHaveLength(1);
    });
    receiver.failing = 1000;
    await decide(first, id);
    await first.gateway.stream!.flush().catch(() => undefined);
    await first.server.close();
    receiver.failing = 0;
    const second = await startTestServer({
      dbPath: first.dbPath,
      policy: `events:\n  - { url: "${receiver.url}", secret: ${SECRET} }\n`,
      env: { TOLLGATE_CALLBACK_ALLOW: '127.0.0.1' },
    });
    open.push(second);
    await eventually(async () => {
      await second.gateway.stream!.flush();
      expect(receiver.types()).toEqual(['dev.tollgate.request.created', 'dev.tollgate.request.approved']);
    });
  });

  it('sends only the types and tools a sink asks for; a partial quorum is approval_counted', async () => {
    const receiver = await Receiver.start();
    open.push(receiver);
    const t = await gateway(receiver, {
      sink: ', types: [dev.tollgate.request.approved, dev.tollgate.request.approval_counted], tools: ["deploy*"]',
    });
    await t.gateway.stream!.flush();
    const res = await t.api('/v1/requests', {
      body: { tool_name: 'deploy_prod', tool_args: {}, approvers: ['web:a', 'web:b'], required_approvals: 2 },
    });
    const { id } = (await res.json()) as { id: string };
    await t.api(`/v1/requests/${id}/decision`, { body: { decision: 'approve', approver: 'web:a' } });
    await t.api(`/v1/requests/${id}/decision`, { body: { decision: 'approve', approver: 'web:b' } });
    const other = await file(t, 'search');
    await decide(t, other);
    await eventually(async () => {
      await t.gateway.stream!.flush();
      expect(receiver.types()).toEqual(['dev.tollgate.request.approval_counted', 'dev.tollgate.request.approved']);
    });
  });

  it('sends the signed audit head to the sinks, once per head', async () => {
    const receiver = await Receiver.start();
    open.push(receiver);
    const t = await gateway(receiver);
    const id = await file(t);
    await decide(t, id);
    const head = () => t.gateway.audit!.head();
    await t.gateway.stream!.publishHead(head);
    await t.gateway.stream!.publishHead(head);
    const anchors = receiver.received.filter((r) => r.type === 'dev.tollgate.audit.head');
    expect(anchors).toHaveLength(1);
    const anchor = anchors[0]!.data as unknown as { event_id: number; hash: string; at: string; signature: string };
    expect(anchor).toEqual(await head());
    const jwks = (await (await fetch(`${t.url}/.well-known/jwks.json`)).json()) as NonNullable<
      Parameters<typeof verifyAnchor>[1]['keys']
    >;
    expect(await verifyAnchor(anchor, { keys: jwks })).toEqual({ ok: true });
    expect(await verifyAnchor({ ...anchor, hash: '0'.repeat(64) }, { keys: jwks })).toMatchObject({
      ok: false,
      reason: 'mismatch',
    });
  });

  it.each(['sqlite', 'postgres'] as const)(
    'sends every change of away status as dev.tollgate.person.away_changed, once (%s)',
    async (dialect) => {
      const database = dialect === 'postgres' ? await freshDatabase({ migrate: true }) : null;
      if (database) open.push({ close: () => database.drop() });
      const receiver = await Receiver.start();
      open.push(receiver);
      const policy = `people:\n  - { id: alice }\n  - { id: bob }\nevents:\n  - { url: "${receiver.url}", secret: ${SECRET} }\n`;
      const t = await startTestServer({
        policy,
        env: { TOLLGATE_CALLBACK_ALLOW: '127.0.0.1' },
        ...(database ? { dbPath: database.url } : {}),
      });
      open.push(t);
      await t.gateway.stream!.flush(); // the sink starts at the present
      const window = { from: '2026-12-01', until: '2026-12-03', delegate: 'person:bob', note: 'holiday' };
      expect((await t.api('/v1/people/alice/away', { method: 'PUT', body: window })).status).toBe(200);
      expect((await t.api('/v1/people/alice/away', { method: 'DELETE' })).status).toBe(200);
      await eventually(async () => {
        await t.gateway.stream!.flush();
        expect(receiver.types()).toEqual(['dev.tollgate.person.away_changed', 'dev.tollgate.person.away_changed']);
      });
      const [set, cleared] = receiver.received as unknown as {
        id: string;
        subject: string;
        data: unknown;
        signature: string;
        body: string;
      }[];
      expect(set).toMatchObject({
        subject: 'alice',
        data: {
          person: 'alice',
          set_by: 'api:admin',
          away: {
            from: '2026-12-01T00:00:00.000Z',
            until: '2026-12-03T00:00:00.000Z',
            delegate: 'person:bob',
            note: 'holiday',
          },
        },
      });
      expect(cleared).toMatchObject({ subject: 'alice', data: { person: 'alice', away: null } });
      expect(verify(SECRET, set!.signature, set!.body)).toBe(true);
      await t.gateway.stream!.flush();
      expect(receiver.received).toHaveLength(2);
    },
  );

  it('pages the same stream over GET /v1/events', async () => {
    const receiver = await Receiver.start();
    open.push(receiver);
    const t = await gateway(receiver);
    const id = await file(t);
    await decide(t, id, 'deny');
    const first = (await (await t.api('/v1/events?limit=1')).json()) as {
      items: { type: string; id: string }[];
      next_after: number;
    };
    expect(first.items.map((e) => e.type)).toEqual(['dev.tollgate.request.created']);
    const next = (await (await t.api(`/v1/events?after=${first.next_after}`)).json()) as {
      items: { type: string }[];
      next_after: number;
    };
    expect(next.items.map((e) => e.type)).toEqual(['dev.tollgate.request.denied']);
    const end = (await (await t.api(`/v1/events?after=${next.next_after}`)).json()) as {
      items: unknown[];
      next_after: number;
    };
    expect(end).toEqual({ items: [], next_after: next.next_after });
    expect((await t.api('/v1/events?after=-1')).status).toBe(400);
  });

  it('delivers each event once across two replicas on PostgreSQL', async () => {
    const database: FreshDatabase = await freshDatabase({ migrate: true });
    open.push({ close: () => database.drop() });
    const receiver = await Receiver.start();
    open.push(receiver);
    const env = sharedRedisEnv();
    const a = await gateway(receiver, { dbPath: database.url, env });
    const b = await gateway(receiver, { dbPath: database.url, env });
    await Promise.all([a.gateway.stream!.flush(), b.gateway.stream!.flush()]);
    const ids = [await file(a), await file(b), await file(a)];
    await decide(b, ids[0]!);
    await eventually(async () => {
      await Promise.all([a.gateway.stream!.flush(), b.gateway.stream!.flush()]);
      expect(receiver.received).toHaveLength(4);
    });
    expect(new Set(receiver.received.map((r) => r.id)).size).toBe(4);
    expect(receiver.received.filter((r) => r.subject === ids[0]).map((r) => r.type)).toEqual([
      'dev.tollgate.request.created',
      'dev.tollgate.request.approved',
    ]);
  });

  it('loads the example of docs/events.md, and its Node and Python verification snippets accept what a sink receives', () => {
    const doc = readFileSync(new URL('../../../docs/events.md', import.meta.url), 'utf8');
    const yaml = /```yaml\n(events:[\s\S]*?)```/.exec(doc)![1]!;
    const [sink] = loadSinks((parseYaml(yaml) as { events: unknown }).events, 'docs/events.md', [], {
      TOLLGATE_SIEM_SECRET: SECRET,
    });
    expect(sink).toMatchObject({
      url: 'https://siem.example.com/tollgate',
      tools: ['payments.*', 'deploy'],
      maxBacklog: 100000,
    });
    const snippet = /```js\n([\s\S]*?)```/.exec(doc)![1]!;
    const fromTollgate = new Function(
      'createHmac',
      'timingSafeEqual',
      `${snippet.replace(/^import .*$/m, '')}\nreturn fromTollgate;`,
    )(createHmac, timingSafeEqual) as (s: string, h: string, b: string) => boolean;
    const python = /```python\n([\s\S]*?)```/.exec(doc)![1]!;
    // The Python snippet, run by python3 on the same three cases: each line of output is one verdict.
    const fromPython = (header: string, body: string): boolean => {
      const program = `${python}\nimport sys\nprint(from_tollgate(sys.argv[1], sys.argv[2], sys.argv[3].encode()))`;
      return execFileSync(PYTHON3, ['-c', program, SECRET, header, body], { encoding: 'utf8' }).trim() === 'True';
    };
    const body = '{"id":"evt_1"}';
    const t = Math.floor(Date.now() / 1000);
    for (const accepts of [fromTollgate.bind(null, SECRET), fromPython]) {
      expect(accepts(signatureHeader(SECRET, t, body), body)).toBe(true);
      expect(accepts(signatureHeader(SECRET, t, body), `${body} `)).toBe(false);
      expect(accepts(signatureHeader(SECRET, t - 600, body), body)).toBe(false);
    }
  });

  it('refuses a sink the SSRF rules refuse, and a short secret, naming the entry', () => {
    expect(() => loadSinks([{ url: 'http://10.0.0.5/hook', secret: SECRET }], 'tollgate.yaml', [])).toThrow(
      'tollgate.yaml: events[0].url: 10.0.0.5 is a loopback, private or link-local address',
    );
    expect(() => loadSinks([{ url: 'https://siem.example.com/hook', secret: 'short' }], 'tollgate.yaml', [])).toThrow(
      'tollgate.yaml: events[0].secret: the secret must be at least 16 characters',
    );
    expect(() =>
      loadSinks([{ url: 'https://siem.example.com/hook', secret: 'env:SIEM_SECRET' }], 'tollgate.yaml', [], {}),
    ).toThrow('events[0].secret: SIEM_SECRET is not set in the environment');
    expect(
      loadSinks(
        [{ url: 'https://siem.example.com/hook', secret: 'env:SIEM_SECRET', types: ['dev.tollgate.request.denied'] }],
        'tollgate.yaml',
        [],
        { SIEM_SECRET: SECRET },
      )[0],
    ).toMatchObject({ secret: SECRET, url: 'https://siem.example.com/hook' });
    expect(() =>
      loadSinks(
        [{ url: 'https://siem.example.com/hook', secret: SECRET, types: ['dev.tollgate.request.nope'] }],
        'tollgate.yaml',
        [],
      ),
    ).toThrow('events[0].types[0]');
  });
});
