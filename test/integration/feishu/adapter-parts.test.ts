/** The adapter's pure parts: settings, targets, decryption and signatures, card JSON and its two languages. */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  approvalCard,
  decryptFeishu,
  FEISHU_DOMAINS,
  feishuOptionsFromEnv,
  feishuSignature,
  parseTarget,
  sendUuid,
} from '../../../channels/feishu/index.js';
import { NonceCache } from '../../../channels/feishu/verify.js';
import { ValidationError } from '../../../src/api/errors.js';
import { feishuEncrypt } from '../../fakes/feishu/callbacks.js';
import { findAll, visibleText } from '../../fakes/feishu/fake-feishu.js';
import { pendingRequest } from './fixtures.js';
import { summarize } from '../../../src/summaries/index.js';
import { EDIT_SECRET, MULTI_FILE_EDIT, RISKY_PIPELINE } from '../../helpers/summary-calls.js';

const CREDENTIALS = {
  FEISHU_APP_ID: 'cli_a1b2c3d4e5f60718',
  FEISHU_APP_SECRET: 's3cret',
  FEISHU_ENCRYPT_KEY: 'ek',
  FEISHU_VERIFICATION_TOKEN: 'vt',
};

describe('feishuOptionsFromEnv', () => {
  it('is off without credentials and complete with them', () => {
    expect(feishuOptionsFromEnv({})).toBeNull();
    expect(feishuOptionsFromEnv(CREDENTIALS)).toEqual({
      appId: 'cli_a1b2c3d4e5f60718',
      appSecret: 's3cret',
      domain: FEISHU_DOMAINS.feishu,
      verificationToken: 'vt',
      encryptKey: 'ek',
      mode: 'webhook',
      language: 'en',
      replayWindowS: 300,
      requestTimeoutMs: 10_000,
    });
  });

  it('names what is missing or wrong', () => {
    expect(() => feishuOptionsFromEnv({ FEISHU_APP_ID: 'cli_x' })).toThrow(/^FEISHU_APP_SECRET: required/);
    expect(() => feishuOptionsFromEnv({ ...CREDENTIALS, FEISHU_ENCRYPT_KEY: '' })).toThrow(
      /^FEISHU_ENCRYPT_KEY: required/,
    );
    expect(() => feishuOptionsFromEnv({ ...CREDENTIALS, FEISHU_VERIFICATION_TOKEN: '' })).toThrow(
      /^FEISHU_VERIFICATION_TOKEN: required/,
    );
    expect(() => feishuOptionsFromEnv({ ...CREDENTIALS, FEISHU_DOMAIN: 'ftp://x' })).toThrow(/^FEISHU_DOMAIN/);
    expect(() => feishuOptionsFromEnv({ ...CREDENTIALS, FEISHU_LANGUAGE: 'fr' })).toThrow(/^FEISHU_LANGUAGE/);
    expect(() => feishuOptionsFromEnv(CREDENTIALS, { replay_window_s: 'x' })).toThrow(ValidationError);
    expect(() => feishuOptionsFromEnv(CREDENTIALS, { replay_window_s: 'x' })).toThrow(/^feishu\.replay_window_s/);
  });

  it('reads the domain, mode, language and default target from the environment or the file section', () => {
    const ws = feishuOptionsFromEnv(
      { FEISHU_APP_ID: 'cli_x', FEISHU_APP_SECRET: 's', FEISHU_MODE: 'ws', FEISHU_DOMAIN: 'lark' },
      { language: 'zh-CN', default_target: 'oc_team' },
    );
    expect(ws).toMatchObject({
      mode: 'ws',
      domain: FEISHU_DOMAINS.lark,
      language: 'zh',
      defaultTarget: 'oc_team',
      encryptKey: null,
    });
    expect(feishuOptionsFromEnv({ ...CREDENTIALS, FEISHU_DOMAIN: 'http://127.0.0.1:9000/' })?.domain).toBe(
      'http://127.0.0.1:9000',
    );
    expect(
      feishuOptionsFromEnv({ ...CREDENTIALS, FEISHU_DEFAULT_TARGET: 'oc_env' }, { default_target: 'oc_file' })
        ?.defaultTarget,
    ).toBe('oc_env');
  });
});

