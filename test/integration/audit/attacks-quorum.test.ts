/**
 * A quorum filled by a forged vote (issue 57): the attacker, who can write the database but holds no key, inserts an
 * `approved` event for the second approver of a two-person quorum; then the first approver's real vote came back as
 * the one completing the quorum, and the gateway minted a token naming both — for a call one person approved. Here
 * the forged vote is not counted (whatever receipt it points at), the real vote is recorded as one of two, the vote's
 * event names the uncounted one, and the token is minted only when the second person really approves.
 */
import { describe, expect, it } from 'vitest';
import { attackedGateway, claimsOf } from './attacker.js';

describe.each(['sqlite', 'postgres'] as const)('a forged vote towards a quorum (%s)', (dialect) => {
  const g = attackedGateway(dialect);

  const pendingPair = async (): Promise<string> => {
    const res = await g.t.api('/v1/requests', {
      body: {
        tool_name: 'wire',
        tool_args: { amount: 5000, to: 'acme' },
        approvers: ['web:carol', 'web:dave'],
        required_approvals: 2,
      },
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };
  const decide = async (id: string, approver: string) => {
    const res = await g.t.api(`/v1/requests/${id}/decision`, { body: { approver, decision: 'approve' } });
    return (await res.json()) as { status: string; verdict_token?: string | null };
  };
  const voteEvents = async (id: string) =>
    (
      (await (await g.t.api(`/v1/requests/${id}/events`, { headers: { accept: 'application/json' } })).json()) as {
        items: { type: string; actor: string; detail: Record<string, unknown> }[];
      }
    ).items.filter((e) => e.type === 'approved');

  for (const pointed of ['no receipt', 'a real receipt of the request'] as const) {
    it(`an inserted approval with ${pointed} does not count: the real vote is one of two`, async () => {
      const id = await pendingPair();
      let receiptId: string | null = null;
      if (pointed !== 'no receipt') {
        const [created] = (await g.raw(
          `SELECT receipt_id FROM confirmation_events WHERE request_id = $1 AND type = 'created'`,
          [id],
        )) as { receipt_id: string }[];
        receiptId = created!.receipt_id;
      }
      await g.appendEvent(id, 'approved', { person: 'web:dave', approvals: 1, required: 2 }, receiptId, 'web:dave');

      const carol = await decide(id, 'web:carol');
      expect(carol.status).toBe('pending');
      expect((await g.read(id)).verdict_token).toBeNull();
      const [, real] = await voteEvents(id);
      expect(real).toMatchObject({ actor: 'web:carol', detail: { approvals: 1, required: 2 } });
      expect(real!.detail.unwitnessed).toEqual([
        expect.objectContaining({ actor: 'web:dave', person: 'web:dave', why: expect.stringContaining('receipt') }),
      ]);
      expect((await g.verify()).problem).toMatchObject({ kind: 'unwitnessed', request_id: id });

      // Dave's own vote is not taken for a duplicate of the forged one: it completes the quorum, and the token names both.
      const dave = await decide(id, 'web:dave');
      expect(dave.status).toBe('approved');
      expect(claimsOf(dave.verdict_token!)).toMatchObject({ allowed: true, people: ['web:carol', 'web:dave'] });
    });
  }

  it('witnessed approvals still make the quorum, and the token names them in order', async () => {
    const id = await pendingPair();
    expect((await decide(id, 'web:dave')).status).toBe('pending');
    const carol = await decide(id, 'web:carol');
    expect(carol.status).toBe('approved');
    expect(claimsOf(carol.verdict_token!)).toMatchObject({
      people: ['web:dave', 'web:carol'],
      accounts: ['web:dave', 'web:carol'],
    });
    expect((await voteEvents(id)).every((e) => e.detail.unwitnessed === undefined)).toBe(true);
    expect((await g.verify()).ok).toBe(true);
  });
});
