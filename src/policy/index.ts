/**
 * @module policy
 * Server-side approval policy: rules in the YAML config decide, per request, allow / deny / ask and who approves.
 */
export { compileWhen, ExpressionError, WHEN_VARIABLES, type CompiledWhen, type WhenContext } from './expression.js';
export { loadPolicy, type PolicySections } from './load.js';
export { matchPolicy, whenContext } from './match.js';
export { policyDetail, routeByRule, settleAtFiling, type Settlement } from './apply.js';
export {
  emptyPolicy,
  type DefaultRule,
  type Policy,
  type PolicyDecision,
  type PolicyFacts,
  type PolicyMatch,
  type PolicyRule,
} from './types.js';
