/**
 * The attacks of issue 57, each reproduced as the attacker ran it on main at 2f6a7e9 — someone who can write the
 * database but does not hold the signing key — against a running gateway on both stores. On main each one ended with
 * a signed verdict token and a clean `audit verify`; here none yields a token and verify names the request, the
 * event and what is wrong.
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { receiptMessage } from '../../../src/audit/leaf.js';
import { attackedGateway, claimsOf } from './attacker.js';

describe.each(['sqlite', 'postgres'] as const)('a database writer without the key (%s)', (dialect) => {
  const g = attackedGateway(dialect);
  const { raw, bool, verify, read, appendEvent } = g;
  /** A pending `wire {"amount":5,"to":"acme"}` for carol. */
  const pendingWire = async (): Promise<string> =>
    (
      (await (
        await g.t.api('/v1/requests', {
          body: { tool_name: 'wire', tool_args: { amount: 5, to: 'acme' }, approvers: ['web:carol'] },
        })
      ).json()) as { id: string }
    ).id;
  /** Settles `id` as approved by carol in the row, as the attacker did. */
  const approveInRow = (id: string, at: string) =>
    raw(
      `UPDATE confirmation_requests SET status = 'approved', allowed = $1, responded_by = 'web:carol', responded_by_person = 'carol', responded_via = 'web', responded_at = $2, updated_at = $3 WHERE id = $4`,
      [bool(true), at, at, id],
    );
  it('1. an appended approved event and an updated row: no token, and verify names the event', async () => {
    const id = await pendingWire();
    const { at } = await appendEvent(id, 'approved', { person: 'carol', option: 'Approve' }, null);
    await approveInRow(id, at);
    const row = await read(id);
    expect(row.status).toBe('approved');
    expect(row.verdict_token).toBeNull();
    const report = await verify();
    expect(report.ok).toBe(false);
    expect(report.problem).toMatchObject({ kind: 'unwitnessed', request_id: id });
    expect(report.problem?.message).toContain('covered by no signed receipt');
  });

  it('1b. the same event pointed at a real receipt of the request: that receipt did not sign it', async () => {
    const id = await pendingWire();
    const [created] = (await raw(
      `SELECT receipt_id FROM confirmation_events WHERE request_id = $1 AND type = 'created'`,
      [id],
    )) as { receipt_id: string }[];
    const receiptId = created!.receipt_id;
    const { at } = await appendEvent(id, 'approved', { person: 'carol' }, receiptId);
    await approveInRow(id, at);
    expect((await read(id)).verdict_token).toBeNull();
    expect((await verify()).problem).toMatchObject({ kind: 'unwitnessed', request_id: id });
  });

  it('1c. an appended escalated event carrying a new approvers digest', async () => {
    const id = await pendingWire();
    await appendEvent(id, 'escalated', { approvers: ['person:mallory'], asked: 'v1.forged' }, null);
    expect((await verify()).problem).toMatchObject({ kind: 'unwitnessed', request_id: id });
  });

  it('2. allowed set on a denied request: the token stays the denial, and verify names the row', async () => {
    const id = await pendingWire();
    const denied = await g.t.api(`/v1/requests/${id}/decision`, { body: { approver: 'web:carol', decision: 'deny' } });
    const { verdict_token: token } = (await denied.json()) as { verdict_token: string };
    await raw(`UPDATE confirmation_requests SET allowed = $1 WHERE id = $2`, [bool(true), id]);
    expect((await read(id)).verdict_token).toBe(token);
    expect(claimsOf(token)).toMatchObject({ allowed: false });
    expect((await verify()).problem).toMatchObject({ request_id: id });
  });

  it('3. an unsigned mark switches nothing off: coverage_started moved, a created event written by hand stays named', async () => {
    const id = await pendingWire();
    const forged = `${id.slice(0, -4)}0a0a`;
    await raw(
      `INSERT INTO confirmation_requests (id, status, tool_name, tool_args, options, metadata, channels, approvers, required_approvals, on_timeout, args_sha256, nonce, created_at, expires_at, updated_at)
       SELECT $1, 'pending', tool_name, tool_args, options, metadata, channels, approvers, required_approvals, on_timeout, args_sha256, nonce, created_at, expires_at, updated_at FROM confirmation_requests WHERE id = $2`,
      [forged, id],
    );
    await raw(
      `INSERT INTO confirmation_events (request_id, type, actor, channel, detail, at) SELECT $1, 'created', NULL, NULL, '{}', created_at FROM confirmation_requests WHERE id = $2`,
      [forged, id],
    );
    expect((await verify()).problem).toMatchObject({ kind: 'unwitnessed', request_id: forged });
    // The fourth stage's switch: checks of asked and decided columns began at this unsigned row. Moving it does nothing now.
    await raw(
      "UPDATE audit_marks SET event_id = (SELECT max(id) FROM confirmation_events), at = $1 WHERE name = 'coverage_started'",
      [new Date(Date.now() + 1000).toISOString()],
    );
    expect((await verify()).problem).toMatchObject({ kind: 'unwitnessed', request_id: forged });
  });

  it('4. a token written into the table, signed with a key of the attacker’s: verify names it', async () => {
    const id = await pendingWire();
    await g.t.api(`/v1/requests/${id}/decision`, { body: { approver: 'web:carol', decision: 'deny' } });
    const { privateKey } = generateKeyPairSync('ed25519');
    const header = Buffer.from(JSON.stringify({ alg: 'EdDSA', kid: 'mallory', typ: 'tollgate-verdict+jwt' })).toString(
      'base64url',
    );
    const payload = Buffer.from(JSON.stringify({ jti: id, allowed: true })).toString('base64url');
    const forged = `${header}.${payload}.${sign(null, Buffer.from(`${header}.${payload}`), privateKey).toString('base64url')}`;
    await raw(`UPDATE verdict_tokens SET token = $1 WHERE request_id = $2`, [forged, id]);
    const report = await verify();
    expect(report.problem).toMatchObject({ kind: 'bad_token', request_id: id });
    expect(report.problem?.message).toContain('mallory');
  });

  it('a receipt signed with a key that is not the gateway’s: named, whatever it covers', async () => {
    const id = await pendingWire();
    const { leaf, at } = await appendEvent(id, 'commented', { text: 'ok' }, 'mallory-receipt');
    const { privateKey } = generateKeyPairSync('ed25519');
    const receipt = { id: 'mallory-receipt', kid: 'mallory-key', at, leaves: [leaf] };
    await raw(`INSERT INTO audit_receipts (id, kid, at, leaves, signature) VALUES ($1, $2, $3, $4, $5)`, [
      receipt.id,
      receipt.kid,
      at,
      leaf,
      sign(null, receiptMessage(receipt), privateKey).toString('base64url'),
    ]);
    const report = await verify();
    expect(report.problem).toMatchObject({ kind: 'unwitnessed' });
    expect(report.problem?.message).toContain('mallory-key');
  });
});
