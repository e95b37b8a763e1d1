import { describe, expect, it } from 'vitest';
import { cardText, keyArguments, maskSecrets, outcomeText, previewArgs } from '../../src/channel/card.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { maskSecretsInLine } from '../../src/utils/json-view.js';

const base: ConfirmationRequest = {
  id: '00000000-0000-4000-8000-000000000000',
  status: 'pending',
  toolName: 'pay_invoice',
  toolArgs: { amount: 10 },
  approvedArgs: null,
  prompt: null,
  options: ['Approve', 'Deny'],
  agentId: 'billing-bot',
  userId: 'U1',
  sessionId: null,
  toolCallId: null,
  agentKind: null,
  context: null,
  metadata: {},
  summary: null,
  channels: [],
  approvers: [],
  requiredApprovals: 1,
  onTimeout: 'deny',
  idempotencyKey: null,
  argsSha256: 'x',
  callbackUrl: null,
  filedBy: null,
  nonce: 'n',
  createdAt: new Date(0),
  expiresAt: new Date(300_000),
  updatedAt: new Date(0),
  respondedAt: null,
  respondedBy: null,
  respondedVia: null,
  respondedByPerson: null,
  onBehalfOf: null,
  filedByPerson: null,
  decisionOption: null,
  reason: null,
  allowed: null,
};

describe('card text', () => {
  it('masks secret-looking values by key and by shape, at any depth', () => {
    expect(
      maskSecrets({ password: 'hunter2', nested: { api_key: 'abc', list: ['sk-live-123', 'plain'] }, token_count: 5 }),
    ).toEqual({
      password: '••••',
      nested: { api_key: '••••', list: ['••••', 'plain'] },
      token_count: '••••',
    });
    expect(maskSecrets({ header: 'Bearer abc.def' })).toEqual({ header: '••••' });
  });

  it('masks secrets inside a line: assignments, headers, JSON bodies, schemes, URL passwords, token shapes', () => {
    const cases: [string, string][] = [
      [
        'curl -H "Authorization: Bearer sk-live-abcdef123456" https://api.example.com',
        'curl -H "Authorization: ••••" https://api.example.com',
      ],
      ["curl -H 'X-Api-Key: abc123secret' https://x", "curl -H 'X-Api-Key: ••••' https://x"],
      [
        'export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG && aws s3 ls',
        'export AWS_SECRET_ACCESS_KEY=•••• && aws s3 ls',
      ],
      ['mysql --password=hunter2 -u root', 'mysql --password=•••• -u root'],
      [
        `curl -d '{"user":"bob","password":"hunter2"}' https://x`,
        `curl -d '{"user":"bob","password":"••••"}' https://x`,
      ],
      ['auth: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abcdefghijk', 'auth: Bearer ••••'],
      ['psql "postgres://app:hunter2@db/prod" -c "select 1"', 'psql "postgres://app:••••@db/prod" -c "select 1"'],
      ['+const key = "ghp_abcdefghijklmnop1234";', '+const key = "••••";'],
      ["+  STRIPE_SECRET_KEY: 'sk_live_0123',", '+  STRIPE_SECRET_KEY: ••••'],
      // Words that only look like the keys stay.
      ['git commit -m "refresh token handling"', 'git commit -m "refresh token handling"'],
      ['echo Bearer bonds are fine', 'echo Bearer bonds are fine'],
    ];
    for (const [line, masked] of cases) expect(maskSecretsInLine(line), line).toBe(masked);
  });

  it('masks a long line in time linear in its length', () => {
    for (const unit of ['token', ' token', '"token', ' a=token', ' Bearer aaaaaaaa1', '"tokenx": "', '-']) {
      const line = unit.repeat(Math.ceil(1_000_000 / unit.length));
      const started = performance.now();
      maskSecretsInLine(line);
      // Tens of milliseconds; a backtracking walk would take minutes.
      expect(performance.now() - started, unit).toBeLessThan(2_000);
    }
  });

  it("masks the command an agent's sentence quotes", () => {
    const text = cardText({
      ...base,
      agentKind: 'claude',
      toolName: 'Bash',
      toolArgs: { command: 'curl -H "Authorization: Bearer abcdef1234567" https://x' },
    });
    expect(text.prompt).toBe('Claude Code wants to run `curl -H "Authorization: ••••" https://x`.');
  });

  it('truncates long arguments and says how much was left out', () => {
    const preview = previewArgs({ blob: 'x'.repeat(5000) }, 100);
    expect(preview.length).toBeLessThan(200);
    expect(preview).toMatch(/more characters/);
  });

  it('previews arguments nested 10,000 levels deep (a row from before the input bound) without overflowing, bounded', () => {
    let deep: Record<string, unknown> = { token: 'sk-live-secret' };
    for (let i = 0; i < 10_000; i++) deep = { a: deep };
    const preview = previewArgs(deep, 500);
    expect(preview.length).toBeLessThan(700);
    expect(preview).toMatch(/nested deeper than 64 levels/);
    expect(preview).not.toContain('sk-live-secret');
    expect(() => cardText({ ...base, toolArgs: deep })).not.toThrow();
  });

  it('words a pending card with buttons and a final one without', () => {
    const pending = cardText(base);
    expect(pending.title).toBe('Approval needed: pay_invoice');
    expect(pending.requester).toBe('agent billing-bot for user U1');
    expect(pending.actionable).toBe(true);
    const denied = cardText({
      ...base,
      status: 'denied',
      respondedBy: 'slack:U2',
      respondedAt: new Date(1000),
      reason: 'too much',
      allowed: false,
    });
    expect(denied.actionable).toBe(false);
    expect(denied.status).toContain('Denied by slack:U2');
    expect(denied.status).toContain('too much');
    expect(cardText({ ...base, status: 'expired', allowed: false }).status).toMatch(/denied by default/);
    expect(cardText({ ...base, status: 'expired', onTimeout: 'approve', allowed: true }).status).toMatch(
      /approved by default/,
    );
  });

  it('writes the outcome time as the pages write times, not as ISO text', () => {
    const at = new Date('2026-12-01T21:23:40.428Z');
    const approved = { ...base, status: 'approved' as const, respondedBy: 'web:admin', respondedAt: at, allowed: true };
    expect(outcomeText(approved)).toBe('Approved by web:admin at 2026-12-01 21:23:40 UTC');
    expect(outcomeText({ ...base, status: 'expired', respondedAt: at, allowed: false })).toBe(
      'Expired at 2026-12-01 21:23:40 UTC — denied by default',
    );
  });
});

