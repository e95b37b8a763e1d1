/**
 * @module hooks/precedence
 * The one place that ranks hook actions: `deny > ask_user > inject_context > modify > continue`.
 * Blocking actions outrank information-flow ones so that no injection or rewrite can hide a gate.
 */
import type { HookAction } from './types.js';

/** Every action, strongest first. */
export const ACTION_PRECEDENCE: readonly HookAction[] = ['deny', 'ask_user', 'inject_context', 'modify', 'continue'];

/** A number for `action`: higher wins. */
export function actionRank(action: HookAction): number {
  return ACTION_PRECEDENCE.length - ACTION_PRECEDENCE.indexOf(action);
}

/** The stronger of two actions. */
export function strongerAction(a: HookAction, b: HookAction): HookAction {
  return actionRank(b) > actionRank(a) ? b : a;
}

/** The strongest of any number of actions; `continue` for none. */
export function resolveActions(actions: Iterable<HookAction>): HookAction {
  let best: HookAction = 'continue';
  for (const action of actions) best = strongerAction(best, action);
  return best;
}

/** Whether `value` names an action. */
export function isHookAction(value: unknown): value is HookAction {
  return typeof value === 'string' && (ACTION_PRECEDENCE as readonly string[]).includes(value);
}
