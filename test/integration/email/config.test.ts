/**
 * Configuring email: off without `SMTP_URL` and `TOLLGATE_EMAIL_FROM`, an error naming the variable when configured
 * halfway or with a malformed value; and a gateway configured only through the environment, whose links are signed
 * with the deployment's key kept in the database, so a link mailed before a restart still decides after it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { emailOptionsFromEnv, shownSmtpUrl } from '../../../channels/email/index.js';
import { ValidationError } from '../../../src/api/errors.js';
import { FakeSmtp } from '../../fakes/email/fake-smtp.js';
import { followLink, PUBLIC_URL } from '../../fakes/email/harness.js';
import { eventually } from '../../helpers/eventually.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';

const FULL = {
  SMTP_URL: 'smtp://user:pa%40ss@relay.example.test:587',
  TOLLGATE_EMAIL_FROM: 'Tollgate <tollgate@example.test>',
  TOLLGATE_PUBLIC_URL: 'https://gate.example.test/',
};

function problemOf(env: Record<string, string>): string {
  try {
    emailOptionsFromEnv(env);
  } catch (error) {
    if (error instanceof ValidationError) return error.message;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('emailOptionsFromEnv', () => {
  it('is null when neither SMTP_URL nor TOLLGATE_EMAIL_FROM is set', () => {
    expect(emailOptionsFromEnv({})).toBeNull();
    expect(emailOptionsFromEnv({ SMTP_URL: ' ', TOLLGATE_PUBLIC_URL: 'https://gate.example.test' })).toBeNull();
  });

  it('reads the environment', () => {
    expect(emailOptionsFromEnv(FULL)).toEqual({
      smtpUrl: FULL.SMTP_URL,
      from: FULL.TOLLGATE_EMAIL_FROM,
      publicUrl: 'https://gate.example.test',
      notifyFinal: true,
    });
    expect(
      emailOptionsFromEnv({ ...FULL, SMTP_URL: 'smtps://relay.example.test', TOLLGATE_EMAIL_NOTIFY_FINAL: 'false' }),
    ).toMatchObject({ smtpUrl: 'smtps://relay.example.test', notifyFinal: false });
  });

  it('names the variable that is missing or malformed', () => {
    expect(problemOf({ TOLLGATE_EMAIL_FROM: FULL.TOLLGATE_EMAIL_FROM })).toMatch(/^SMTP_URL: is required/);
    expect(problemOf({ ...FULL, SMTP_URL: 'https://relay.example.test' })).toMatch(
      /^SMTP_URL: must be an smtp:\/\/ or smtps:\/\/ URL/,
    );
    expect(problemOf({ ...FULL, SMTP_URL: 'smtp://[bad' })).toMatch(/^SMTP_URL: is not a valid URL/);
    expect(problemOf({ SMTP_URL: FULL.SMTP_URL })).toMatch(/^TOLLGATE_EMAIL_FROM: is required/);
    expect(problemOf({ ...FULL, TOLLGATE_EMAIL_FROM: 'tollgate' })).toMatch(
      /^TOLLGATE_EMAIL_FROM: is not an email address/,
    );
    expect(problemOf({ SMTP_URL: FULL.SMTP_URL, TOLLGATE_EMAIL_FROM: FULL.TOLLGATE_EMAIL_FROM })).toMatch(
      /^TOLLGATE_PUBLIC_URL: is required/,
    );
    expect(problemOf({ ...FULL, TOLLGATE_PUBLIC_URL: 'gate.example.test' })).toMatch(
      /^TOLLGATE_PUBLIC_URL: is not an http\(s\) URL/,
    );
    expect(problemOf({ ...FULL, TOLLGATE_EMAIL_NOTIFY_FINAL: 'sometimes' })).toMatch(/^TOLLGATE_EMAIL_NOTIFY_FINAL: /);
  });

  it('shows the relay without its password', () => {
    expect(shownSmtpUrl(FULL.SMTP_URL)).toBe('smtp://user:***@relay.example.test:587');
  });

  it('stops the gateway from starting on half a configuration, naming the variable', async () => {
    await expect(startTestServer({ env: { SMTP_URL: 'smtp://127.0.0.1:2525' } })).rejects.toThrow(
      /TOLLGATE_EMAIL_FROM/,
    );
  });
});

describe('email from the environment', () => {
  let dir: string;
  let fake: FakeSmtp;
  let server: TestServer | undefined;

  afterEach(async () => {
    await server?.close();
    await fake.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('mails from SMTP_URL alone, and a link mailed before a restart decides after it', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-email-restart-'));
    const dbPath = join(dir, 'tollgate.db');
    fake = await FakeSmtp.start();
    const env = { SMTP_URL: fake.url, TOLLGATE_EMAIL_FROM: 'tollgate@example.test', TOLLGATE_PUBLIC_URL: PUBLIC_URL };
    server = await startTestServer({ dbPath, env });
    const { request } = await server.gateway.request({
      toolName: 'deploy_service',
      toolArgs: { service: 'billing' },
      channels: [{ type: 'email', target: 'ops@example.test' }],
    });
    const mail = await eventually(() => {
      const [m] = fake.mailsAbout(request.id);
      expect(m).toBeDefined();
      return m!;
    });
    expect(mail.to).toEqual(['ops@example.test']);
    await server.close();

    // A new process on the same database: the link key is read back from it, not generated anew.
    server = await startTestServer({ dbPath, env });
    const followed = await followLink(server.url, mail.links[1]!, { reason: 'after the restart' });
    expect(followed.result).toMatchObject({ status: 200, text: expect.stringContaining('Denied: deploy_service') });
    expect(await server.gateway.get(request.id)).toMatchObject({
      status: 'denied',
      respondedBy: 'email:ops@example.test',
      reason: 'after the restart',
    });
  });

  it('refuses the links of another deployment (another database, another key)', async () => {
    dir = mkdtempSync(join(tmpdir(), 'tollgate-email-keys-'));
    fake = await FakeSmtp.start();
    const env = { SMTP_URL: fake.url, TOLLGATE_EMAIL_FROM: 'tollgate@example.test', TOLLGATE_PUBLIC_URL: PUBLIC_URL };
    server = await startTestServer({ dbPath: join(dir, 'one.db'), env });
    const { request } = await server.gateway.request({
      toolName: 'deploy_service',
      toolArgs: {},
      channels: [{ type: 'email', target: 'ops@example.test' }],
    });
    const link = await eventually(() => fake.mailsAbout(request.id)[0]!.links[0]!);
    await server.close();
    server = await startTestServer({ dbPath: join(dir, 'two.db'), env });
    expect((await followLink(server.url, link)).page).toMatchObject({
      status: 401,
      text: expect.stringContaining('This link is not valid'),
    });
  });
});
