/**
 * @module bench/scenarios/slack
 * The Slack figures, through the real Slack channel (Bolt + @slack/web-api) in the gateway pointed at the team's fake
 * Slack (`test/fakes/slack`), which runs in the orchestrator's process: `decision_to_resume_ms.slack` (a signed
 * `block_actions` tap on the card's Approve button, built and signed with the fake's own helpers, to the waiting
 * long-poll's response) and `create_rps_slack` (creates that each post a card to the fake).
 */
import { randomBytes } from 'node:crypto';
import { buttonsOf } from '../../test/fakes/slack/block-rules.js';
import { blockActionsPayload, formBody, slackSignature } from '../../test/fakes/slack/callbacks.js';
import { FakeSlack, type FakeMessage } from '../../test/fakes/slack/fake-slack.js';
import { withGatewayBeside, type BenchContext, type freshGateway, type Scenario } from '../context.js';
import { BenchHttp } from '../http-client.js';
import type { ClientTask } from '../protocol.js';
import { BENCH_TOKEN } from '../processes.js';
import { cpuMarks, waitIdle } from '../proc.js';
import { round, sleep, type Percentiles } from '../stats.js';
import { CREATE_BODY, createLoop } from './create-rps.js';
import { measureResume, type ApiRequest, type ResumeParams } from './decision-resume.js';

const TARGET = 'C0BENCH';
const APPROVE = 'tollgate_option_0';

/** Where the Approve button of a request's card is, as the load client needs it to tap. */
interface CardButton {
  channel: string;
  ts: string;
  value: string;
  blocks: unknown[];
  responseUrl: string;
}

const tap: ClientTask = async (raw, ask) => {
  const p = raw as unknown as ResumeParams & { secret: string };
  const slack = new BenchHttp(p.url, null, 1);
  try {
    return await measureResume(
      p,
      ask,
      async (http, i) => {
        const request = await http.json<ApiRequest>(
          'POST',
          '/v1/requests',
          {
            tool_name: 'bench.deploy',
            tool_args: { service: 'api', build: i },
            timeout_s: 600,
            channels: [{ type: 'slack', target: TARGET }],
          },
          201,
        );
        const card = (await ask('card', request.id)) as CardButton;
        return Object.assign(request, { card });
      },
      (request) => {
        const { card } = request as ApiRequest & { card: CardButton };
        const payload = blockActionsPayload({
          userId: 'U0BENCH',
          channel: card.channel,
          ts: card.ts,
          actionId: APPROVE,
          value: card.value,
          responseUrl: card.responseUrl,
          blocks: card.blocks,
        });
        const body = formBody(payload);
        const timestamp = Math.floor(Date.now() / 1000);
        return slack.send('POST', '/channels/slack/events', body, {
          'content-type': 'application/x-www-form-urlencoded',
          'x-slack-request-timestamp': String(timestamp),
          'x-slack-signature': slackSignature(p.secret, timestamp, body),
        });
      },
    );
  } finally {
    slack.close();
  }
};

/** The client tasks of this scenario. */
export const clientTasks: Record<string, ClientTask> = { tap };

/** Finds the card the gateway posted for a request, waiting for its delivery. */
function cardFinder(fake: FakeSlack): (requestId: string) => Promise<CardButton> {
  const byRequest = new Map<string, FakeMessage>();
  let seen = 0;
  return async (requestId) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const all = fake.allMessages();
      for (; seen < all.length; seen++) {
        const message = all[seen]!;
        const button = buttonsOf(message.versions[0]!.blocks).find((b) => b.actionId === APPROVE);
        if (button) byRequest.set(button.value.split(':')[0]!, message);
      }
      const message = byRequest.get(requestId);
      if (message) {
        const value = buttonsOf(message.versions[0]!.blocks).find((b) => b.actionId === APPROVE)!.value;
        return {
          channel: message.channel,
          ts: message.ts,
          value,
          blocks: message.versions[0]!.blocks,
          responseUrl: fake.responseUrl(`${message.ts}-bench`),
        };
      }
      if (Date.now() > deadline) throw new Error(`no Slack card for ${requestId} within 30 s`);
      await sleep(5);
    }
  };
}

async function withSlackGateway<T>(
  ctx: BenchContext,
  name: string,
  fn: (gateway: Awaited<ReturnType<typeof freshGateway>>, fake: FakeSlack, secret: string) => Promise<T>,
): Promise<T> {
  const token = `xoxb-${randomBytes(6).toString('hex')}`;
  const secret = randomBytes(16).toString('hex');
  const fake = await FakeSlack.start({ token });
  return withGatewayBeside(
    ctx,
    name,
    fake,
    {
      SLACK_BOT_TOKEN: token,
      SLACK_SIGNING_SECRET: secret,
      SLACK_API_URL: fake.apiUrl,
      SLACK_BOT_ID: 'B0BOT',
      SLACK_BOT_USER_ID: 'U0BOT',
    },
    async (gateway) => {
      return await fn(gateway, fake, secret);
    },
  );
}

/** `decision_to_resume_ms.slack` and `create_rps_slack`. */
export const slackScenario: Scenario = {
  name: 'slack',
  modes: ['sqlite', 'bullmq', 'postgres'],
  async run(ctx) {
    const resume = await withSlackGateway(ctx, 'slack-tap', async (gateway, fake, secret) => {
      const findCard = cardFinder(fake);
      const result = await ctx.client.run<{ resume: Percentiles; decision_rtt: Percentiles; not_parked: number }>(
        'slack',
        'tap',
        { url: gateway.url, token: BENCH_TOKEN, count: ctx.quick ? 200 : 1000, batch: 100, secret },
        { idle: () => waitIdle(gateway.pid), card: (id) => findCard(String(id)) },
      );
      return result;
    });
    const create = await withSlackGateway(ctx, 'slack-create', async (gateway, fake) => {
      const cpu = cpuMarks(gateway.pid);
      const posted: Record<string, number> = {};
      const load = await ctx.client.run<{ rps: number; completed: number; by_status: Record<string, number> }>(
        'http-load',
        'postLoop',
        createLoop(ctx, gateway.url, { ...CREATE_BODY, channels: [{ type: 'slack', target: TARGET }] }),
        {
          mark: (payload) => {
            posted[String(payload)] = fake.callsTo('chat.postMessage').length;
            return cpu.mark(payload);
          },
        },
      );
      const cardsPerS = ((posted.end ?? 0) - (posted.start ?? 0)) / ((ctx.quick ? 3000 : 8000) / 1000);
      return { rps: load.rps, cpu: cpu.msPer(load.completed), cardsPerS };
    });
    return {
      decision_to_resume_ms: {
        slack: {
          p50: resume.resume.p50,
          p99: resume.resume.p99,
          max: resume.resume.max,
          n: resume.resume.n,
          ack_rtt_p50: resume.decision_rtt.p50,
          ack_rtt_p99: resume.decision_rtt.p99,
        },
      },
      create_rps_slack: create.rps,
      create_slack_cpu_ms_per_request: round(create.cpu, 3),
      create_slack_cards_posted_per_s: round(create.cardsPerS, 0),
    };
  },
};
