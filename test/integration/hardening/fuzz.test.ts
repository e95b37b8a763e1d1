/**
 * Property-based fuzzing of the API's write routes (#18): arbitrary JSON bodies, and bodies shaped like the API's
 * own zod schemas with arbitrary values, sent to `POST /v1/requests`, `POST /v1/requests/:id/decision` and
 * `POST /v1/requests/:id/receipt`, and the Claude Code and PulseBot hook routes. Whatever arrives: never a 5xx,
 * every 4xx is problem+json (a 400 names the field at fault), and a refused input changes nothing (no row, no event
 * but an audited `decision_rejected`, the request stays pending).
 * Seeded and bounded, so a failure reproduces and CI time is predictable.
 */
import { Database, type SqliteConnection } from '../../../src/stores/sqlite/driver.js';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const RUNS = { seed: 1818, numRuns: 200 } as const;

let t: TestServer;
let db: SqliteConnection;
beforeAll(async () => {
  // Budgets far above the run's size: the fuzz is about bodies, not the per-token rate limit (tested on its own).
  t = await startTestServer({ env: { TOLLGATE_RATE_LIMIT: '100000', TOLLGATE_RATE_LIMIT_DECISIONS: '100000' } });
  db = new Database(t.dbPath, { readonly: true });
});
afterAll(async () => {
  db.close();
  await t.close();
});

/** The events of refused decisions (audited on purpose), as a `count` argument. */
const REJECTED = "confirmation_events WHERE type = 'decision_rejected'";
const count = (table: string): number => (db.prepare(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n;
const any = fc.jsonValue({ maxDepth: 3 });
const text = fc.oneof(fc.string({ minLength: 1 }), fc.string({ unit: 'grapheme', maxLength: 300 }));
const object = fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 });

/** A fuzzed body and, when it is a valid body with one field changed, that field (a 400 must name it). */
interface Case {
  body: unknown;
  field?: string;
}

/**
 * Bodies of two kinds: anything at all (JSON of any shape), and a valid body with one field set to a plausible or an
 * arbitrary value (or one stray field added) — so runs reach the accepting paths too, and a refusal can be checked
 * for naming exactly the field that was changed.
 */
function cases(valid: Record<string, unknown>, plausible: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<Case> {
  const mutated = fc.constantFrom(...Object.keys(plausible), 'stray_field').chain((field) =>
    (plausible[field] ? fc.oneof(plausible[field], any) : any).map((value) => ({
      body: { ...valid, [field]: value },
      field,
    })),
  );
  return fc.oneof({ arbitrary: any.map((body) => ({ body })), weight: 1 }, { arbitrary: mutated, weight: 3 });
}

const createCases = cases(
  { tool_name: 'deploy', tool_args: { n: 1 }, approvers: ['web:alice'], timeout_s: 600 },
  {
    tool_name: text,
    tool_args: object,
    prompt: text,
    options: fc.array(text, { maxLength: 12 }),
    agent_id: text,
    user_id: text,
    session_id: text,
    tool_call_id: text,
    metadata: object,
    channels: fc.array(
      fc.record({ type: fc.constantFrom('web', 'slack', 'Nope', ''), target: text }, { requiredKeys: ['type'] }),
      { maxLength: 3 },
    ),
    approvers: fc.array(fc.oneof(fc.constant('web:alice'), fc.constant('web:\u202eevil'), text), { maxLength: 3 }),
    required_approvals: fc.oneof(fc.integer({ min: -2, max: 30 }), fc.double()),
    timeout_s: fc.oneof(fc.integer(), fc.double()),
    on_timeout: fc.constantFrom('deny', 'approve', 'later'),
    idempotency_key: text,
    callback_url: fc.oneof(
      fc.constantFrom('http://127.0.0.1/hook', 'http://169.254.169.254/', 'http://u:p@example.com/', 'ftp://x/'),
      text,
    ),
  },
);
const decisionCases = cases(
  { decision: 'approve', approver: 'web:alice' },
  {
    decision: fc.constantFrom('approve', 'deny', 'maybe'),
    approver: fc.oneof(fc.constantFrom('web:alice', 'web:bob', 'web:', ':', 'web:a\u200bb'), text),
    reason: text,
    option: text,
    approved_args: object,
    args_sha256: fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), text),
    grant: text,
  },
);
const receiptCases = cases(
  { outcome: 'succeeded' },
  { outcome: fc.constantFrom('succeeded', 'failed', 'ok'), detail: text, args_sha256: text },
);

