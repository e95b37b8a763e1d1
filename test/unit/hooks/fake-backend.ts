// An in-test ApprovalBackend: the contract is ours, so this is a fake of our own interface, driven by the test.
import type { ApprovalBackend, ApprovalRequestInput, ApprovalVerdict } from '../../../src/hooks/index.js';

export interface FakeBackend extends ApprovalBackend {
  /** Every input the gate filed, in order. */
  readonly asked: ApprovalRequestInput[];
  /** Decides the next (or a waiting) ask. */
  answer(verdict: ApprovalVerdict): void;
  /** Makes the next `n` asks fail with `error`. */
  failNext(n: number, error: Error): void;
}

export function fakeBackend(): FakeBackend {
  const asked: ApprovalRequestInput[] = [];
  const waiting: ((v: ApprovalVerdict) => void)[] = [];
  const ready: ApprovalVerdict[] = [];
  let failures: { n: number; error: Error } = { n: 0, error: new Error('none') };
  return {
    asked,
    answer(verdict) {
      const next = waiting.shift();
      if (next) next(verdict);
      else ready.push(verdict);
    },
    failNext(n, error) {
      failures = { n, error };
    },
    requestAndWait(input, signal) {
      asked.push(input);
      if (failures.n > 0) {
        failures.n--;
        return Promise.reject(failures.error);
      }
      const now = ready.shift();
      if (now) return Promise.resolve(now);
      return new Promise((resolve, reject) => {
        waiting.push(resolve);
        signal?.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
      });
    },
  };
}
