/**
 * @module policy/check-people
 * The policy against the people directory: every `person:` and `group:` a rule or an escalation step names must
 * exist, or the policy does not start (nor reload). Checked where both are loaded from the same file.
 */
import { ValidationError } from '../api/errors.js';
import { unknownApprovers } from '../people/approvers.js';
import type { Directory } from '../people/types.js';
import type { Policy } from './types.js';

/**
 * Throws a ValidationError naming the file, the rule (or `default`), the field and the unknown id, e.g.
 * `tollgate.yaml: policies.payments.approvers[1]: group:finanse: no such group in the people directory`.
 */
export function checkPolicyPeople(policy: Policy, directory: Directory): void {
  const problems: { path: string; message: string }[] = [];
  for (const rule of [...policy.rules, policy.default]) {
    const at = rule.name === 'default' ? 'default' : `policies.${rule.name}`;
    problems.push(...unknownApprovers(directory, rule.approvers ?? [], `${at}.approvers`));
    (rule.escalate ?? []).forEach((step, i) =>
      problems.push(...unknownApprovers(directory, step.approvers ?? [], `${at}.escalate[${i}].approvers`)),
    );
  }
  if (!problems.length) return;
  const located = problems.map((p) => ({ path: `${policy.source}: ${p.path}`, message: p.message }));
  throw new ValidationError(located.map((p) => `${p.path}: ${p.message}`).join('; '), located);
}