/** Hook routes: [path, a valid body, plausible values per field]. */
const hookCases: [string, Record<string, unknown>, Record<string, fc.Arbitrary<unknown>>][] = [
  [
    '/v1/hooks/claude-code?wait=0',
    {
      session_id: 's-1',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_use_id: 'toolu_1',
      tool_input: { command: 'ls' },
    },
    {
      session_id: text,
      hook_event_name: fc.constantFrom('PreToolUse', 'PostToolUse', 'PermissionRequest', 'Nope'),
      tool_name: text,
      tool_use_id: text,
      tool_input: object,
    },
  ],
  [
    '/v1/hooks/pulsebot?wait=0',
    { event: 'pre_call', tool_name: 'shell', arguments: { cmd: 'ls' } },
    { event: fc.constantFrom('pre_call', 'post_call', 'nope'), tool_name: text, arguments: object },
  ],
];

/** Checks the answer's shape (never 5xx; 4xx is problem+json; a 400 names the field at fault); returns its status. */
async function check(res: Response, one: Case): Promise<number> {
  const raw = await res.text();
  expect(res.status, raw).toBeLessThan(500);
  if (res.status >= 400) {
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = JSON.parse(raw) as { status: number; detail: string; errors?: { path: string; message: string }[] };
    expect(problem.status).toBe(res.status);
    expect(problem.detail).toEqual(expect.any(String));
    if (res.status === 400) {
      // The changed field, or for a body of the wrong shape the body itself.
      const names = one.field ? [one.field] : ['body'];
      const paths = (problem.errors ?? []).map((e) => e.path);
      const named = names.some((n) => problem.detail.includes(n) || paths.some((p) => p.startsWith(n)));
      expect(named || (!one.field && paths.length > 0), raw).toBe(true);
    }
  }
  return res.status;
}

const post = (path: string, body: unknown): Promise<Response> =>
  fetch(`${t.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${t.token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

async function pendingRequest(): Promise<string> {
  const res = await t.api('/v1/requests', {
    method: 'POST',
    body: { tool_name: 'fuzz', tool_args: { n: 1 }, approvers: ['web:alice'] },
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

describe('API fuzzing (fast-check, seeded)', () => {
  it('POST /v1/requests: never a 5xx; a refused body files nothing', async () => {
    await fc.assert(
      fc.asyncProperty(createCases, async (one) => {
        const before = count('confirmation_requests');
        const status = await check(await post('/v1/requests', one.body), one);
        if (status >= 400) expect(count('confirmation_requests')).toBe(before);
      }),
      RUNS,
    );
  });

  it('POST /v1/requests/:id/decision: never a 5xx; a refused decision leaves the request pending (only an audited decision_rejected)', async () => {
    let id = await pendingRequest();
    await fc.assert(
      fc.asyncProperty(decisionCases, async (one) => {
        const events = count('confirmation_events');
        const audited = count(REJECTED);
        const status = await check(await post(`/v1/requests/${id}/decision`, one.body), one);
        if (status >= 400) {
          // A malformed body records nothing; a well-formed refusal (stale args, not an approver) is audited as one
          // decision_rejected event and changes nothing else.
          const added = status === 400 ? 0 : count(REJECTED) - audited;
          expect(added).toBeLessThanOrEqual(1);
          expect(count('confirmation_events')).toBe(events + added);
          expect(((await (await t.api(`/v1/requests/${id}`)).json()) as { status: string }).status).toBe('pending');
        } else id = await pendingRequest(); // decided: the next run needs a pending one
      }),
      RUNS,
    );
  });

  it('POST /v1/requests/:id/receipt: never a 5xx; a refused receipt records no event', async () => {
    const id = await pendingRequest();
    expect((await post(`/v1/requests/${id}/decision`, { decision: 'approve', approver: 'web:alice' })).status).toBe(
      200,
    );
    await fc.assert(
      fc.asyncProperty(receiptCases, async (one) => {
        const events = count('confirmation_events');
        const status = await check(await post(`/v1/requests/${id}/receipt`, one.body), one);
        if (status >= 400) expect(count('confirmation_events')).toBe(events);
      }),
      RUNS,
    );
  });

  it.each(hookCases)('POST %s: never a 5xx, 4xx is problem+json', async (path, valid, plausible) => {
    // The route is there and takes its valid body (so the property is not about a 404).
    expect((await post(path, valid)).status).toBeLessThan(300);
    await fc.assert(
      fc.asyncProperty(cases(valid, plausible), async (one) => {
        const res = await post(path, one.body);
        const raw = await res.text();
        expect(res.status, raw).toBeLessThan(500);
        if (res.status >= 400) expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      }),
      { ...RUNS, numRuns: 100 },
    );
  });
});
