/**
 * The channel adapter contract suite. Every adapter (slack, feishu, web) runs it with a harness that points the real
 * adapter at its fake platform and taps exactly as the platform would:
 *
 * ```ts
 * runChannelContract('slack', async () => makeSlackHarness());
 * ```
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Channel } from '../../src/channel/channel.js';
import { ManualClock } from '../../src/utils/clock.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { eventually } from '../helpers/eventually.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** What a card looks like on the fake platform, reduced to what the contract checks. */
export interface SeenCard {
  /** All visible text of the card, concatenated. */
  text: string;
  /** True when the card still shows decision buttons. */
  actionable: boolean;
}

/** The adapter under test and its fake platform. */
export interface ChannelHarness {
  channel: Channel;
  /** The `target` requests use (a chat id). */
  target: string;
  /** Called once the gateway listens, before any test step (e.g. to log a web user in). */
  attach?(server: TestServer): Promise<void>;
  /** The latest version of the card the platform shows for this message reference (null when none). */
  card(messageRef: string): Promise<SeenCard | null>;
  /** Taps a button exactly as the platform would (signed); `nonce` overrides the one on the card. Returns the HTTP status. */
  tap(
    server: TestServer,
    request: ConfirmationRequest,
    decision: 'approve' | 'deny',
    userId: string,
    options?: { nonce?: string; reason?: string },
  ): Promise<number>;
  /** The same tap with a forged signature (or missing credentials). Returns the HTTP status. */
  forgedTap(
    server: TestServer,
    request: ConfirmationRequest,
    decision: 'approve' | 'deny',
    userId: string,
  ): Promise<number>;
  /** The status a forged tap must get (401 for chat platforms; 403 for a web form without its CSRF token). */
  forgedStatus?: number;
  close(): Promise<void>;
}

/** Runs the channel contract against `makeHarness`. */
export function runChannelContract(name: string, makeHarness: () => Promise<ChannelHarness>): void {
  describe(`channel contract: ${name}`, () => {
    let harness: ChannelHarness;
    let server: TestServer;

    beforeEach(async () => {
      harness = await makeHarness();
      server = await startTestServer({ channels: [harness.channel] });
      await harness.attach?.(server);
    });

    afterEach(async () => {
      await server.close();
      await harness.close();
    });

    async function file(
      body: Record<string, unknown> = {},
    ): Promise<{ request: ConfirmationRequest; messageRef: string }> {
      const { request } = await server.gateway.request({
        toolName: 'deploy_service',
        toolArgs: { service: 'billing', version: '1.4.2' },
        prompt: 'Deploy billing 1.4.2 to production?',
        channels: [{ type: harness.channel.name, target: harness.target || undefined }],
        ...body,
      });
      const message = await eventually(async () => {
        const [m] = await server.store.messages(request.id);
        expect(m?.status).toBe('sent');
        return m!;
      });
      return { request, messageRef: message.messageRef ?? '' };
    }

    it('names itself and sends a card that shows the request with its buttons', async () => {
      expect(harness.channel.name).toBe(name);
      const { request, messageRef } = await file();
      const card = await harness.card(messageRef);
      expect(card?.text).toContain('deploy_service');
      expect(card?.text).toContain('billing');
      expect(card?.actionable).toBe(true);
      const events = await server.store.events(request.id);
      expect(events.map((e) => e.type)).toContain('delivered');
    });

    it('turns a tap into a decision and updates the card', async () => {
      const { request, messageRef } = await file();
      expect(await harness.tap(server, request, 'approve', 'approver1')).toBeLessThan(300);
      const decided = await eventually(async () => {
        const r = await server.gateway.get(request.id);
        expect(r?.status).toBe('approved');
        return r!;
      });
      expect(decided.respondedBy).toBe(`${name}:approver1`);
      expect(decided.respondedVia).toBe(name);
      await eventually(async () => expect((await harness.card(messageRef))?.actionable).toBe(false));
    });

    it('rejects a forged tap and changes nothing', async () => {
      const { request } = await file();
      expect(await harness.forgedTap(server, request, 'approve', 'approver1')).toBe(harness.forgedStatus ?? 401);
      expect((await server.gateway.get(request.id))?.status).toBe('pending');
    });

    it('rejects a tap whose nonce does not match, recording decision_rejected', async () => {
      const { request } = await file();
      await harness.tap(server, request, 'approve', 'approver1', { nonce: 'not-the-nonce' });
      await eventually(async () =>
        expect((await server.store.events(request.id)).map((e) => e.type)).toContain('decision_rejected'),
      );
      expect((await server.gateway.get(request.id))?.status).toBe('pending');
    });

    it('rejects a tap from someone not on the allowlist', async () => {
      const { request } = await file({ approvers: [`${name}:boss`] });
      await harness.tap(server, request, 'approve', 'intern');
      await eventually(async () => {
        const rejected = (await server.store.events(request.id)).find((e) => e.type === 'decision_rejected');
        expect(rejected?.actor).toBe(`${name}:intern`);
      });
      expect((await server.gateway.get(request.id))?.status).toBe('pending');
      expect(await harness.tap(server, request, 'approve', 'boss')).toBeLessThan(300);
      await eventually(async () => expect((await server.gateway.get(request.id))?.status).toBe('approved'));
    });

    it('updates the card after a decision made elsewhere, showing the outcome', async () => {
      const { request, messageRef } = await file();
      const outcome = await server.gateway.decide({
        requestId: request.id,
        decision: 'deny',
        reason: 'not on a Friday',
        actor: { channel: 'api', userId: 'ops' },
      });
      expect(outcome.ok).toBe(true);
      await eventually(async () => {
        const card = await harness.card(messageRef);
        expect(card?.actionable).toBe(false);
        expect(card?.text).toMatch(/denied/i);
        expect(card?.text).toContain('not on a Friday');
      });
    });

    it('updates the card when the request expires', async () => {
      // On a ManualClock, with a gateway and a platform of its own, so no real time passes: jobs (card deliveries and
      // updates, the expiry) are clock timers that run when the test moves the clock.
      const clock = new ManualClock(Date.now());
      const own = await makeHarness();
      const clocked = await startTestServer({ channels: [own.channel], clock });
      try {
        await own.attach?.(clocked);
        const { request } = await clocked.gateway.request({
          toolName: 'deploy_service',
          toolArgs: { service: 'billing' },
          timeoutS: 60,
          channels: [{ type: own.channel.name, target: own.target || undefined }],
        });
        const message = await eventually(async () => {
          await clock.advance(0);
          const [m] = await clocked.store.messages(request.id);
          expect(m?.status).toBe('sent');
          return m!;
        });
        expect((await own.card(message.messageRef ?? ''))?.actionable).toBe(true);
        await clock.advance(60_000);
        await eventually(async () => expect((await clocked.gateway.get(request.id))?.status).toBe('expired'));
        await eventually(async () => {
          await clock.advance(0);
          const card = await own.card(message.messageRef ?? '');
          expect(card?.actionable).toBe(false);
          expect(card?.text).toMatch(/expired/i);
        });
      } finally {
        await clocked.close();
        await own.close();
      }
    });

    it('does not change a decided request on a late tap', async () => {
      const { request } = await file();
      await server.gateway.cancel(request.id, 'api:runtime');
      await harness.tap(server, request, 'approve', 'approver1');
      await eventually(async () =>
        expect((await server.store.events(request.id)).map((e) => e.type)).toContain('decision_rejected'),
      );
      expect((await server.gateway.get(request.id))?.status).toBe('cancelled');
    });
  });
}
