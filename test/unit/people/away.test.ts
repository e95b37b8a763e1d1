/** Away windows in the config file (each problem names the file, the entry and what is wrong) and delegation chains. */
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../src/api/errors.js';
import { approverSetOf, discountedVoters } from '../../../src/people/approvers.js';
import { Delegations, delegationCycle, type Away } from '../../../src/people/away.js';
import { loadDirectory } from '../../../src/people/config.js';

const at = (day: number) => new Date(Date.UTC(2026, 11, day));
const away = (delegate: string | null, from = 1, until = 10): Away => ({
  from: at(from),
  until: at(until),
  delegate,
  note: null,
});

/** The ValidationError `people` give, as "path: message" lines. */
function problems(people: unknown[]): string[] {
  try {
    loadDirectory({ people }, 'tollgate.yaml');
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return ((error as ValidationError).errors ?? []).map((p) => `${p.path}: ${p.message}`);
  }
  throw new Error('expected a ValidationError');
}

describe('people[].away in the config file', () => {
  it('reads a window with its delegate', () => {
    const directory = loadDirectory(
      {
        people: [
          { id: 'alice', away: { from: '2026-12-01', until: '2026-12-03', delegate: 'person:bob', note: 'holiday' } },
          { id: 'bob' },
        ],
      },
      'tollgate.yaml',
    );
    expect(directory.person('alice')!.away).toEqual({ from: at(1), until: at(3), delegate: 'bob', note: 'holiday' });
  });

  it('names the file, the entry and what is wrong', () => {
    expect(
      problems([
        { id: 'alice', away: { from: '2026-12-01', until: '2026-12-03', delegate: 'person:zed' } },
        { id: 'bob', away: { from: '2026-12-05', until: '2026-12-03', delegate: 'person:alice' } },
        { id: 'carol', away: { from: '2026-12-01', until: '2026-12-03', delegate: 'bob' } },
        { id: 'dave', away: { from: 'soon', until: '2026-12-03', delegate: 'person:dave' } },
      ]),
    ).toEqual([
      'tollgate.yaml: people[1] "bob".away.until: until must be after from',
      'tollgate.yaml: people[2] "carol".away.delegate: write the delegate as person:<id>',
      'tollgate.yaml: people[3] "dave".away.from: expected a date or time (ISO 8601, e.g. 2026-12-03 or 2026-12-03T09:00:00Z)',
      'tollgate.yaml: people[0] "alice".away.delegate: person:zed: no such person in people:',
    ]);
  });

  it('refuses a cycle of delegations, naming it, and a person delegating to themselves', () => {
    expect(
      problems([
        { id: 'alice', away: { from: '2026-12-01', until: '2026-12-10', delegate: 'person:bob' } },
        { id: 'bob', away: { from: '2026-12-05', until: '2026-12-20', delegate: 'person:alice' } },
        { id: 'carol', away: { from: '2026-12-01', until: '2026-12-10', delegate: 'person:carol' } },
      ]),
    ).toEqual([
      'tollgate.yaml: people[0] "alice".away.delegate: the delegations form a cycle: alice → bob → alice',
      'tollgate.yaml: people[1] "bob".away.delegate: the delegations form a cycle: bob → alice → bob',
      'tollgate.yaml: people[2] "carol".away.delegate: person:carol cannot be their own delegate',
    ]);
    // Windows that do not overlap close no cycle: bob covers alice in early December, alice covers bob later.
    expect(delegationCycle(new Map([['bob', away('alice', 12, 20)]]), 'alice', away('bob', 1, 10))).toBeNull();
  });
});

describe('delegation chains', () => {
  it('follow delegates who are away too, up to three steps, and never back to anyone on the chain', () => {
    const windows = new Map([
      ['alice', away('bob')],
      ['bob', away('carol')],
      ['carol', away('dave')],
      ['dave', away('erin')],
      ['zoe', away(null)],
    ]);
    const now = new Delegations(windows, at(5));
    expect(now.delegatesOf('alice')).toEqual(['bob', 'carol', 'dave']);
    expect(now.absenteesFor('dave')).toEqual(['alice', 'bob', 'carol']);
    expect(now.unattended('zoe')).toBe(true);
    expect(now.unattended('alice')).toBe(false);
    // Outside the windows nobody is away.
    expect(new Delegations(windows, at(10)).delegatesOf('alice')).toEqual([]);
  });
});

describe('a delegate’s approval when a quorum completes', () => {
  const directory = loadDirectory({ people: [{ id: 'alice' }, { id: 'bob' }, { id: 'carol' }] }, 'tollgate.yaml');
  const approvers = approverSetOf(directory, ['person:alice', 'person:carol']);
  const vote = {
    id: 1,
    requestId: 'r',
    type: 'approved' as const,
    actor: 'web:bob',
    channel: 'web',
    detail: { person: 'bob', on_behalf_of: 'alice' },
    at: at(5),
  };

  it('counts while the delegate still stands in for the absentee, and not once the window has ended', () => {
    const during = new Delegations(new Map([['alice', away('bob')]]), at(5));
    expect(discountedVoters(directory, approvers, [vote], 'carol', at(5), during)).toEqual([]);
    const after = new Delegations(new Map([['alice', away('bob')]]), at(11));
    expect(discountedVoters(directory, approvers, [vote], 'carol', at(11), after)).toEqual([
      {
        person: 'bob',
        reason:
          'approved for alice, whom they no longer stand in for (or who is no longer an approver of this request)',
      },
    ]);
  });
});
