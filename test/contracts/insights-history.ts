/**
 * A seeded history for the insights tests whose right answers are known: each request is a spec (when filed, when
 * its cards were delivered, who decided how and when), written through the store's own interface, and the answers
 * (counts, rates, nearest-rank percentiles, fast approvals, days) are worked out here from the specs in plain code,
 * never read back from the SQL under test.
 */
import { settleAtFiling } from '../../src/policy/apply.js';
import type { ConfirmationStore } from '../../src/requests/store.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { file, newRequest } from './store-fixtures.js';

/** The window the tests ask about: three UTC days. */
export const SINCE = new Date('2026-03-01T00:00:00.000Z');
export const UNTIL = new Date('2026-03-04T00:00:00.000Z');

type Outcome = 'approve' | 'deny' | 'expire' | 'cancel' | 'pending' | 'policy';

/** One seeded request. Times are ms after its filing. */
export interface HistorySpec {
  createdAt: Date;
  tool: string;
  agent: string;
  /** The coding agent that asked, and the repository it worked in (null: an ordinary caller, or no repo known). */
  agentKind: string | null;
  repo: string | null;
  /** When its cards were delivered (none: decided before any card went out). */
  deliveries: number[];
  outcome: Outcome;
  /** When the verdict came (approve, deny, expire, cancel). */
  verdictAfter: number;
  /** The deciding account and its person (approve, deny). */
  actor: string;
  person: string;
  edited: boolean;
  /** The call summary's risk (null: filed before summaries). */
  risk: 'low' | 'medium' | 'high' | null;
}

const PEOPLE: [actor: string, person: string][] = [
  ['slack:U1', 'alice'],
  ['web:alice', 'alice'],
  ['web:bob', 'bob'],
  ['slack:U3', 'carol'],
];

/** The directory the group tests use: alice and bob lead, bob and carol are on call (bob in both). */
export const GROUPS: Record<string, string[]> = { leads: ['alice', 'bob'], oncall: ['bob', 'carol'] };

/** Thirty-odd requests over the three days, varied in every dimension; two outside the window. */
export function historySpecs(): HistorySpec[] {
  const specs: HistorySpec[] = [];
  for (let i = 0; i < 36; i++) {
    const outcome: Outcome =
      i === 35
        ? 'pending'
        : i === 12
          ? 'policy'
          : i % 7 === 3
            ? 'expire'
            : i % 11 === 5
              ? 'cancel'
              : i % 6 === 1
                ? 'deny'
                : 'approve';
    const first = (i % 4) * 150 + 20;
    // Delivered once, twice (a second card later), never, or only after the verdict (which then counts from filing).
    const delay = ((i * i * 137) % 20_000) + 200;
    const deliveries =
      i % 5 === 4 ? [] : i === 8 ? [first + delay + 5000] : i % 3 === 0 ? [first + 1000, first] : [first];
    const [actor, person] = PEOPLE[i % 4]!;
    specs.push({
      createdAt: new Date(SINCE.getTime() + (i % 3) * 86_400_000 + 3_600_000 + i * 60_000),
      tool: ['deploy', 'pay_invoice', 'read_file'][i % 3]!,
      agent: i % 2 ? 'ops' : 'billing',
      // Some calls from coding agents (a few outside any repository), the rest from ordinary callers.
      agentKind: i % 5 === 0 ? null : i % 5 < 3 ? 'claude' : 'codex',
      repo: i % 5 === 0 || i % 7 === 6 ? null : ['acme/api', 'acme/web'][i % 2]!,
      deliveries,
      outcome,
      verdictAfter: outcome === 'expire' ? 3_600_000 : (deliveries.length && i !== 8 ? first : 0) + delay,
      actor,
      person,
      edited: outcome === 'approve' && i % 5 === 2,
      risk: i % 4 === 3 ? null : (['low', 'medium', 'high'] as const)[i % 3]!,
    });
  }
  // Outside the window: the hour before it, and its end itself (the window is [since, until)).
  const outside = {
    tool: 'deploy',
    agent: 'ops',
    agentKind: 'claude',
    repo: 'acme/api',
    deliveries: [10],
    outcome: 'approve' as const,
    verdictAfter: 500,
    actor: 'slack:U1',
    person: 'alice',
    edited: false,
    risk: 'high' as const,
  };
  specs.push({ ...outside, createdAt: new Date(SINCE.getTime() - 3_600_000) }, { ...outside, createdAt: UNTIL });
  return specs;
}

