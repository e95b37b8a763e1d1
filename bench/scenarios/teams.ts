/**
 * @module bench/scenarios/teams
 * The Teams figure, through the real Teams channel in the gateway pointed at the team's fake Bot Framework
 * (`test/fakes/teams`: OpenID metadata, JWKS, token endpoint and connector), which runs in the orchestrator's process:
 * `teams.tap_to_resume_ms`, from posting an `adaptiveCard/action` invoke on the card's Approve button to
 * `POST /channels/teams/messages` (with a Bot Framework JWT signed by the fake's key, as the fake's own `post` signs
 * it) to the waiting long-poll's response.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { cardOf, FakeTeams, type FakeActivity } from '../../test/fakes/teams/fake-teams.js';
import { withGatewayBeside, type BenchContext, type freshGateway, type Scenario } from '../context.js';
import type { ClientTask } from '../protocol.js';
import { BENCH_TOKEN } from '../processes.js';
import { waitIdle } from '../proc.js';
import type { Percentiles } from '../stats.js';
import { cardIndex, preparedTap, type PreparedTap } from './channel-taps.js';

const TARGET = '19:approvalsbench@thread.tacv2';
const TENANT_ID = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const TAPPER = '0be0c000-0000-4000-8000-000000000001';
const MESSAGES_PATH = '/channels/teams/messages';

/** The client tasks of this scenario. */
export const clientTasks: Record<string, ClientTask> = { tap: preparedTap };

interface CardAction {
  verb: string;
  data: { requestId?: string };
}

const actionsOf = (activity: FakeActivity) => (cardOf(activity.versions[0]!)?.actions ?? []) as CardAction[];

/** The invoke Teams posts when the Approve button (the card's first action) of `activity` is tapped, with its JWT. */
async function approveTap(fake: FakeTeams, activity: FakeActivity): Promise<PreparedTap> {
  const approve = actionsOf(activity)[0]!;
  const invoke = {
    id: randomUUID(),
    channelId: 'msteams',
    serviceUrl: fake.serviceUrl,
    timestamp: new Date().toISOString(),
    type: 'invoke',
    name: 'adaptiveCard/action',
    from: { id: `29:1${TAPPER}`, aadObjectId: TAPPER, name: 'Bench Approver' },
    recipient: { id: `28:${fake.appId}`, name: 'tollgate' },
    conversation: { id: activity.conversationId, conversationType: 'channel', tenantId: TENANT_ID },
    replyToId: activity.id,
    channelData: { tenant: { id: TENANT_ID } },
    value: { action: { type: 'Action.Execute', verb: approve.verb, data: approve.data }, trigger: 'manual' },
  };
  return {
    path: MESSAGES_PATH,
    body: JSON.stringify(invoke),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${await fake.token(fake.serviceUrl)}` },
  };
}

async function withTeamsGateway<T>(
  ctx: BenchContext,
  name: string,
  fn: (gateway: Awaited<ReturnType<typeof freshGateway>>, fake: FakeTeams) => Promise<T>,
): Promise<T> {
  const appId = randomUUID();
  const fake = await FakeTeams.start({
    appId,
    appPassword: `secret-${randomBytes(8).toString('hex')}`,
    tenantId: TENANT_ID,
  });
  return withGatewayBeside(
    ctx,
    name,
    fake,
    {
      TEAMS_APP_ID: appId,
      TEAMS_APP_PASSWORD: fake.appPassword,
      TEAMS_TENANT_ID: TENANT_ID,
      TEAMS_OPENID_METADATA_URL: fake.openIdMetadataUrl,
      TEAMS_LOGIN_URL: fake.loginUrl,
    },
    async (gateway) => {
      // The bot is added to the conversation first: Teams' conversationUpdate gives the gateway its reference.
      const installed = await fake.post(`${gateway.url}${MESSAGES_PATH}`, {
        type: 'conversationUpdate',
        membersAdded: [{ id: `28:${appId}` }],
        recipient: { id: `28:${appId}`, name: 'tollgate' },
        conversation: { id: TARGET, conversationType: 'channel', tenantId: TENANT_ID },
        channelData: { tenant: { id: TENANT_ID }, eventType: 'teamMemberAdded' },
      });
      if (installed.status !== 200) throw new Error(`conversationUpdate answered ${installed.status}`);
      return await fn(gateway, fake);
    },
  );
}

/** `teams.tap_to_resume_ms`. */
export const teamsScenario: Scenario = {
  name: 'teams',
  modes: ['sqlite', 'bullmq', 'postgres'],
  async run(ctx) {
    const resume = await withTeamsGateway(ctx, 'teams-tap', async (gateway, fake) => {
      const findCard = cardIndex(
        'Teams',
        () => fake.allActivities(),
        (activity) => actionsOf(activity)[0]?.data?.requestId ?? null,
      );
      return ctx.client.run<{ resume: Percentiles; decision_rtt: Percentiles; not_parked: number }>(
        'teams',
        'tap',
        {
          url: gateway.url,
          token: BENCH_TOKEN,
          count: ctx.quick ? 200 : 1000,
          batch: 100,
          channel: 'teams',
          target: TARGET,
        },
        { idle: () => waitIdle(gateway.pid), card: async (id) => approveTap(fake, await findCard(String(id))) },
      );
    });
    if (resume.not_parked) ctx.log(`teams: ${resume.not_parked} long-polls answered before their tap was sent`);
    return {
      teams: {
        tap_to_resume_ms: {
          p50: resume.resume.p50,
          p99: resume.resume.p99,
          max: resume.resume.max,
          n: resume.resume.n,
          ack_rtt_p50: resume.decision_rtt.p50,
          ack_rtt_p99: resume.decision_rtt.p99,
        },
      },
    };
  },
};
