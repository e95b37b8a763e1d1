/**
 * Forged away periods and API tokens (issue 57): rows that give rights without being events. The attacker — who can
 * write the database but holds no key — inserted a `people_away` row making mallory carol's delegate (on main mallory
 * then approved carol's request, and the decision was witnessed and signed), edited a real one's delegate, inserted
 * an `api_tokens` row holding the SHA-256 of a secret of theirs, and widened, un-revoked or extended a real token. On
 * main each worked; here each row is not acted on and `audit verify` names it.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InProcessScheduler } from '../../../src/scheduler/in-process.js';
import { ManualClock } from '../../../src/utils/clock.js';
import { attackedGateway } from './attacker.js';

const DAY = 86_400_000;
const POLICY = `
people:
  - { id: alice, accounts: { web: alice } }
  - { id: carol, accounts: { web: carol } }
  - { id: mallory, accounts: { web: mallory } }
policies:
  - name: deploys
    match: { tool: deploy }
    approvers: ["person:carol"]
`;

describe.each(['sqlite', 'postgres'] as const)('forged rights (%s)', (dialect) => {
  const clock = new ManualClock(Date.now());
  const g = attackedGateway(dialect, { clock, scheduler: new InProcessScheduler({ clock }), policy: POLICY });
  const iso = (ms: number) => new Date(ms).toISOString();

  const file = async () => {
    const res = await g.t.api('/v1/requests', { body: { tool_name: 'deploy', tool_args: { env: 'prod' } } });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };
  const approveAs = (id: string, approver: string) =>
    g.t.api(`/v1/requests/${id}/decision`, { body: { decision: 'approve', approver } });
  const named = async (...what: string[]) => {
    const { ok, problem } = await g.verify();
    expect(ok).toBe(false);
    expect(problem).toMatchObject({ kind: 'unwitnessed' });
    for (const text of what) expect(problem?.message).toContain(text);
  };
  const awayFor = (delegate: string) => ({
    from: iso(clock.now() - DAY),
    until: iso(clock.now() + 2 * DAY),
    delegate: `person:${delegate}`,
  });

  describe('away periods', () => {
    it('a real away change gives its delegate the absentee’s requests, and verifies clean', async () => {
      expect((await g.t.api('/v1/people/carol/away', { method: 'PUT', body: awayFor('mallory') })).status).toBe(200);
      expect((await approveAs(await file(), 'web:mallory')).status).toBe(200);
      expect((await g.verify()).ok).toBe(true);
    });

    it('a people_away row inserted by hand makes nobody a delegate', async () => {
      await g.raw(
        `INSERT INTO people_away (person, away_from, away_until, delegate, note, set_by, at) VALUES ('carol', $1, $2, 'mallory', NULL, 'person:carol', $3)`,
        [iso(clock.now() - DAY), iso(clock.now() + 2 * DAY), iso(clock.now())],
      );
      const id = await file();
      expect((await approveAs(id, 'web:mallory')).status).toBe(403);
      expect((await g.read(id)).status).toBe('pending');
      await named('people_away row', 'person carol', 'not signed');
    });

    it('a real away row whose delegate was changed is not in force', async () => {
      expect((await g.t.api('/v1/people/carol/away', { method: 'PUT', body: awayFor('alice') })).status).toBe(200);
      await g.raw(`UPDATE people_away SET delegate = 'mallory' WHERE person = 'carol'`);
      expect((await approveAs(await file(), 'web:mallory')).status).toBe(403);
      await named('people_away row', 'person carol', 'does not verify');
    });

    it('a row no tollgate could write (a time that is no time) is refused, not a failure', async () => {
      expect((await g.t.api('/v1/people/carol/away', { method: 'PUT', body: awayFor('alice') })).status).toBe(200);
      await g.raw(
        `INSERT INTO people_away (person, away_from, away_until, delegate, note, set_by, at) VALUES ('carol', $1, $2, 'mallory', NULL, 'person:carol', $3)`,
        [iso(clock.now() - DAY), iso(clock.now() + 2 * DAY), dialect === 'sqlite' ? 'garbage' : 'infinity'],
      );
      const id = await file();
      expect((await approveAs(id, 'web:mallory')).status).toBe(403);
      expect((await approveAs(id, 'web:alice')).status).toBe(200);
      await named('people_away row', 'person carol');
    });

    it('a forged newer row does not undo the witnessed one before it', async () => {
      expect((await g.t.api('/v1/people/carol/away', { method: 'PUT', body: awayFor('alice') })).status).toBe(200);
      await g.raw(
        `INSERT INTO people_away (person, away_from, away_until, delegate, note, set_by, at) VALUES ('carol', $1, $2, 'mallory', NULL, 'person:carol', $3)`,
        [iso(clock.now() - DAY), iso(clock.now() + 2 * DAY), iso(clock.now())],
      );
      const id = await file();
      expect((await approveAs(id, 'web:mallory')).status).toBe(403);
      expect((await approveAs(id, 'web:alice')).status, 'the witnessed delegation holds').toBe(200);
    });
  });

  describe('API tokens', () => {
    const secret = 'tg_attacker-knows-this-secret-0123456789abcdef';
    const bearer = (s: string, path = '/v1/requests') =>
      fetch(`${g.t.url}${path}`, { headers: { authorization: `Bearer ${s}` } });
    const create = async (body: Record<string, unknown>) => {
      const res = await g.t.api('/v1/tokens', { body });
      expect(res.status).toBe(201);
      return (await res.json()) as { id: string; secret: string };
    };

    it('real tokens authenticate, are revoked, and verify clean', async () => {
      const reader = await create({ name: 'reader', scopes: ['audit:read'], expires_in_s: 3600 });
      expect((await bearer(reader.secret)).status).toBe(200);
      expect((await g.verify()).ok).toBe(true);
      expect((await g.t.api(`/v1/tokens/${reader.id}`, { method: 'DELETE' })).status).toBe(204);
      expect((await bearer(reader.secret)).status).toBe(401);
      expect((await g.verify()).ok).toBe(true);
    });

    it('an api_tokens row inserted with a known secret’s hash authenticates nobody', async () => {
      const hash = createHash('sha256').update(secret).digest('hex');
      await g.raw(
        `INSERT INTO api_tokens (id, name, secret_sha256, scopes, as_identity, person, created_at) VALUES ('019a0000-0000-7000-8000-0000000000aa', 'backdoor', $1, $2, 'web:carol', 'carol', $3)`,
        [hash, JSON.stringify(['admin']), iso(clock.now())],
      );
      expect((await bearer(secret)).status).toBe(401);
      await named('api_tokens row 019a0000-0000-7000-8000-0000000000aa', 'backdoor', 'not signed');
    });

    it('a token row whose scopes are not JSON is named by verify, which does not fail on it', async () => {
      const reader = await create({ name: 'reader', scopes: ['audit:read'] });
      if (dialect === 'sqlite') await g.raw(`UPDATE api_tokens SET scopes = 'admin' WHERE id = $1`, [reader.id]);
      else await g.raw(`UPDATE api_tokens SET scopes = '"admin"' WHERE id = $1`, [reader.id]);
      await named(`api_tokens row ${reader.id}`, 'does not verify');
    });

    it('a real token with its scopes widened is refused', async () => {
      const reader = await create({ name: 'reader', scopes: ['audit:read'] });
      await g.raw(`UPDATE api_tokens SET scopes = $1 WHERE id = $2`, [JSON.stringify(['admin']), reader.id]);
      expect((await bearer(reader.secret, '/v1/tokens')).status).toBe(401);
      await named(`api_tokens row ${reader.id}`, 'does not verify');
    });

    it('a real token with its revocation cleared is refused', async () => {
      const reader = await create({ name: 'reader', scopes: ['audit:read'] });
      expect((await g.t.api(`/v1/tokens/${reader.id}`, { method: 'DELETE' })).status).toBe(204);
      await g.raw(`UPDATE api_tokens SET revoked_at = NULL WHERE id = $1`, [reader.id]);
      expect((await bearer(reader.secret)).status).toBe(401);
      await named(`api_tokens row ${reader.id}`, 'does not verify');
    });

    it('a real token with its expiry pushed out is refused', async () => {
      const reader = await create({ name: 'reader', scopes: ['audit:read'], expires_in_s: 60 });
      expect((await bearer(reader.secret)).status).toBe(200);
      await g.raw(`UPDATE api_tokens SET expires_at = $1 WHERE id = $2`, [iso(clock.now() + 365 * DAY), reader.id]);
      await clock.advance(120_000);
      expect((await bearer(reader.secret)).status).toBe(401);
      await named(`api_tokens row ${reader.id}`, 'does not verify');
    });

    it('a real token moved to another person or identity is refused', async () => {
      const decider = await create({ name: 'decider', scopes: ['request:decide'], as: 'web:alice' });
      await g.raw(`UPDATE api_tokens SET as_identity = 'web:carol', person = 'carol' WHERE id = $1`, [decider.id]);
      expect((await bearer(decider.secret)).status).toBe(401);
      await named(`api_tokens row ${decider.id}`, 'does not verify');
    });
  });
});
