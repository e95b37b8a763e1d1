/**
 * The Teams test harness: the real Teams channel pointed at a per-test {@link FakeTeams}, with taps built from the
 * Action.Execute buttons the fake actually received, posted as `adaptiveCard/action` invokes with a JWT signed the way
 * the Bot Framework signs them. Implements the shared {@link ChannelHarness} and adds what the Teams tests need.
 */
import { randomBytes } from 'node:crypto';
import { pino } from 'pino';
import { createTeamsChannel, type TeamsChannel, type TeamsChannelOptions } from '../../../channels/teams/index.js';
import type { ConfirmationRequest } from '../../../src/requests/types.js';
import type { ChannelHarness } from '../../contracts/channel.contract.js';
import type { TestServer } from '../../helpers/server.js';
import { FakeTeams, cardOf, visibleText, type FakeActivity, type PostResult, type SignOptions } from './fake-teams.js';

/** The conversation cards go to unless a request names another. */
export const APPROVALS_CONVERSATION = '19:approvals0a1b2c@thread.tacv2';
/** The tenant the harness configures. */
export const TENANT_ID = '72f988bf-86f1-41af-91ab-2d7cd011db47';

type Json = Record<string, unknown>;

/** The Teams harness: the contract's surface plus the fake and finer-grained taps. */
export interface TeamsHarness extends ChannelHarness {
  channel: TeamsChannel;
  fake: FakeTeams;
  /** The activity that holds the request's card. */
  activityFor(request: ConfirmationRequest): FakeActivity;
  /**
   * Taps the button titled `button` (or at that index) on the request's card as AAD object id `userId`; `activity`
   * replaces top-level fields of the invoke (`channelId`, `conversation`, `channelData`).
   */
  press(
    server: TestServer,
    request: ConfirmationRequest,
    button: string | number,
    userId: string,
    options?: PressOptions,
  ): Promise<PostResult>;
  /** Posts any activity, signed (or bent by `sign`). */
  post(server: TestServer, activity: Json, sign?: SignOptions): Promise<PostResult>;
  /** Posts the `conversationUpdate` Teams sends when the app is added to `conversationId`. */
  install(server: TestServer, conversationId?: string): Promise<PostResult>;
}

/** How {@link TeamsHarness.press} bends a tap. */
export interface PressOptions {
  nonce?: string;
  sign?: SignOptions;
  activity?: Json;
}

/** Builds a harness with a fresh fake and keys. `overrides` reach the channel options. */
export async function makeTeamsHarness(overrides: Partial<TeamsChannelOptions> = {}): Promise<TeamsHarness> {
  const appId = randomBytes(16)
    .toString('hex')
    .replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');
  const fake = await FakeTeams.start({
    appId,
    appPassword: `secret-${randomBytes(8).toString('hex')}`,
    tenantId: TENANT_ID,
  });
  const channel = createTeamsChannel({
    appId,
    appPassword: fake.appPassword,
    tenantId: TENANT_ID,
    openIdMetadataUrl: fake.openIdMetadataUrl,
    loginUrl: fake.loginUrl,
    logger: pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }),
    ...overrides,
  });
  const endpoint = (server: TestServer) => `${server.url}/channels/teams/messages`;
  const post = (server: TestServer, activity: Json, sign?: SignOptions) => fake.post(endpoint(server), activity, sign);

  function activityFor(request: ConfirmationRequest): FakeActivity {
    const found = fake
      .allActivities()
      .find((a) => JSON.stringify(cardOf(a.versions[0]!)?.actions ?? []).includes(`"requestId":"${request.id}"`));
    if (!found) throw new Error(`no teams card for request ${request.id}`);
    return found;
  }

  async function press(
    server: TestServer,
    request: ConfirmationRequest,
    button: string | number,
    userId: string,
    options: PressOptions = {},
  ): Promise<PostResult> {
    const activity = activityFor(request);
    const actions = (cardOf(activity.versions[0]!)?.actions ?? []) as Array<{
      title: string;
      verb: string;
      data: Json;
    }>;
    const action = typeof button === 'number' ? actions[button] : actions.find((a) => a.title === button);
    if (!action) throw new Error(`the card has no button ${button}`);
    const data = options.nonce === undefined ? action.data : { ...action.data, nonce: options.nonce };
    return post(
      server,
      {
        type: 'invoke',
        name: 'adaptiveCard/action',
        from: { id: `29:1${userId}`, aadObjectId: userId, name: `User ${userId}` },
        recipient: { id: `28:${appId}`, name: 'tollgate' },
        conversation: { id: activity.conversationId, conversationType: 'channel', tenantId: TENANT_ID },
        replyToId: activity.id,
        channelData: { tenant: { id: TENANT_ID } },
        value: { action: { type: 'Action.Execute', verb: action.verb, data }, trigger: 'manual' },
        ...options.activity,
      },
      options.sign,
    );
  }

  async function install(server: TestServer, conversationId = APPROVALS_CONVERSATION): Promise<PostResult> {
    return post(server, {
      type: 'conversationUpdate',
      membersAdded: [{ id: `28:${appId}` }],
      recipient: { id: `28:${appId}`, name: 'tollgate' },
      conversation: { id: conversationId, conversationType: 'channel', tenantId: TENANT_ID },
      channelData: { tenant: { id: TENANT_ID }, eventType: 'teamMemberAdded' },
    });
  }

  return {
    channel,
    fake,
    target: APPROVALS_CONVERSATION,
    activityFor,
    press,
    post,
    install,
    async attach(server) {
      const res = await install(server);
      if (res.status !== 200) throw new Error(`conversationUpdate answered ${res.status}`);
    },
    async card(messageRef) {
      const activity = fake.activity(messageRef.split('|')[0]!);
      const card = activity && cardOf(activity.versions.at(-1)!);
      return card ? { text: visibleText(card), actionable: ((card.actions as unknown[]) ?? []).length > 0 } : null;
    },
    async tap(server, request, decision, userId, options = {}) {
      return (await press(server, request, decision === 'approve' ? 0 : 1, userId, { nonce: options.nonce })).status;
    },
    async forgedTap(server, request, decision, userId) {
      return (await press(server, request, decision === 'approve' ? 0 : 1, userId, { sign: { forged: true } })).status;
    },
    forgedStatus: 401,
    async close() {
      await fake.close();
    },
  };
}
