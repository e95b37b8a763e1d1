/**
 * One request mailed and posted on Discord: the first valid decision wins wherever it is made. An approval by mail
 * rewrites the Discord card and a later Discord tap is refused; a Discord tap first makes the mailed link's form say
 * nothing changed, and the recipient is told by mail who decided.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeDiscordHarness, type DiscordHarness } from '../../fakes/discord/harness.js';
import { OPS } from '../../fakes/email/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startEmailGateway, type EmailGateway } from './setup.js';

const DISCORD_USER = '900000000000000001';

describe('email fan-out', () => {
  let env: EmailGateway;
  let discord: DiscordHarness;

  afterEach(async () => {
    await env.close();
    await discord.close();
  });

  async function start() {
    discord = await makeDiscordHarness();
    env = await startEmailGateway({ channels: [discord.channel] });
    return env.file({
      channels: [
        { type: 'email', target: OPS },
        { type: 'discord', target: discord.target },
      ],
    });
  }

  it('an approval by mail wins: the Discord card shows it, a later Discord tap is refused', async () => {
    const request = await start();
    await eventually(() => expect(discord.messageFor(request)).toBeDefined());
    const followed = await env.email.follow(env.server, env.email.mailFor(request).links[0]!);
    expect(followed.result?.status).toBe(200);
    const late = await discord.press(env.server, request, 'Deny', DISCORD_USER);
    expect(late.body).toMatchObject({ type: 4, data: { content: expect.stringContaining('already approved') } });
    expect(await env.get(request.id)).toMatchObject({
      status: 'approved',
      respondedBy: `email:${OPS}`,
      respondedVia: 'email',
    });
    await eventually(() =>
      expect(discord.fake.card(`${discord.target}:${discord.messageFor(request).id}`)).toMatchObject({
        actionable: false,
        text: expect.stringContaining(`Approved by email:${OPS}`),
      }),
    );
  });

  it('a Discord tap wins: the mailed form then changes nothing, and the recipient is told who decided', async () => {
    const request = await start();
    const [approve] = env.email.mailFor(request).links;
    // The approver opened the mail's page before the tap on Discord, and presses its button after.
    const opened = await env.email.fetchPage(env.server, approve!);
    expect(opened.status).toBe(200);
    await discord.press(env.server, request, 'Deny', DISCORD_USER);
    const late = await env.email.follow(env.server, approve!, { openedEarlier: true });
    expect(late.result).toMatchObject({ status: 409, text: expect.stringContaining('Nothing changed') });
    expect(await env.get(request.id)).toMatchObject({ status: 'denied', respondedBy: `discord:${DISCORD_USER}` });
    const notice = await eventually(() => {
      const [, n] = env.email.fake.mailsAbout(request.id);
      expect(n).toBeDefined();
      return n!;
    });
    expect(notice).toMatchObject({ subject: 'Denied: deploy_service', links: [] });
    expect(notice.text).toContain(`Denied by discord:${DISCORD_USER}`);
  });
});
