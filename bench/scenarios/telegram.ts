/**
 * @module bench/scenarios/telegram
 * The Telegram figure, through the real Telegram channel (grammY, webhook mode) in the gateway pointed at the team's
 * fake Bot API (`test/fakes/telegram`), which runs in the orchestrator's process: `telegram.tap_to_resume_ms`, from
 * posting the `callback_query` update of a tap on the card's Approve button (built by the fake's own `tapUpdate`) to
 * `POST /channels/telegram/webhook` with the secret header, to the waiting long-poll's response. The webhook answers
 * once the bot has handled the update, `answerCallbackQuery` to the fake included, as it does for Telegram.
 */
import { randomBytes } from 'node:crypto';
import { FakeTelegram, type FakeMessage } from '../../test/fakes/telegram/fake-telegram.js';
import { buttonsOf } from '../../test/fakes/telegram/html-rules.js';
import { withGatewayBeside, type BenchContext, type freshGateway, type Scenario } from '../context.js';
import type { ClientTask } from '../protocol.js';
import { BENCH_TOKEN } from '../processes.js';
import { waitIdle } from '../proc.js';
import type { Percentiles } from '../stats.js';
import { cardIndex, preparedTap, type PreparedTap } from './channel-taps.js';

const TARGET = '-1001000000001';
const TAPPER = 700_000_001;
/** The Approve button's `callback_data` (option 0): `o0:<request id without dashes>:<nonce>`. */
const APPROVE = 'o0:';

/** The client tasks of this scenario. */
export const clientTasks: Record<string, ClientTask> = { tap: preparedTap };

const approveButton = (message: FakeMessage) =>
  buttonsOf(message.versions[0]!.replyMarkup).find((b) => b.callback_data.startsWith(APPROVE));

/** The request id a card's buttons carry (Telegram's `callback_data` holds a UUID without its dashes). */
function requestOf(message: FakeMessage): string | null {
  const compact = approveButton(message)?.callback_data.split(':')[1];
  return compact?.length === 32 ? compact.replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-') : (compact ?? null);
}

/** The update Telegram posts to the webhook when the Approve button of `message` is tapped. */
function approveTap(fake: FakeTelegram, secret: string, message: FakeMessage): PreparedTap {
  const update = fake.tapUpdate(message, approveButton(message)!.callback_data, {
    id: TAPPER,
    username: 'bench_approver',
    first_name: 'Bench',
  });
  return {
    path: '/channels/telegram/webhook',
    body: JSON.stringify(update),
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret },
  };
}

async function withTelegramGateway<T>(
  ctx: BenchContext,
  name: string,
  fn: (gateway: Awaited<ReturnType<typeof freshGateway>>, fake: FakeTelegram, secret: string) => Promise<T>,
): Promise<T> {
  const token = `${1_000_000 + Math.floor(Math.random() * 1_000_000)}:AA${randomBytes(20).toString('base64url')}`;
  const secret = randomBytes(24).toString('base64url');
  const fake = await FakeTelegram.start({ token });
  return withGatewayBeside(
    ctx,
    name,
    fake,
    {
      TELEGRAM_BOT_TOKEN: token,
      TELEGRAM_WEBHOOK_SECRET: secret,
      TELEGRAM_MODE: 'webhook',
      TELEGRAM_API_ROOT: fake.apiRoot,
    },
    async (gateway) => {
      return await fn(gateway, fake, secret);
    },
  );
}

/** `telegram.tap_to_resume_ms`. */
export const telegramScenario: Scenario = {
  name: 'telegram',
  modes: ['sqlite', 'bullmq', 'postgres'],
  async run(ctx) {
    const resume = await withTelegramGateway(ctx, 'telegram-tap', async (gateway, fake, secret) => {
      const findCard = cardIndex('Telegram', () => fake.allMessages(), requestOf);
      return ctx.client.run<{ resume: Percentiles; decision_rtt: Percentiles; not_parked: number }>(
        'telegram',
        'tap',
        {
          url: gateway.url,
          token: BENCH_TOKEN,
          count: ctx.quick ? 200 : 1000,
          batch: 100,
          channel: 'telegram',
          target: TARGET,
        },
        { idle: () => waitIdle(gateway.pid), card: async (id) => approveTap(fake, secret, await findCard(String(id))) },
      );
    });
    if (resume.not_parked) ctx.log(`telegram: ${resume.not_parked} long-polls answered before their tap was sent`);
    return {
      telegram: {
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
