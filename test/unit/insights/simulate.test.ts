/**
 * The replay itself (`insights/simulate.ts`) on rows made here: a candidate that matches a coding agent's kind and
 * repository sees them (they used to be left out of the facts, so such a rule matched nothing), routing changes are
 * counted only where a rule routes, and a row's arguments are decoded only when a rule reads them.
 */
import { describe, expect, it } from 'vitest';
import { loadCandidate, simulate } from '../../../src/insights/simulate.js';
import type { ReplayRow } from '../../../src/insights/types.js';

const WINDOW = { since: new Date('2026-03-01T00:00:00.000Z'), until: new Date('2026-03-02T00:00:00.000Z') };

function row(i: number, extra: Partial<ReplayRow> = {}): ReplayRow {
  return {
    id: `r${i}`,
    toolName: 'Bash',
    toolArgs: { command: 'ls' },
    agentId: 'ops',
    userId: null,
    sessionId: null,
    agentKind: null,
    context: null,
    metadata: {},
    approvers: ['web:alice'],
    requiredApprovals: 1,
    status: 'approved',
    respondedVia: 'web',
    respondedByPerson: 'alice',
    reason: null,
    createdAt: new Date(WINDOW.since.getTime() + i * 1000).toISOString(),
    ...extra,
  };
}

const where = (repo: string | null) => ({ session_id: null, cwd: '/src', repo, branch: 'main', model: null });

async function* pages(rows: ReplayRow[], size = 2): AsyncIterable<readonly ReplayRow[]> {
  for (let i = 0; i < rows.length; i += size) yield rows.slice(i, i + size);
}

describe('simulate', () => {
  it('matches agent_kind and repo, and lists the denied calls such a rule would allow', async () => {
    const candidate = loadCandidate(`policies:
  - name: claude-in-acme
    match: { agent_kind: claude, repo: "acme/*" }
    decision: allow
`);
    const rows = [
      row(1, { agentKind: 'claude', context: where('acme/api') }),
      row(2, {
        agentKind: 'claude',
        context: where('acme/web'),
        status: 'denied',
        respondedByPerson: 'bob',
        reason: 'not now',
      }),
      row(3, { agentKind: 'claude', context: where('other/repo') }),
      row(4, { agentKind: 'codex', context: where('acme/api') }),
      row(5),
    ];
    const report = await simulate(candidate, pages(rows), WINDOW);
    expect(report.would).toEqual({ auto_allow: 2, auto_deny: 0, ask: 3 });
    expect(report.by_rule).toEqual({ 'claude-in-acme': 2, default: 3 });
    expect(report.denied_but_would_allow).toEqual([
      {
        id: 'r2',
        tool_name: 'Bash',
        agent_id: 'ops',
        responded_by_person: 'bob',
        reason: 'not now',
        rule: 'claude-in-acme',
        created_at: rows[1]!.createdAt,
      },
    ]);
  });

  it('counts a routing change only where the rule names approvers or a quorum', async () => {
    const candidate = loadCandidate(`policies:
  - name: two-people
    match: { tool: deploy }
    required_approvals: 2
  - name: same-people
    match: { tool: Bash }
    approvers: ["web:alice"]
`);
    const report = await simulate(
      candidate,
      pages([row(1, { toolName: 'deploy' }), row(2), row(3, { approvers: ['web:bob'] })]),
      WINDOW,
    );
    expect(report.changed).toEqual({ auto_allow: 0, auto_deny: 0, ask: 0, rerouted: 2 });
  });

  it("decodes a row's arguments only when a rule reads them", async () => {
    const candidate = loadCandidate(`policies:
  - name: reads
    match: { tool: read_file, when: 'args.path.startsWith("/srv")' }
    decision: allow
`);
    const untouchable = row(1);
    Object.defineProperty(untouchable, 'toolArgs', {
      get: () => {
        throw new Error('decoded');
      },
    });
    const report = await simulate(
      candidate,
      pages([untouchable, row(2, { toolName: 'read_file', toolArgs: { path: '/srv/a' } })]),
      WINDOW,
    );
    expect(report.would).toEqual({ auto_allow: 1, auto_deny: 0, ask: 1 });
  });

  it('counts as changed.ask each request a rule or a grant settled at once that the candidate would ask a person about', async () => {
    const candidate = loadCandidate(`policies:
  - name: reads
    match: { tool: Read }
    decision: allow
`);
    const rows = [
      row(1, { respondedVia: 'policy', status: 'approved', respondedByPerson: null }), // auto-allowed, now asked
      row(2, { respondedVia: 'policy', status: 'denied', respondedByPerson: null }), // auto-denied, now asked
      row(3, { respondedVia: 'grant', status: 'approved', respondedByPerson: null }), // a grant, now asked
      row(4), // asked then, asked now: no change
      row(5, { toolName: 'Read', respondedVia: 'policy', status: 'approved', respondedByPerson: null }), // unchanged
    ];
    const report = await simulate(candidate, pages(rows), WINDOW);
    expect(report.would).toEqual({ auto_allow: 1, auto_deny: 0, ask: 4 });
    expect(report.changed).toEqual({ auto_allow: 0, auto_deny: 0, ask: 3, rerouted: 0 });
  });
});
