/**
 * @module hooks/invoke
 * Calls one registered handler under its timeout and turns every way it can end into a value, so the
 * pipeline decides what a failure means (fail closed on `tool:pre`, skip elsewhere) in one place.
 */
import type { Clock } from '../utils/clock.js';
import { normalizeHookResult } from './result.js';
import type { HookContext, HookHandler, HookResult } from './types.js';

/** One handler as registered at one point. */
export interface Registration {
  /** Name used in logs, side effects and denial reasons. */
  name: string;
  /** The point it is registered at. */
  point: string;
  /** Lower runs earlier. */
  priority: number;
  /** Global registration order, to break priority ties stably. */
  seq: number;
  /** On `tool:pre`, let the call through when this handler throws or times out. */
  failOpen: boolean;
  /** Per-call timeout in ms; 0 = none. */
  timeoutMs: number;
  /** The hook itself. */
  handler: HookHandler;
}

/** How one handler call ended. */
export type Invocation =
  | { kind: 'skipped' }
  | { kind: 'result'; result: HookResult & { action: NonNullable<HookResult['action']> } }
  | { kind: 'failed'; error: Error; timedOut: boolean };

/** Thrown into the pipeline when a handler takes longer than its timeout. */
export class HookTimeoutError extends Error {
  override name = 'HookTimeoutError';
}

/** Runs `registration` against `context`. Never throws. */
export async function invokeHandler(
  registration: Registration,
  context: HookContext,
  clock: Clock,
): Promise<Invocation> {
  const { handler } = registration;
  try {
    if (typeof handler !== 'function' && handler.shouldTrigger) {
      const trigger = await withTimeout(Promise.resolve(handler.shouldTrigger(context)), registration, clock);
      if (!trigger) return { kind: 'skipped' };
    }
    const pending = typeof handler === 'function' ? handler(context) : handler.execute(context);
    const raw = await withTimeout(Promise.resolve(pending), registration, clock);
    return { kind: 'result', result: normalizeHookResult(raw) };
  } catch (err) {
    const error = err instanceof Error ? err : new Error(String(err));
    return { kind: 'failed', error, timedOut: error instanceof HookTimeoutError };
  }
}

function withTimeout<T>(promise: Promise<T>, registration: Registration, clock: Clock): Promise<T> {
  if (!(registration.timeoutMs > 0)) return promise;
  return new Promise<T>((resolve, reject) => {
    const timer = clock.setTimeout(
      () => reject(new HookTimeoutError(`hook "${registration.name}" timed out after ${registration.timeoutMs} ms`)),
      registration.timeoutMs,
    );
    promise.then(
      (value) => {
        timer.cancel();
        resolve(value);
      },
      (error: unknown) => {
        timer.cancel();
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
