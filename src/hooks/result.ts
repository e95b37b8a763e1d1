/**
 * @module hooks/result
 * Turns whatever a handler returned into a checked {@link HookResult}. A malformed result is treated as a
 * handler failure, so on `tool:pre` it fails closed like a throw would.
 */
import { isHookAction } from './precedence.js';
import type { HookResult } from './types.js';

/** Thrown (and then handled by the failure policy) when a handler returns something that is not a HookResult. */
export class InvalidHookResultError extends Error {
  override name = 'InvalidHookResultError';
}

const ROLES = ['system', 'user', 'assistant'];
const LEVELS = ['info', 'warning', 'error'];

/** Checks a handler's return value; `undefined`/`null` become `{ action: 'continue' }`. */
export function normalizeHookResult(value: unknown): HookResult & { action: NonNullable<HookResult['action']> } {
  if (value === undefined || value === null) return { action: 'continue' };
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidHookResultError(`a hook must return a HookResult object or nothing, got ${typeof value}`);
  }
  const result = value as HookResult;
  const action = result.action ?? 'continue';
  if (!isHookAction(action)) throw new InvalidHookResultError(`unknown hook action ${JSON.stringify(action)}`);
  if (result.reason !== undefined && typeof result.reason !== 'string')
    throw new InvalidHookResultError('reason must be a string');
  if (action === 'inject_context' && typeof result.contextInjection !== 'string') {
    throw new InvalidHookResultError('inject_context needs a contextInjection string');
  }
  if (result.contextInjectionRole !== undefined && !ROLES.includes(result.contextInjectionRole)) {
    throw new InvalidHookResultError(`contextInjectionRole must be one of ${ROLES.join(', ')}`);
  }
  if (result.userMessageLevel !== undefined && !LEVELS.includes(result.userMessageLevel)) {
    throw new InvalidHookResultError(`userMessageLevel must be one of ${LEVELS.join(', ')}`);
  }
  if (
    result.sideEffects !== undefined &&
    !(Array.isArray(result.sideEffects) && result.sideEffects.every((s) => typeof s === 'string'))
  ) {
    throw new InvalidHookResultError('sideEffects must be an array of strings');
  }
  return { ...result, action };
}
