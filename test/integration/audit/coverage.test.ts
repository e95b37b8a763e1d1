/**
 * What the trail covers (issue 49, finding 1; issue 57), on both dialects, through a running gateway: a database
 * writer edits one column of a settled request at a time — every column that says what was asked or decided — and
 * each time the next read still carries only the token minted when the request settled (it holds for the call that
 * was approved and no other), and `GET /v1/audit/verify` names the request and the column. A row written by hand with
 * no events is reported and gets no token (an unsigned mark switching nothing off: `attacks.test.ts`).
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { Database } from '../../../src/stores/sqlite/driver.js';
import { verifyVerdict } from '../../../src/verify/index.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, withClient, type FreshDatabase } from '../postgres/fresh-database.js';

interface Raw {
  /** Runs one statement with positional parameters, written `$1`, `$2`… in order, each used once. */
  run(sql: string, params?: unknown[]): Promise<void>;
  /** A column's stored value, as text (so it can be written back as it was). */
  text(id: string, column: string): Promise<string | null>;
}

const sqliteRaw = (path: string): Raw => ({
  async run(sql, params = []) {
    const db = new Database(path);
    try {
      db.prepare(sql.replace(/\$\d+/g, '?')).run(...params);
    } finally {
      db.close();
    }
  },
  async text(id, column) {
    const db = new Database(path);
    try {
      const value = db.prepare(`SELECT ${column} FROM confirmation_requests WHERE id = ?`).pluck().get(id) as
        string | number | null;
      return value === null ? null : String(value);
    } finally {
      db.close();
    }
  },
});

const postgresRaw = (url: string): Raw => ({
  run: (sql, params = []) => withClient(url, async (c) => void (await c.query(sql, params))),
  text: (id, column) =>
    withClient(
      url,
      async (c) =>
        (
          await c.query<{ v: string | null }>(`SELECT ${column}::text AS v FROM confirmation_requests WHERE id = $1`, [
            id,
          ])
        ).rows[0]!.v,
    ),
});

/** One edit: the column, its new value per dialect, and what `audit verify` must say. */
interface Tamper {
  column: string;
  value: (dialect: 'sqlite' | 'postgres') => unknown;
  kind: 'edited' | 'request_mismatch';
}

const later = new Date(Date.now() + 30 * 24 * 3600_000).toISOString();
const TAMPERS: Tamper[] = [
  // What was asked: the chain's own encoding covers some (a `created` event no longer matches), the digest the rest.
  { column: 'tool_name', value: () => 'payments.refund', kind: 'edited' },
  { column: 'required_approvals', value: () => 2, kind: 'edited' },
  { column: 'user_id', value: () => 'mallory', kind: 'edited' },
  { column: 'expires_at', value: () => later, kind: 'edited' },
  { column: 'on_timeout', value: () => 'approve', kind: 'edited' },
  { column: 'tool_args', value: () => '{"amount":5000000,"to":"mallory"}', kind: 'request_mismatch' },
  { column: 'approvers', value: () => '["web:mallory"]', kind: 'request_mismatch' },
  { column: 'prompt', value: () => 'Read the docs', kind: 'request_mismatch' },
  { column: 'filed_by_person', value: () => 'mallory', kind: 'request_mismatch' },
  { column: 'metadata', value: () => '{"ticket":"OPS-1"}', kind: 'request_mismatch' },
  // A coding agent's columns (migration agent_context), set on a row filed without them.
  { column: 'agent_kind', value: () => 'codex', kind: 'request_mismatch' },
  {
    column: 'context',
    value: () => '{"session_id":null,"cwd":"/srv","repo":"acme/billing","branch":"main","model":null}',
    kind: 'request_mismatch',
  },
  // What was decided: the settling event records each of these.
  { column: 'status', value: () => 'denied', kind: 'request_mismatch' },
  { column: 'allowed', value: (d) => (d === 'postgres' ? false : 0), kind: 'request_mismatch' },
  { column: 'approved_args', value: () => '{"amount":5000000}', kind: 'request_mismatch' },
  { column: 'responded_by', value: () => 'web:mallory', kind: 'request_mismatch' },
  { column: 'responded_by_person', value: () => 'mallory', kind: 'request_mismatch' },
  { column: 'on_behalf_of', value: () => 'mallory', kind: 'request_mismatch' },
  { column: 'responded_via', value: () => 'slack', kind: 'request_mismatch' },
  { column: 'responded_at', value: () => later, kind: 'request_mismatch' },
  { column: 'reason', value: () => 'all fine', kind: 'request_mismatch' },
  { column: 'decision_option', value: () => 'Pay it', kind: 'request_mismatch' },
];

