/**
 * What a Discord card shows, and what it must never do: tool arguments are attacker-controlled, so markdown is
 * escaped (it shows as written), `@everyone`/`@here` are broken, `allowed_mentions` parses nothing (no ping even from
 * a missed escape), user/role mentions stay literal, code blocks cannot be closed early, and secret-looking values are
 * masked as the card model masks them. The fake enforces Discord's limits, so a huge request still posts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { customId, escapeMarkdown, parseCustomId } from '../../../channels/discord/index.js';
import { buttonsOf, rendered } from '../../fakes/discord/message-rules.js';
import { startDiscordGateway, type DiscordGateway } from './setup.js';
import { EDIT_SECRET, MULTI_FILE_EDIT, RISKY_PIPELINE, SQL_DELETE, manyFileEdit } from '../../helpers/summary-calls.js';

describe('discord cards', () => {
  let env: DiscordGateway | undefined;

  // A test whose set-up failed leaves no environment: its own error is the one to read, not a TypeError here (a
  // shuffled run of the whole suite once showed only that), and the previous test's, closed already, is not closed again.
  afterEach(async () => {
    await env?.close();
    env = undefined;
  });

  it('posts the request with Approve (green), Deny (red) and Deny with reason buttons carrying id, nonce and action in ≤ 100 characters', async () => {
    env = await startDiscordGateway();
    const request = await env.file();
    const [post] = env.discord.fake.callsTo('POST', /^\/channels\/\d+\/messages$/);
    expect(post!.path).toBe(`/channels/${env.discord.target}/messages`);
    expect(post!.authorization).toBe(`Bot ${env.discord.fake.token}`);
    const rows = post!.body.components as {
      type: number;
      components: { type: number; style: number; label: string; custom_id: string }[];
    }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]!.components.map((b) => [b.label, b.style])).toEqual([
      ['Approve', 3],
      ['Deny', 4],
      ['Deny with reason…', 2],
    ]);
    for (const button of rows[0]!.components) {
      expect(button.custom_id.length).toBeLessThanOrEqual(100);
      expect(parseCustomId(button.custom_id)).toMatchObject({ requestId: request.id, nonce: request.nonce });
    }
    const text = env.discord.fake.card(env.refOf(request))!.text;
    expect(text).toContain('Approval needed: deploy_service');
    expect(text).toContain('Deploy billing 1.4.2?');
    expect(text).toContain('"service": "billing"');
  });

  it('escapes markdown and neutralises mentions in everything a request controls', async () => {
    env = await startDiscordGateway();
    const hostile =
      '@everyone @here <@123456789> <@&42> **bold** __under__ ~~gone~~ ||spoiler|| [link](https://evil.example) `code`';
    const request = await env.file({
      tool_name: 'run_script',
      prompt: hostile,
      agent_id: '@here-bot',
      tool_args: { note: '@everyone ``` escaped? <@123>' },
    });
    const body = env.discord.fake.callsTo('POST', /messages$/)[0]!.body;
    expect(body.allowed_mentions).toEqual({ parse: [] });
    const raw = JSON.stringify(body);
    // No mention survives in a form Discord would parse.
    expect(raw).not.toMatch(/@(everyone|here)/);
    // Mentions inside the arguments' code block are inert; everywhere else `<` is escaped.
    expect(raw.replace(/```json[\s\S]*?```/, '')).not.toMatch(/(?<!\\\\)<@/);
    expect(raw).not.toContain('](https://evil');
    expect(raw).not.toContain('**bold**');
    // The code block holding the arguments is closed exactly once, at its end.
    const description = (body.embeds as { description: string }[])[0]!.description;
    expect(description.match(/```/g)).toHaveLength(2);
    // And the reader still sees what was written.
    const text = env.discord.fake.card(env.refOf(request))!.text;
    expect(text).toContain(
      '@everyone @here <@123456789> <@&42> **bold** __under__ ~~gone~~ ||spoiler|| [link](https://evil.example) `code`',
    );
    expect(text).toContain('agent @here-bot');
  });

  it('masks secret-looking arguments as the card model does', async () => {
    env = await startDiscordGateway();
    await env.file({ tool_args: { api_key: 'sk-live-0123456789abcdef', password: 'hunter2', region: 'eu-west-1' } });
    const raw = JSON.stringify(env.discord.fake.callsTo('POST', /messages$/)[0]!.body);
    expect(raw).not.toContain('sk-live-0123456789abcdef');
    expect(raw).not.toContain('hunter2');
    expect(raw).toContain('eu-west-1');
  });

  it("keeps a huge request within Discord's limits", async () => {
    env = await startDiscordGateway();
    const request = await env.file({
      prompt: 'p'.repeat(4000),
      agent_id: 'a'.repeat(200),
      approvers: Array.from({ length: 40 }, (_, i) => `discord:9000000000000000${String(i).padStart(2, '0')}`),
      tool_args: { blob: 'x'.repeat(20_000) },
      options: ['Ship it', 'Stop', 'Ship to canary', 'Ship to half'],
    });
    const card = env.discord.fake.card(env.refOf(request))!;
    expect(buttonsOf(card.body).map((b) => b.label)).toEqual([
      'Ship it',
      'Stop',
      'Ship to canary',
      'Ship to half',
      'Stop with reason…',
    ]);
    expect(card.text).toContain('more characters');
  });

  it("shows the call summary within Discord's embed limits: risk, what it does, first diff lines, a link", async () => {
    env = await startDiscordGateway({ discord: { publicUrl: 'https://gate.example.com' } });
    const cards: { request: { id: string }; card: { text: string; body: unknown } }[] = [];
    for (const call of [MULTI_FILE_EDIT, RISKY_PIPELINE, SQL_DELETE]) {
      const request = await env.file(call);
      cards.push({ request, card: env.discord.fake.card(env.refOf(request))! });
    }
    const embed = (i: number) => (cards[i]!.card.body as { embeds: Record<string, unknown>[] }).embeds[0]!;
    const text = (i: number) => cards[i]!.card.text;
    expect(text(0)).toContain('🔴 High risk: Changes a file outside the working directory');
    expect(text(0)).toContain('Changes 3 files: +12 −1');
    expect(text(0)).toContain("+  region: 'eu-central-1',");
    expect(embed(0).url).toBe(`https://gate.example.com/ui/requests/${cards[0]!.request.id}`);
    expect(JSON.stringify(cards.map((c) => c.card.body))).not.toContain(EDIT_SECRET);
    expect(text(1)).toContain('Runs curl, sudo, bash, git');
    expect(text(2)).toContain('Updates or deletes every row (no WHERE): customers');
    // The longest prompt, approvers and summary at once: the fake refuses an embed past 6000 characters.
    const huge = await env.file({
      ...manyFileEdit(60, 200),
      prompt: 'p'.repeat(4000),
      agent_id: 'a'.repeat(200),
      approvers: Array.from({ length: 40 }, (_, i) => `discord:9000000000000000${String(i).padStart(2, '0')}`),
    });
    expect(env.discord.fake.card(env.refOf(huge))!.text).toContain('more');
  });

  it('escapes every markdown character and round-trips custom ids', () => {
    expect(rendered(escapeMarkdown('a*b_c~d`e|f>g#h[i]j(k)l<m-n\\o'))).toBe('a*b_c~d`e|f>g#h[i]j(k)l<m-n\\o');
    expect(escapeMarkdown('@everyone')).toBe('@\u200beveryone');
    const id = customId(
      { id: '0190f5c2-7d1e-7a00-8000-000000000001', nonce: 'AbCdEfGhIjKlMnOpQrStUvWx' },
      { kind: 'grant', index: 2 },
    );
    expect(parseCustomId(id)).toEqual({
      requestId: '0190f5c2-7d1e-7a00-8000-000000000001',
      nonce: 'AbCdEfGhIjKlMnOpQrStUvWx',
      action: { kind: 'grant', index: 2 },
    });
    expect(parseCustomId('tg:o0:id:nonce:extra')).toBeNull();
    expect(parseCustomId(`tg:o0:${'a'.repeat(60)}:${'b'.repeat(60)}`)).toBeNull();
  });
});
