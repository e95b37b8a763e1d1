/**
 * @module bench/micro/people
 * `tsx bench/micro/people.ts`: the CPU the people directory adds to a decision — resolving the tapping account to its
 * person and groups, the request's approvers to people and groups, and the listed / self-approval checks — with a
 * directory of 1,000 people in 100 nested groups, against an approver list of accounts, people and groups.
 */
import { approverSetOf, deciderOf, isListed, requesterPeople } from '../../src/people/approvers.js';
import { loadDirectory } from '../../src/people/config.js';
import { NO_DIRECTORY } from '../../src/people/no-directory.js';

const people = Array.from({ length: 1000 }, (_, i) => ({
  id: `p${i}`,
  email: `p${i}@example.com`,
  accounts: { slack: `U${i}`, web: `p${i}`, feishu: `ou_${i}` },
}));
const groups = Object.fromEntries(
  Array.from({ length: 100 }, (_, g) => [
    `g${g}`,
    [...people.slice(g * 10, g * 10 + 10).map((p) => p.id), ...(g > 0 ? [`group:g${g - 1}`] : [])],
  ]),
);
const directory = loadDirectory({ people, groups }, 'bench');
const approvers = ['slack:U5', 'person:p17', 'group:g40', 'web:p900', 'bob@example.com'];
const request = { userId: 'web:p3', filedByPerson: null, approvers };

/** Microseconds per call of `fn`, best of 5 rounds of `n` calls. */
function perCall(fn: () => unknown, n = 50_000): number {
  let best = Infinity;
  for (let round = 0; round < 5; round++) {
    const start = process.cpuUsage();
    for (let i = 0; i < n; i++) fn();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / n);
  }
  return best;
}

const decision = (d: typeof directory) => () => {
  const decider = deciderOf(d, 'slack:U402');
  return (
    isListed(approverSetOf(d, request.approvers), decider) && !requesterPeople(d, request).includes(decider.person)
  );
};
process.stdout.write(
  `people checks per decision: ${perCall(decision(directory)).toFixed(2)} µs with 1,000 people in 100 nested groups; ${perCall(decision(NO_DIRECTORY)).toFixed(2)} µs with no directory\n`,
);
