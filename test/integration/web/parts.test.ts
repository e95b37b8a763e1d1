/**
 * The web channel's small parts: the escaping template, configuration reading, password hashes, shared session
 * secrets, masked-secret restoration and the audit page's time parsing.
 */
import { describe, expect, it } from 'vitest';
import { html, hashPassword, verifyPassword, webOptionsFromConfig } from '../../../channels/web/index.js';
import { parseTime } from '../../../channels/web/audit-filters.js';
import { restoreMasked } from '../../../channels/web/decision-form.js';
import { SessionSigner } from '../../../channels/web/session.js';
import { ValidationError } from '../../../src/api/errors.js';

describe('html template', () => {
  it('escapes every value unless it is markup built by html itself', () => {
    const evil = `<script>"x" & 'y' \`z\`</script>`;
    const inner = html`<b>${evil}</b>`;
    expect(html`<p title="${evil}">${inner}${[evil, null, undefined, false, 0]}</p>`.value).toBe(
      '<p title="&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39; &#96;z&#96;&lt;/script&gt;"><b>&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39; &#96;z&#96;&lt;/script&gt;</b>&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39; &#96;z&#96;&lt;/script&gt;0</p>',
    );
  });
});

describe('web configuration', () => {
  const load = (web: unknown, env: Record<string, string> = {}) =>
    webOptionsFromConfig({ file: { web } as never, env, publicUrl: null });

  it('reads users with password hashes and tokens from the environment', async () => {
    const hash = await hashPassword('pw', 1024);
    const options = load(
      {
        login_link_user: 'ops',
        session_ttl_h: 2,
        users: [
          { name: 'alice', password_hash: hash },
          { name: 'bob', token_env: 'BOB_TOKEN' },
        ],
      },
      { BOB_TOKEN: 'b'.repeat(20), TOLLGATE_WEB_SECRET: 'shared' },
    );
    expect(options).toMatchObject({
      linkUser: 'ops',
      sessionTtlMs: 7_200_000,
      secret: 'shared',
      loginLinks: true,
      users: [
        { name: 'alice', passwordHash: hash },
        { name: 'bob', token: 'b'.repeat(20) },
      ],
    });
    expect(load(undefined)).toMatchObject({ users: [], loginLinks: true });
  });

  it('names the setting that is wrong', () => {
    const cases: [unknown, string, Record<string, string>?][] = [
      [{ users: [{ name: 'a b', token_env: 'X' }] }, 'web.users[0].name'],
      [{ users: [{ name: 'alice' }] }, 'web.users[0]: give password_hash or token_env'],
      [{ users: [{ name: 'alice', password_hash: 'plaintext' }] }, 'web.users[0].password_hash'],
      [{ users: [{ name: 'alice', token_env: 'MISSING' }] }, 'web.users[0].token_env: set MISSING'],
      [{ users: [{ name: 'alice', token_env: 'SHORT' }] }, 'web.users[0].token_env', { SHORT: 'abc' }],
      [
        {
          users: [
            { name: 'a', token_env: 'T' },
            { name: 'a', token_env: 'T' },
          ],
        },
        'web.users[1].name: "a" is listed twice',
        { T: 't'.repeat(16) },
      ],
      [{ colour: 'blue' }, 'web'],
    ];
    for (const [web, message, env] of cases) {
      expect(() => load(web, env), message).toThrow(ValidationError);
      expect(() => load(web, env), message).toThrow(message);
    }
  });
});

describe('web sessions and passwords', () => {
  it('verifies scrypt hashes and refuses malformed ones', async () => {
    const hash = await hashPassword('correct horse', 1024);
    expect(hash).toMatch(/^scrypt\$1024\$8\$1\$/);
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('correct horsE', hash)).toBe(false);
    expect(await verifyPassword('correct horse', 'scrypt$3$8$1$AAAA$AAAA')).toBe(false);
  });

  it('accepts sessions across processes that share the secret, until they expire', () => {
    let now = 1_000_000;
    const a = new SessionSigner('shared', 60_000, () => now);
    const b = new SessionSigner('shared', 60_000, () => now);
    const { cookie, session } = a.issue('alice');
    expect(b.verify(cookie)).toEqual(session);
    expect(b.csrfMatches(session.id, a.csrfToken(session.id))).toBe(true);
    expect(new SessionSigner('other', 60_000, () => now).verify(cookie)).toBeNull();
    now += 60_000;
    expect(b.verify(cookie)).toBeNull();
  });
});

describe('edited arguments', () => {
  it('puts back only the secrets the editor showed masked', () => {
    const original = {
      user: 'bob',
      password: 'p1',
      nested: { token: 't1', list: ['sk-abcdefgh1', 'plain'] },
      api_key: 1234,
      pin: 1234,
    };
    const edited = {
      user: 'alice',
      password: '••••',
      nested: { token: '••••', list: ['••••', 'plain'] },
      api_key: '••••',
      pin: 4321,
    };
    expect(restoreMasked(edited, original)).toEqual({
      ok: true,
      value: {
        user: 'alice',
        password: 'p1',
        nested: { token: 't1', list: ['sk-abcdefgh1', 'plain'] },
        api_key: 1234,
        pin: 4321,
      },
    });
    // A mask where the editor showed none (typed, or moved under another name) is never written back.
    expect(restoreMasked({ ...edited, user: '••••' }, original)).toEqual({ ok: false, path: ['user'] });
    expect(restoreMasked({ ...edited, extra: ['x', '••••'] }, original)).toEqual({ ok: false, path: ['extra', 1] });
  });

  it('keeps a string whose secret was masked inside it when left as shown, and refuses it edited around the mask', () => {
    const command = 'curl -H "Authorization: Bearer abcdef123456" https://api.example.com/v1/charges';
    const original = { command, description: 'List charges' };
    const shown = 'curl -H "Authorization: ••••" https://api.example.com/v1/charges';
    expect(restoreMasked({ command: shown, description: 'List the charges' }, original)).toEqual({
      ok: true,
      value: { command, description: 'List the charges' },
    });
    expect(restoreMasked({ command: shown.replace('charges', 'refunds'), description: 'x' }, original)).toEqual({
      ok: false,
      path: ['command'],
    });
    // Replaced whole, the value is the approver's own.
    expect(restoreMasked({ command: 'echo no secret here' }, original)).toEqual({
      ok: true,
      value: { command: 'echo no secret here' },
    });
  });
});

describe('audit time filters', () => {
  it('reads dates and zone-less times as UTC', () => {
    expect(parseTime('2026-03-02')?.toISOString()).toBe('2026-03-02T00:00:00.000Z');
    expect(parseTime('2026-03-02T14:30')?.toISOString()).toBe('2026-03-02T14:30:00.000Z');
    expect(parseTime('2026-03-02T14:30:00+02:00')?.toISOString()).toBe('2026-03-02T12:30:00.000Z');
    expect(parseTime('yesterday')).toBeNull();
    expect(parseTime('2026-13-45')).toBeNull();
  });
});
