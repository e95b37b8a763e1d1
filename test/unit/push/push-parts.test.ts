/**
 * The transport-free parts of Web Push: which subscriptions are accepted (https only; loopback http only while the
 * gateway listens on loopback), the VAPID key derived the same on every replica, action tokens bound to what they
 * name, and a payload that stays within 3 KB however large the arguments.
 */
import { createECDH, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ActionTokens } from '../../../src/push/action-tokens.js';
import { MAX_PAYLOAD_BYTES, pushPayload } from '../../../src/push/payload.js';
import { parseSubscription } from '../../../src/push/subscriptions.js';
import { vapidKeysFrom, vapidSubject } from '../../../src/push/vapid.js';
import type { SharedMarks } from '../../../src/contracts/shared-marks.js';
import { newConfirmationRequest } from '../../../src/requests/new-request.js';
import { summarize } from '../../../src/summaries/index.js';
import { EDIT_SECRET, MULTI_FILE_EDIT, RISKY_PIPELINE } from '../../helpers/summary-calls.js';

function keys() {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
}

/** Marks in memory, as the database keeps them (one `add` per live key). */
function memoryMarks(): SharedMarks {
  const live = new Set<string>();
  return {
    add: async (kind, key) => !live.has(`${kind}|${key}`) && Boolean(live.add(`${kind}|${key}`)),
    take: async (kind, key) => live.delete(`${kind}|${key}`),
    has: async (kind, key) => live.has(`${kind}|${key}`),
  };
}

describe('push subscriptions', () => {
  it('takes an https endpoint and the browser keys', () => {
    const k = keys();
    expect(
      parseSubscription({ endpoint: 'https://fcm.googleapis.com/fcm/send/abc', expirationTime: null, keys: k }, []),
    ).toEqual({ endpoint: 'https://fcm.googleapis.com/fcm/send/abc', ...k });
  });

  it('refuses http, and loopback http unless the operator allows the host, naming the field', () => {
    const k = keys();
    expect(() => parseSubscription({ endpoint: 'http://push.example.com/x', keys: k }, ['127.0.0.1'])).toThrow(
      /^endpoint: must be an https URL/,
    );
    expect(() => parseSubscription({ endpoint: 'http://127.0.0.1:9999/x', keys: k }, [])).toThrow(/^endpoint:/);
    expect(parseSubscription({ endpoint: 'http://127.0.0.1:9999/x', keys: k }, ['127.0.0.1']).endpoint).toBe(
      'http://127.0.0.1:9999/x',
    );
    expect(() => parseSubscription({ endpoint: 'https://x.example/y', keys: { ...k, auth: 'AAAA' } }, [])).toThrow(
      /^keys\.auth:/,
    );
    expect(() => parseSubscription({ endpoint: 'file:///etc/passwd', keys: k }, ['*'])).toThrow(/^endpoint:/);
    expect(() => parseSubscription('nope', [])).toThrow(/^body:/);
  });

  it.each([
    'https://169.254.169.254/latest/meta-data/',
    'https://10.1.2.3/x',
    'https://[::ffff:a9fe:a9fe]/',
    'https://[::ffff:169.254.169.254]/',
    'https://[::a9fe:a9fe]/',
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[2002:a9fe:a9fe::1]/',
    'https://0.0.0.0:22/',
    'https://[::]/',
    'https://[fd00::1]/',
    'https://localhost/x',
    'https://127.1/x',
    'https://0x7f000001/x',
  ])('refuses the private, metadata, unspecified or mapped endpoint %s, naming the field', (endpoint) => {
    expect(() => parseSubscription({ endpoint, keys: keys() }, [])).toThrow(/^endpoint: .*(loopback|private)/);
  });
});

describe('VAPID keys', () => {
  it('derives one P-256 key pair from the deployment secret, the same on every replica', () => {
    const a = vapidKeysFrom('secret-one');
    expect(vapidKeysFrom('secret-one')).toEqual(a);
    expect(vapidKeysFrom('secret-two').publicKey).not.toBe(a.publicKey);
    expect(Buffer.from(a.publicKey, 'base64url')).toHaveLength(65);
    const ecdh = createECDH('prime256v1');
    ecdh.setPrivateKey(Buffer.from(a.privateKey, 'base64url'));
    expect(ecdh.getPublicKey().toString('base64url')).toBe(a.publicKey);
  });

  it('takes the subject from TOLLGATE_VAPID_SUBJECT, else an https public URL', () => {
    expect(vapidSubject('mailto:ops@example.com', null)).toBe('mailto:ops@example.com');
    expect(vapidSubject(undefined, 'https://gate.example.com')).toBe('https://gate.example.com');
    expect(vapidSubject(undefined, 'http://127.0.0.1:8787')).toMatch(/^mailto:/);
    expect(() => vapidSubject('ops@example.com', null)).toThrow(/TOLLGATE_VAPID_SUBJECT/);
  });
});