describe('targets', () => {
  it('reads receive_id_type from the id or an explicit prefix', () => {
    expect(parseTarget('oc_123')).toEqual({ receiveIdType: 'chat_id', receiveId: 'oc_123' });
    expect(parseTarget('ou_123')).toEqual({ receiveIdType: 'open_id', receiveId: 'ou_123' });
    expect(parseTarget('on_123')).toEqual({ receiveIdType: 'union_id', receiveId: 'on_123' });
    expect(parseTarget('ann@example.com')).toEqual({ receiveIdType: 'email', receiveId: 'ann@example.com' });
    expect(parseTarget('5d9f1a')).toEqual({ receiveIdType: 'user_id', receiveId: '5d9f1a' });
    expect(parseTarget('chat_id:legacy-chat')).toEqual({ receiveIdType: 'chat_id', receiveId: 'legacy-chat' });
    expect(parseTarget('open_id:ou_9')).toEqual({ receiveIdType: 'open_id', receiveId: 'ou_9' });
  });

  it('gives every retry of one card the same short uuid, and other cards other uuids', () => {
    expect(sendUuid('r1', 'oc_a')).toBe(sendUuid('r1', 'oc_a'));
    expect(sendUuid('r1', 'oc_a')).not.toBe(sendUuid('r1', 'oc_b'));
    expect(sendUuid('r1', 'oc_a').length).toBeLessThanOrEqual(50);
  });
});

describe('decryption and signatures', () => {
  it('decrypts what Feishu encrypts and fails with another key', () => {
    const encrypted = feishuEncrypt('{"hello":"飞书"}', 'key-1');
    expect(decryptFeishu(encrypted, 'key-1')).toBe('{"hello":"飞书"}');
    expect(() => JSON.parse(decryptFeishu(encrypted, 'key-2'))).toThrow();
  });

  it('signs timestamp + nonce + encrypt key + raw body', () => {
    const expected = createHash('sha256').update('1700000000n1ek{"a":1}').digest('hex');
    expect(feishuSignature('1700000000', 'n1', 'ek', Buffer.from('{"a":1}'))).toBe(expected);
  });

  it('remembers nonces for the window only', () => {
    const nonces = new NonceCache(1000);
    expect(nonces.firstUse('a', 0)).toBe(true);
    expect(nonces.firstUse('a', 500)).toBe(false);
    expect(nonces.firstUse('a', 5000)).toBe(true);
  });
});

