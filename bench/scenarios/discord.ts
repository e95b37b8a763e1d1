/**
 * @module bench/scenarios/discord
 * The Discord figure, through the real Discord channel (`@discordjs/rest`) in the gateway pointed at the team's fake
 * Discord (`test/fakes/discord`), which runs in the orchestrator's process: `discord.tap_to_resume_ms`, from posting
 * the interaction of a tap on the card's Approve button to `POST /channels/discord/interactions` (Ed25519-signed with
 * the fake application's key, as the fake's own signer signs it) to the waiting long-poll's response.
 */
import { randomBytes } from 'node:crypto';
import { FakeDiscord, type FakeMessage } from '../../test/fakes/discord/fake-discord.js';
import { buttonsOf } from '../../test/fakes/discord/message-rules.js';
import { withGatewayBeside, type BenchContext, type freshGateway, type Scenario } from '../context.js';
import type { ClientTask } from '../protocol.js';
import { BENCH_TOKEN } from '../processes.js';
import { waitIdle } from '../proc.js';
import type { Percentiles } from '../stats.js';
import { cardIndex, preparedTap, type PreparedTap } from './channel-taps.js';

const APPLICATION_ID = '1100000000000000001';
const TARGET = '1100000000000000100';
const GUILD_ID = '1100000000000000002';
const TAPPER = '1100000000000000500';
/** The Approve button's `custom_id` (option 0): `tg:o0:<request id>:<nonce>`. */
const APPROVE = 'tg:o0:';

/** The client tasks of this scenario. */
export const clientTasks: Record<string, ClientTask> = { tap: preparedTap };

/** The interactions Discord posts when the Approve button of a card is tapped, signed; each with an id of its own. */
function approveTaps(fake: FakeDiscord): (message: FakeMessage) => PreparedTap {
  let interactions = 0;
  return (message) => {
    const approve = buttonsOf(message.versions[0]!).find((b) => b.customId.startsWith(APPROVE))!;
    const user = { id: TAPPER, username: 'benchapprover', global_name: 'Bench Approver', discriminator: '0' };
    const body = JSON.stringify({
      id: String(1_300_000_000_000_000_000n + BigInt(++interactions)),
      application_id: APPLICATION_ID,
      type: 3,
      token: randomBytes(24).toString('base64url'),
      version: 1,
      channel_id: message.channelId,
      guild_id: GUILD_ID,
      member: { user, roles: [], permissions: '0' },
      message: { id: message.id, channel_id: message.channelId, ...message.versions.at(-1) },
      data: { custom_id: approve.customId, component_type: 2 },
    });
    return { path: '/channels/discord/interactions', body, headers: fake.signer.headers(body) };
  };
}

async function withDiscordGateway<T>(
  ctx: BenchContext,
  name: string,
  fn: (gateway: Awaited<ReturnType<typeof freshGateway>>, fake: FakeDiscord) => Promise<T>,
): Promise<T> {
  const token = `bot-${randomBytes(8).toString('hex')}`;
  const fake = await FakeDiscord.start({ token });
  return withGatewayBeside(
    ctx,
    name,
    fake,
    {
      DISCORD_BOT_TOKEN: token,
      DISCORD_PUBLIC_KEY: fake.signer.publicKeyHex,
      DISCORD_APPLICATION_ID: APPLICATION_ID,
      DISCORD_API_URL: fake.apiUrl,
    },
    async (gateway) => {
      return await fn(gateway, fake);
    },
  );
}

/** `discord.tap_to_resume_ms`. */
export const discordScenario: Scenario = {
  name: 'discord',
  modes: ['sqlite', 'bullmq', 'postgres'],
  async run(ctx) {
    const resume = await withDiscordGateway(ctx, 'discord-tap', async (gateway, fake) => {
      const findCard = cardIndex(
        'Discord',
        () => fake.allMessages(),
        (message) =>
          buttonsOf(message.versions[0]!)
            .find((b) => b.customId.startsWith(APPROVE))
            ?.customId.split(':')[2] ?? null,
      );
      const tapOn = approveTaps(fake);
      return ctx.client.run<{ resume: Percentiles; decision_rtt: Percentiles; not_parked: number }>(
        'discord',
        'tap',
        {
          url: gateway.url,
          token: BENCH_TOKEN,
          count: ctx.quick ? 200 : 1000,
          batch: 100,
          channel: 'discord',
          target: TARGET,
        },
        { idle: () => waitIdle(gateway.pid), card: async (id) => tapOn(await findCard(String(id))) },
      );
    });
    if (resume.not_parked) ctx.log(`discord: ${resume.not_parked} long-polls answered before their tap was sent`);
    return {
      discord: {
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