describe('keyArguments', () => {
  it('puts the telling arguments first, masks secrets and cuts long values', () => {
    const args = { note: 'n'.repeat(300), payee: 'ACME', amount: 12.5, token: 'abc', nested: { a: [1, 2] } };
    expect(keyArguments(args)).toEqual([
      ['payee', 'ACME'],
      ['amount', '12.5'],
      ['note', `${'n'.repeat(119)}…`],
      ['token', '••••'],
    ]);
    expect(keyArguments({ command: 'ls\n-la' }, 4, 120)).toEqual([['command', 'ls -la']]);
  });
});

describe("a coding agent's card", () => {
  it('says in one line which agent, where, and what it wants to run: a command as the command, an edit as its path', () => {
    const context = { session_id: 's', cwd: '/srv/billing', repo: 'acme/billing', branch: 'main', model: null };
    const codex = {
      ...base,
      agentKind: 'codex',
      context,
      toolName: 'Bash',
      toolArgs: { command: 'terraform apply\n  -auto-approve' },
    };
    expect(cardText(codex).prompt).toBe('Codex in acme/billing on main wants to run `terraform apply -auto-approve`.');
    const gemini = {
      ...base,
      agentKind: 'gemini',
      context: { ...context, repo: null, branch: null },
      toolName: 'write_file',
      toolArgs: { file_path: '/srv/billing/.env', content: 'x' },
    };
    expect(cardText(gemini).prompt).toBe('Gemini CLI wants to use write_file on `/srv/billing/.env`.');
    // A runtime's own prompt wins, and other callers keep the sentence they had.
    expect(cardText({ ...codex, prompt: 'Apply the plan?' }).prompt).toBe('Apply the plan?');
    expect(cardText(base).prompt).toBe('The agent wants to run `pay_invoice`.');
  });
});