/** Writes `specs` through the store's interface, as the gateway would have. */
export async function seedHistory(store: ConfirmationStore, specs: HistorySpec[]): Promise<ConfirmationRequest[]> {
  const rows: ConfirmationRequest[] = [];
  for (const [i, s] of specs.entries()) {
    const context = s.agentKind
      ? { session_id: `s${i}`, cwd: '/src', repo: s.repo, branch: 'main', model: null }
      : undefined;
    const input = {
      toolName: s.tool,
      agentId: s.agent,
      toolArgs: { n: i },
      timeoutS: 3600,
      ...(s.agentKind ? { agentKind: s.agentKind, context } : {}),
      ...(s.risk ? { summary: { kind: 'other' as const, risk: s.risk, risk_reasons: [], truncated: false } } : {}),
    };
    const at = (ms: number) => new Date(s.createdAt.getTime() + ms);
    if (s.outcome === 'policy') {
      const { request, event } = settleAtFiling(newRequest(input, s.createdAt), {
        decision: 'approve',
        actor: 'policy:reads',
        via: 'policy',
        reason: null,
        detail: {},
      });
      rows.push((await store.create(request, [], { events: [event] })).request);
      continue;
    }
    const row = await file(store, input, s.createdAt);
    rows.push(row);
    for (const ms of s.deliveries)
      await store.appendEvent(row.id, {
        type: 'delivered',
        actor: null,
        channel: 'slack',
        detail: { target: 'C1' },
        at: at(ms),
      });
    if (s.outcome === 'approve' || s.outcome === 'deny') {
      const via = s.actor.split(':')[0]!;
      const approvedArgs = s.edited ? { n: i, edited: true } : null;
      const result = await store.decide(row.id, {
        decision: s.outcome,
        actor: s.actor,
        person: s.person,
        via,
        reason: null,
        option: null,
        approvedArgs,
        at: at(s.verdictAfter),
      });
      if (result.kind !== 'final') throw new Error(`seed: vote on ${i} was ${result.kind}`);
    } else if (s.outcome === 'expire') {
      await store.finish(row.id, 'expired', { actor: null, channel: null, detail: {}, at: at(s.verdictAfter) });
    } else if (s.outcome === 'cancel') {
      await store.finish(row.id, 'cancelled', {
        actor: 'api:agent',
        channel: 'api',
        detail: {},
        at: at(s.verdictAfter),
      });
    }
  }
  return rows;
}

/** The value at rank ⌈p·n⌉ of `values` (nearest rank), null for none. */
export function nearestRank(values: number[], p: number): number | null {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.ceil(p * sorted.length) - 1]!;
}

const inWindow = (s: HistorySpec) => s.createdAt >= SINCE && s.createdAt < UNTIL;
const human = (s: HistorySpec) => s.outcome === 'approve' || s.outcome === 'deny';
const statusOf = (s: HistorySpec) =>
  ({
    approve: 'approved',
    policy: 'approved',
    deny: 'denied',
    expire: 'expired',
    cancel: 'cancelled',
    pending: 'pending',
  })[s.outcome];

/** Time to decision of a request a person decided: from its first delivery before the verdict, else from filing. */
function decisionMs(s: HistorySpec): number {
  const before = s.deliveries.filter((d) => d <= s.verdictAfter);
  return s.verdictAfter - (before.length ? Math.min(...before) : 0);
}

