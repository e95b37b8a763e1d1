/**
 * What a Telegram card shows, and what it must never do: tool names, arguments, prompts and agent names are
 * attacker-controlled, so they are escaped for HTML parse mode (the fake parses as Telegram does and refuses a stray
 * `<` or `&`): no link, bold or other markup can be injected, and the reader sees the text as written. Secret-looking
 * values are masked as the card model masks them, and a huge request stays within Telegram's limits (4096 characters
 * of text, 64 bytes of `callback_data`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { callbackData, cardMessage, escapeHtml, parseCallbackData } from '../../../channels/telegram/index.js';
import { parseHtml } from '../../fakes/telegram/html-rules.js';
import { eventually } from '../../helpers/eventually.js';
import { startTelegramGateway, type TelegramGateway } from './setup.js';
import { EDIT_SECRET, MULTI_FILE_EDIT, RISKY_PIPELINE, SQL_DELETE, manyFileEdit } from '../../helpers/summary-calls.js';

describe('telegram cards', () => {
  let env: TelegramGateway;

  afterEach(async () => {
    await env?.close();
  });

  it('sends the request as HTML with Approve and Deny buttons carrying id, nonce and action in ≤ 64 bytes', async () => {
    env = await startTelegramGateway();
    const request = await env.file();
    const [send] = env.telegram.fake.callsTo('sendMessage');
    expect(send!.body).toMatchObject({
      chat_id: env.telegram.target,
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: true },
    });
    const card = env.telegram.fake.card(env.refOf(request))!;
    expect(card.buttons.map((b) => b.text)).toEqual(['✅ Approve', '❌ Deny']);
    for (const button of card.buttons) {
      expect(Buffer.byteLength(button.callback_data)).toBeLessThanOrEqual(64);
      expect(parseCallbackData(button.callback_data)).toMatchObject({ requestId: request.id, nonce: request.nonce });
    }
    expect(card.text).toContain('Approval needed: deploy_service');
    expect(card.text).toContain('Deploy billing 1.4.2?');
    expect(card.text).toContain('"service": "billing"');
    // Only the markup the card itself uses; the summary says what tollgate cannot tell of this tool.
    expect(new Set(card.tags.map((t) => t.name))).toEqual(new Set(['b', 'pre', 'code', 'i']));
    expect(card.text).toContain('🟠 Medium risk: What this tool does is not known to tollgate');
  });

  it('escapes everything a request controls: no injected markup, and the text shows as written', async () => {
    env = await startTelegramGateway();
    const hostile =
      '<a href="https://evil.example">click</a> <b>bold</b> </pre> &amp; & <tg-spoiler>x</tg-spoiler> <script>';
    const request = await env.file({
      tool_name: 'run_script',
      prompt: hostile,
      agent_id: '<i>bot</i>',
      tool_args: { note: '</code></pre><a href="https://evil.example">x</a>' },
    });
    const card = env.telegram.fake.card(env.refOf(request))!;
    expect(card.tags.some((t) => t.name === 'a' || t.name === 'tg-spoiler' || t.href !== undefined)).toBe(false);
    expect(card.tags.filter((t) => t.name === 'pre')).toHaveLength(1);
    expect(card.text).toContain(hostile);
    expect(card.text).toContain('agent <i>bot</i>');
    expect(card.text).toContain('</code></pre><a href=\\"https://evil.example\\">x</a>');
  });

  it('masks secret-looking arguments as the card model does', async () => {
    env = await startTelegramGateway();
    await env.file({ tool_args: { api_key: 'sk-live-0123456789abcdef', password: 'hunter2', region: 'eu-west-1' } });
    const raw = JSON.stringify(env.telegram.fake.callsTo('sendMessage')[0]!.body);
    expect(raw).not.toContain('sk-live-0123456789abcdef');
    expect(raw).not.toContain('hunter2');
    expect(raw).toContain('eu-west-1');
  });

  it("keeps a huge request within Telegram's limits, arguments cut with a note", async () => {
    env = await startTelegramGateway();
    const request = await env.file({
      tool_name: 't'.repeat(200),
      prompt: '<&>'.repeat(1333),
      agent_id: 'a'.repeat(100),
      approvers: Array.from({ length: 40 }, (_, i) => `telegram:50000000${String(i).padStart(2, '0')}`),
      tool_args: { blob: '<x>'.repeat(7000) },
      options: ['Ship it', 'Stop', 'Ship to canary', 'Ship to half'],
    });
    const card = env.telegram.fake.card(env.refOf(request))!;
    expect(card.text.length).toBeLessThanOrEqual(4096);
    expect(card.buttons.map((b) => b.text)).toEqual(['✅ Ship it', '❌ Stop', 'Ship to canary', 'Ship to half']);
    expect(card.text).toContain('more characters');
    // The final card, with the longest tool name and reason the API takes, still fits.
    const outcome = await env.server.gateway.decide({
      requestId: request.id,
      nonce: request.nonce,
      decision: 'deny',
      reason: '&'.repeat(2000),
      actor: { channel: 'telegram', userId: '5000000000' },
    });
    expect(outcome.ok).toBe(true);
    await eventually(() => expect(env.telegram.fake.card(env.refOf(request))?.actionable).toBe(false));
    expect(env.telegram.fake.card(env.refOf(request))!.text.length).toBeLessThanOrEqual(4096);
  });

  it('shows the call summary within 4,096 characters: risk, files and first diff lines, programs, statements, a link', async () => {
    env = await startTelegramGateway({ channel: { publicUrl: 'https://gate.example.com' } });
    const cards: {
      request: { id: string };
      card: NonNullable<ReturnType<TelegramGateway['telegram']['fake']['card']>>;
    }[] = [];
    for (const call of [MULTI_FILE_EDIT, RISKY_PIPELINE, SQL_DELETE]) {
      const request = await env.file(call);
      cards.push({ request, card: env.telegram.fake.card(env.refOf(request))! });
    }
    const [edit, shell, sql] = cards.map((c) => c.card);
    for (const part of [
      '🔴 High risk: Changes a file outside the working directory: ../shared/legacy-billing.ts',
      'Changes 3 files: +12 −1',
      '• ../shared/legacy-billing.ts  +0 −0 (deleted, outside the working directory)',
      "+  region: 'eu-central-1',",
      'Open the request page',
    ])
      expect(edit!.text).toContain(part);
    expect(edit!.tags).toContainEqual({ name: 'blockquote' }); // the raw arguments, folded
    expect(edit!.tags.find((t) => t.name === 'a')?.href).toBe(
      `https://gate.example.com/ui/requests/${cards[0]!.request.id}`,
    );
    expect(JSON.stringify(env.telegram.fake.callsTo('sendMessage'))).not.toContain(EDIT_SECRET);
    expect(shell!.text).toContain('• sudo bash  [privilege]');
    expect(sql!.text).toContain('• DELETE customers  [unbounded write]');
    // The longest summary and prompt with huge arguments still fit: the arguments get what is left.
    const huge = await env.file({
      ...manyFileEdit(60, 200),
      prompt: '<&>'.repeat(1333),
      approvers: Array.from({ length: 40 }, (_, i) => `telegram:50000000${String(i).padStart(2, '0')}`),
    });
    const card = env.telegram.fake.card(env.refOf(huge))!;
    expect(card.text.length).toBeLessThanOrEqual(4096);
    expect(card.text).toContain('… and 44 more'); // the summary keeps 50 files; the card lists 6
  });

  it('escapes the three characters HTML mode needs and round-trips callback data', () => {
    expect(escapeHtml('a<b>c&d"e\'f')).toBe('a&lt;b&gt;c&amp;d"e\'f');
    expect(parseHtml(escapeHtml('</pre>&lt;<b>'))).toEqual({ text: '</pre>&lt;<b>', tags: [] });
    const request = { id: '0190f5c2-7d1e-7a00-8000-000000000001', nonce: 'AbCdEfGhIjKlMnOpQrStUvWx' };
    const data = callbackData(request, { kind: 'grant', index: 12 });
    expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
    expect(parseCallbackData(data)).toEqual({
      requestId: request.id,
      nonce: request.nonce,
      action: { kind: 'grant', index: 12 },
    });
    expect(parseCallbackData('o0:id:nonce:extra')).toBeNull();
    expect(parseCallbackData(`o0:${'a'.repeat(40)}:${'b'.repeat(30)}`)).toBeNull();
  });

  it('drops the keyboard from a final card', async () => {
    env = await startTelegramGateway();
    const request = await env.file();
    await env.server.gateway.cancel(request.id, 'api:runtime');
    const final = cardMessage((await env.get(request.id))!);
    expect(final.reply_markup).toBeUndefined();
    expect(typeof parseHtml(final.text)).toBe('object');
  });
});