let pg: FreshDatabase | undefined;
afterAll(async () => {
  await pg?.drop();
});

describe.each(['sqlite', 'postgres'] as const)('the chain covers every column (%s)', (dialect) => {
  let t: TestServer;
  let raw: Raw;

  beforeAll(async () => {
    if (dialect === 'postgres') {
      pg = await freshDatabase({ migrate: true });
      t = await startTestServer({ dbPath: pg.url });
      raw = postgresRaw(pg.url);
    } else {
      t = await startTestServer();
      raw = sqliteRaw(t.dbPath);
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  /** An approved `payments.pay {amount: 5}`, decided by alice over the API. */
  async function approvedPayment(): Promise<{ id: string; token: string }> {
    const body = {
      tool_name: 'payments.pay',
      tool_args: { amount: 5 },
      approvers: ['web:alice'],
      prompt: 'Pay 5?',
      metadata: { ticket: 'OPS-9' },
    };
    const { id } = (await (await t.api('/v1/requests', { body })).json()) as { id: string };
    const answer = await t.api(`/v1/requests/${id}/decision`, {
      body: { approver: 'web:alice', decision: 'approve', reason: 'fine' },
    });
    expect(answer.status).toBe(200);
    const { verdict_token } = (await answer.json()) as { verdict_token: string };
    return { id, token: verdict_token };
  }

  const read = async (id: string) =>
    (await (await t.api(`/v1/requests/${id}`)).json()) as { status: string; verdict_token: string | null };
  const verify = async () =>
    (await (await t.api('/v1/audit/verify')).json()) as {
      ok: boolean;
      problem: { kind: string; request_id: string | null; column: string | null; message: string } | null;
    };

  it('an untouched history verifies, and an approval reads back with its token', async () => {
    const { id, token } = await approvedPayment();
    expect((await read(id)).verdict_token).toBe(token);
    expect(await verify()).toMatchObject({ ok: true, problem: null });
  });

  it.each(TAMPERS)(
    'an edit of $column: the next read carries the token minted at the decision, and verify names the request and the column',
    async ({ column, value, kind }) => {
      const { id, token } = await approvedPayment();
      const before = await raw.text(id, column);
      const updatedAt = await raw.text(id, 'updated_at');
      // As the attacker did: the column, and updated_at with it (so no token cached for the old row is reused).
      await raw.run(`UPDATE confirmation_requests SET ${column} = $1, updated_at = $2 WHERE id = $3`, [
        value(dialect),
        later,
        id,
      ]);
      try {
        expect((await read(id)).verdict_token).toBe(token);
        expect((await verify()).problem).toMatchObject({ kind, request_id: id, column });
      } finally {
        await raw.run(`UPDATE confirmation_requests SET ${column} = $1, updated_at = $2 WHERE id = $3`, [
          before,
          updatedAt,
          id,
        ]);
      }
      expect(await verify()).toMatchObject({ ok: true });
    },
  );

  it("covers a coding agent's request the same way: editing its repository or its agent is named", async () => {
    const body = {
      tool_name: 'Bash',
      tool_args: { command: 'terraform apply' },
      agent_kind: 'codex',
      context: { session_id: 's1', cwd: '/srv/billing', repo: 'acme/billing', branch: 'main', model: 'gpt-5' },
    };
    const { id } = (await (await t.api('/v1/requests', { body })).json()) as { id: string };
    const decided = await t.api(`/v1/requests/${id}/decision`, {
      body: { approver: 'web:alice', decision: 'approve' },
    });
    expect(decided.status).toBe(200);
    const { verdict_token: token } = (await decided.json()) as { verdict_token: string };
    expect(await verify()).toMatchObject({ ok: true });
    for (const [column, value] of [
      ['context', '{"session_id":"s1","cwd":"/srv/billing","repo":"acme/sandbox","branch":"main","model":"gpt-5"}'],
      ['agent_kind', 'gemini'],
      ['agent_kind', null],
    ] as const) {
      const before = await raw.text(id, column);
      const updatedAt = await raw.text(id, 'updated_at');
      // updated_at with it, as in the edits above: no token cached for the old row is reused.
      await raw.run(`UPDATE confirmation_requests SET ${column} = $1, updated_at = $2 WHERE id = $3`, [
        value,
        later,
        id,
      ]);
      try {
        expect((await read(id)).verdict_token).toBe(token);
        expect((await verify()).problem).toMatchObject({ kind: 'request_mismatch', request_id: id, column });
      } finally {
        await raw.run(`UPDATE confirmation_requests SET ${column} = $1, updated_at = $2 WHERE id = $3`, [
          before,
          updatedAt,
          id,
        ]);
      }
    }
    expect(await verify()).toMatchObject({ ok: true });
  });

  it('the reported attack: new arguments and a decision 30 days ahead get no token for the new call', async () => {
    const { id, token } = await approvedPayment();
    const jwksUrl = `${t.url}/.well-known/jwks.json`;
    const before = await Promise.all(['tool_args', 'responded_at', 'updated_at'].map((c) => raw.text(id, c)));
    const set = (values: unknown[]) =>
      raw.run('UPDATE confirmation_requests SET tool_args = $1, responded_at = $2, updated_at = $3 WHERE id = $4', [
        ...values,
        id,
      ]);
    await set(['{"amount":5000000,"to":"mallory"}', later, later]);
    // Put back at the end, so the file's other tests find the trail intact whatever their order.
    onTestFinished(() => set(before));
    // The read returns the token as stored: minted from what was committed, it names the approved call only.
    const row = await read(id);
    expect(row.verdict_token).toBe(token);
    // The token signed at the decision still holds for the call that was approved, and for no other.
    expect(
      await verifyVerdict(token, { jwksUrl, toolName: 'payments.pay', args: { amount: 5000000, to: 'mallory' } }),
    ).toMatchObject({ ok: false, reason: 'args_mismatch' });
    expect(await verifyVerdict(token, { jwksUrl, toolName: 'payments.pay', args: { amount: 5 } })).toMatchObject({
      ok: true,
    });
    expect((await verify()).problem).toMatchObject({ kind: 'request_mismatch', request_id: id, column: 'tool_args' });
    if (dialect === 'sqlite') {
      // `tollgate audit verify` on the file says the same, and exits 1.
      const cli = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'src/cli/main.ts', 'audit', 'verify', '--db', t.dbPath],
        { encoding: 'utf8' },
      );
      expect(cli.status).toBe(1);
      expect(cli.stdout).toContain(`request ${id}`);
      expect(cli.stdout).toContain('tool_args');
    }
  });

  it('reports a request row written by hand with no events as unchained, and signs nothing for it', async () => {
    const { id } = await approvedPayment();
    const forged = `${id.slice(0, -4)}f0f0`;
    const columns =
      'status, tool_name, tool_args, approved_args, prompt, options, agent_id, user_id, session_id, tool_call_id, metadata, channels, approvers, required_approvals, on_timeout, idempotency_key, args_sha256, callback_url, filed_by, filed_by_person, nonce, created_at, expires_at, updated_at, responded_at, responded_by, responded_via, responded_by_person, decision_option, reason, allowed';
    await raw.run(
      `INSERT INTO confirmation_requests (id, ${columns}) SELECT $1, ${columns} FROM confirmation_requests WHERE id = $2`,
      [forged, id],
    );
    expect((await read(forged)).verdict_token).toBeNull();
    expect((await verify()).problem).toMatchObject({ kind: 'unchained', request_id: forged });
    await raw.run('DELETE FROM confirmation_requests WHERE id = $1', [forged]);
  });
});