/** The keys a spec counts under for each dimension (a person in two groups counts in both; none: left out). */
function keysOf(s: HistorySpec, by: string): (string | null)[] {
  const person = human(s) ? s.person : null;
  if (by === 'tool') return [s.tool];
  if (by === 'agent') return [s.agent];
  if (by === 'agent_kind') return [s.agentKind];
  if (by === 'repo') return [s.agentKind ? s.repo : null];
  if (by === 'person') return [person];
  if (by === 'approver') return [human(s) ? s.actor : null];
  if (by === 'risk') return [s.risk];
  if (by === 'day') return [s.createdAt.toISOString().slice(0, 10)];
  if (by === 'channel')
    return [
      human(s) ? s.actor.split(':')[0]! : s.outcome === 'policy' ? 'policy' : s.outcome === 'cancel' ? 'api' : null,
    ];
  return Object.entries(GROUPS)
    .filter(([, people]) => person !== null && people.includes(person))
    .map(([group]) => group);
}

/** The rows `GET /v1/insights?by=` must answer for `specs`, in its order. */
export function expectedRows(specs: HistorySpec[], by: string) {
  const groups = new Map<string | null, HistorySpec[]>();
  for (const s of specs.filter(inWindow))
    for (const key of keysOf(s, by)) groups.set(key, [...(groups.get(key) ?? []), s]);
  const rows = [...groups].map(([key, members]) => {
    const count = (status: string) => members.filter((s) => statusOf(s) === status).length;
    const [approved, denied, expired] = [count('approved'), count('denied'), count('expired')];
    const humanApprovals = members.filter((s) => s.outcome === 'approve');
    const times = members.filter(human).map(decisionMs);
    return {
      key,
      requests: members.length,
      approved,
      denied,
      expired,
      approval_rate: approved + denied ? approved / (approved + denied) : null,
      edited_rate: approved ? members.filter((s) => s.edited).length / approved : null,
      expired_rate: expired / members.length,
      decision_ms: { p50: nearestRank(times, 0.5), p90: nearestRank(times, 0.9), p99: nearestRank(times, 0.99) },
      fast_approvals:
        (by === 'person' || by === 'approver') && humanApprovals.length
          ? humanApprovals.filter((s) => decisionMs(s) <= 3000).length / humanApprovals.length
          : null,
    };
  });
  return rows.sort(
    (a, b) =>
      b.requests - a.requests ||
      (a.key === null ? 1 : b.key === null ? -1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0),
  );
}

/** The totals and daily series for `specs`. */
export function expectedDays(specs: HistorySpec[]) {
  const within = specs.filter(inWindow);
  const count = (list: HistorySpec[], status: string) => list.filter((s) => statusOf(s) === status).length;
  const totals = {
    requests: within.length,
    approved: count(within, 'approved'),
    denied: count(within, 'denied'),
    expired: count(within, 'expired'),
    cancelled: count(within, 'cancelled'),
  };
  const series = ['2026-03-01', '2026-03-02', '2026-03-03'].map((day) => {
    const on = within.filter((s) => s.createdAt.toISOString().startsWith(day));
    return {
      day,
      requests: on.length,
      approved: count(on, 'approved'),
      denied: count(on, 'denied'),
      expired: count(on, 'expired'),
    };
  });
  return { totals, series };
}

/** A row's time-to-decision percentiles, as answered. */
type Percentiles = { p50: number | null; p90: number | null; p99: number | null };

/**
 * Checks that `actual`'s rows equal `expected`'s but for their percentiles, each within `error` (relative) of the
 * exact one, and returns `actual` with the exact percentiles in, for a `toEqual` of everything else.
 */
export function withinError<R extends { key: string | null; decision_ms: Percentiles }>(
  actual: R[],
  expected: { key: string | null; decision_ms: Percentiles }[],
  error: number,
): R[] {
  return actual.map((row, i) => {
    const exact = expected[i];
    if (!exact || exact.key !== row.key) return row;
    for (const p of ['p50', 'p90', 'p99'] as const) {
      const [a, e] = [row.decision_ms[p], exact.decision_ms[p]];
      if (a === null || e === null) {
        if (a !== e) throw new Error(`${String(row.key)} ${p}: ${a} where the exact answer is ${e}`);
      } else if (Math.abs(a - e) > error * e + 1e-9) {
        throw new Error(`${String(row.key)} ${p}: ${a} is more than ${error * 100} % from the exact ${e}`);
      }
    }
    return { ...row, decision_ms: exact.decision_ms };
  });
}