describe('card JSON', () => {
  it('colours the header by state and drops the buttons once final', () => {
    const templates = (['pending', 'approved', 'denied', 'expired', 'cancelled'] as const).map(
      (status) =>
        approvalCard(pendingRequest({ status, respondedBy: 'feishu:ou_a' }), { language: 'en' }).header.template,
    );
    expect(templates).toEqual(['orange', 'green', 'red', 'grey', 'grey']);
    expect(
      findAll(
        approvalCard(pendingRequest({ status: 'approved', respondedBy: 'feishu:ou_a' }), { language: 'en' }),
        'form',
      ),
    ).toEqual([]);
  });

  it('truncates long arguments and shows the requester', () => {
    const card = approvalCard(pendingRequest({ toolArgs: { sql: 'x'.repeat(5000) } }), {
      language: 'en',
      maxArgsChars: 200,
    });
    const text = visibleText(card);
    expect(text).toContain('more characters)');
    expect(text).toContain('Requested by: agent ops-bot for user u42');
    expect(JSON.stringify(card).length).toBeLessThan(3000);
  });

  it('shows the call summary: risk, files with counts, the first diff lines, the page, no secret', async () => {
    const summary = await summarize(MULTI_FILE_EDIT.tool_name, MULTI_FILE_EDIT.tool_args, MULTI_FILE_EDIT.context);
    const request = pendingRequest({ toolName: 'apply_patch', toolArgs: MULTI_FILE_EDIT.tool_args, summary });
    const card = approvalCard(request, { language: 'en', publicUrl: 'https://gate.example.com' });
    const text = visibleText(card);
    expect(text).toContain('High risk: Changes a file outside the working directory: ../shared/legacy-billing.ts');
    expect(text).toContain('• src/billing/config.ts  +2 −1');
    expect(text).toContain("+  region: 'eu-central-1',");
    expect(text).toContain(`https://gate.example.com/ui/requests/${request.id}`);
    expect(JSON.stringify(card)).not.toContain(EDIT_SECRET);
    // Feishu refuses cards over 30 KB.
    expect(Buffer.byteLength(JSON.stringify(card))).toBeLessThan(30_000);
  });

  it('words the call summary in Chinese on a Chinese card, through the same card model', async () => {
    const edit = await summarize(MULTI_FILE_EDIT.tool_name, MULTI_FILE_EDIT.tool_args, MULTI_FILE_EDIT.context);
    const card = approvalCard(
      pendingRequest({ toolName: 'apply_patch', toolArgs: MULTI_FILE_EDIT.tool_args, summary: edit }),
      {
        language: 'zh',
      },
    );
    const text = visibleText(card);
    expect(text).toContain(
      '高风险：修改工作目录之外的文件：../shared/legacy-billing.ts；删除文件：../shared/legacy-billing.ts',
    );
    expect(text).toContain('修改 3 个文件：+12 −1');
    expect(text).toContain('• src/billing/retry.ts  +10 −0 (新文件)');
    expect(text).toContain('• ../shared/legacy-billing.ts  +0 −0 (删除、在工作目录之外)');
    // The diff is the call's own text, secrets masked as on the English card.
    expect(text).toContain("+  region: 'eu-central-1',");
    expect(JSON.stringify(card)).not.toContain(EDIT_SECRET);

    const shell = await summarize(RISKY_PIPELINE.tool_name, RISKY_PIPELINE.tool_args, RISKY_PIPELINE.context);
    const shellText = visibleText(
      approvalCard(pendingRequest({ toolName: 'Bash', toolArgs: RISKY_PIPELINE.tool_args, summary: shell }), {
        language: 'zh',
      }),
    );
    expect(shellText).toContain('高风险：访问网络：get.example.com；');
    expect(shellText).toContain('运行从网络获取的代码：bash');
    expect(shellText).toContain('运行 curl、sudo、bash、git');
    expect(shellText).toContain('• git push --force origin main  [改写历史');
    // The English sentences stay off the Chinese card; the English card keeps them.
    expect(shellText).not.toMatch(/High risk|Reaches the network|Runs curl|Rewrites git history/);
    const english = visibleText(
      approvalCard(pendingRequest({ toolName: 'Bash', toolArgs: RISKY_PIPELINE.tool_args, summary: shell }), {
        language: 'en',
      }),
    );
    expect(english).toContain('High risk: Reaches the network: get.example.com');

    // A parse failure, and a reason this version cannot read back (shown as the row has it).
    const unparsed = approvalCard(
      pendingRequest({
        summary: {
          kind: 'shell',
          risk: 'medium',
          risk_reasons: [
            {
              code: 'shell_unparsed',
              text: 'The command could not be parsed: too complex to parse: more than 256 pipes',
            },
            { code: 'too_large', text: 'Too large to read in full: 40000 characters' },
            { code: 'future_code', text: 'Something new' },
          ],
          commands: [],
          truncated: false,
        },
      }),
      { language: 'zh' },
    );
    expect(visibleText(unparsed)).toContain(
      '中风险：无法解析该命令：过于复杂：超过 256 个管道；内容过大，无法完整读取：40000 个字符；Something new',
    );
  });

  it('translates the default buttons into Chinese but keeps labels the runtime chose', () => {
    const zh = approvalCard(pendingRequest(), { language: 'zh' });
    expect(findAll(zh, 'button').map((b) => (b.text as { content: string }).content)).toEqual(['批准', '拒绝']);
    expect(visibleText(zh)).toContain('请求方: 智能体 ops-bot（代表用户 u42）');
    const custom = approvalCard(pendingRequest({ options: ['Ship it', 'Hold'] }), { language: 'zh' });
    expect(findAll(custom, 'button').map((b) => (b.text as { content: string }).content)).toEqual(['Ship it', 'Hold']);
    const expired = approvalCard(
      pendingRequest({
        status: 'expired',
        onTimeout: 'approve',
        allowed: true,
        respondedAt: new Date('2026-03-01T10:05:00Z'),
      }),
      { language: 'zh' },
    );
    expect(visibleText(expired)).toContain('已过期（2026-03-01T10:05:00.000Z），默认批准');
  });
});