describe('action tokens', () => {
  const claims = { requestId: 'r1', nonce: 'n1', person: 'alice', subscriptionId: 's1', expiresAt: 10_000 };

  it('verify what they were signed with, until their expiry, and are spent once', async () => {
    const tokens = new ActionTokens('secret', memoryMarks());
    const token = tokens.sign(claims);
    expect(tokens.verify(token, 9_999)).toEqual({ ok: true, claims });
    expect(tokens.verify(token, 10_000)).toEqual({ ok: false, problem: 'expired' });
    expect(await tokens.spend(claims, 5_000)).toBe(true);
    expect(await tokens.spend(claims, 5_001)).toBe(false);
  });

  it('refuse another key, an email link and any edited field', () => {
    const tokens = new ActionTokens('secret', memoryMarks());
    const token = tokens.sign(claims);
    expect(new ActionTokens('other', memoryMarks()).verify(token, 0)).toEqual({ ok: false, problem: 'forged' });
    const [payload, signature] = token.split('.') as [string, string];
    const fields = JSON.parse(Buffer.from(payload, 'base64url').toString()) as unknown[];
    fields[5] = 99_999_999;
    expect(tokens.verify(`${Buffer.from(JSON.stringify(fields)).toString('base64url')}.${signature}`, 0)).toEqual({
      ok: false,
      problem: 'forged',
    });
    expect(tokens.verify('x'.repeat(5000), 0)).toEqual({ ok: false, problem: 'forged' });
  });
});

describe('push payload', () => {
  it('stays within 3 KB and masks secrets however large the arguments', () => {
    const big = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`field_${i}`, '€'.repeat(2000)]));
    const request = newConfirmationRequest(
      {
        toolName: 'pay_invoice',
        toolArgs: { ...big, password: 'hunter2-hunter2', payee: 'ACME' },
        prompt: 'Pay?\u001b[2K'.repeat(400),
      },
      { timeoutS: 300, channels: [], options: ['Approve', 'Deny'], onTimeout: 'deny' },
      [],
      'x',
      new Date(0),
    );
    const payload = pushPayload(request, 'https://gate.example.com/', 'token');
    expect(Buffer.byteLength(JSON.stringify(payload))).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    expect(JSON.stringify(payload)).not.toContain('hunter2');
    expect(payload.body).not.toContain('\u001b');
    expect(payload.url).toBe(`https://gate.example.com/ui/requests/${request.id}`);
    expect(payload.actions).toEqual(['approve', 'deny']);
  });
});

describe('push payload with a call summary', () => {
  it('says the risk, the reasons and the programs within 3 KB, however long the prompt and the summary', async () => {
    const summary = await summarize(RISKY_PIPELINE.tool_name, RISKY_PIPELINE.tool_args, RISKY_PIPELINE.context);
    const request = newConfirmationRequest(
      {
        toolName: 'Bash',
        toolArgs: RISKY_PIPELINE.tool_args,
        prompt: 'Run this?'.repeat(400),
        summary: {
          ...summary,
          risk_reasons: [
            ...summary.risk_reasons,
            ...summary.risk_reasons.map((r) => ({ ...r, text: '€'.repeat(2000) })),
          ],
        },
      },
      { timeoutS: 300, channels: [], options: ['Approve', 'Deny'], onTimeout: 'deny' },
      [],
      'x',
      new Date(0),
    );
    const payload = pushPayload(request, 'https://gate.example.com', 'token');
    expect(Buffer.byteLength(JSON.stringify(payload))).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    expect(payload.body).toContain('High risk: Reaches the network: get.example.com');
    // The lock screen shows the first lines: the risk comes right after a prompt cut to 300 characters.
    expect(payload.body.indexOf('High risk')).toBeLessThan(320);
  });

  it('lists the files of an edit with their counts, no secret from the diff', async () => {
    const summary = await summarize(MULTI_FILE_EDIT.tool_name, MULTI_FILE_EDIT.tool_args, MULTI_FILE_EDIT.context);
    const request = newConfirmationRequest(
      { toolName: 'apply_patch', toolArgs: MULTI_FILE_EDIT.tool_args, prompt: MULTI_FILE_EDIT.prompt, summary },
      { timeoutS: 300, channels: [], options: ['Approve', 'Deny'], onTimeout: 'deny' },
      [],
      'x',
      new Date(0),
    );
    const payload = pushPayload(request, 'https://gate.example.com', 'token');
    expect(payload.body).toContain('Changes 3 files: +12 −1');
    expect(payload.body).toContain('../shared/legacy-billing.ts  +0 −0 (deleted, outside the working directory)');
    expect(JSON.stringify(payload)).not.toContain(EDIT_SECRET);
  });
});
