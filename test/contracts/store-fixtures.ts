/**
 * Fixtures of the store contract suite: requests made the way the gateway makes them (`newConfirmationRequest`),
 * on fixed times, so every dialect sees the same rows and no test sleeps.
 */
import { argsSha256 } from '../../src/requests/args-hash.js';
import { newConfirmationRequest, type GatewayDefaults, type NewRequestInput } from '../../src/requests/new-request.js';
import type { ConfirmationStore, Vote } from '../../src/requests/store.js';
import type { ConfirmationRequest, Decision } from '../../src/requests/types.js';

/** One store under test and how to throw it away. */
export interface StoreHarness {
  store: ConfirmationStore;
  /** Removes whatever the store left behind; must work whether or not the test closed the store already. */
  cleanup(): Promise<void>;
}

/** How the suite builds stores: a fresh, empty, migrated store per test. */
export interface StoreContractSetup {
  /** Shown in the suite's name (`sqlite`, `postgres`). */
  name?: string;
  newStore(): Promise<StoreHarness>;
}

/** The time every fixture starts from. */
export const T0 = new Date('2026-03-01T12:00:00.000Z');

/** `T0` plus `seconds`. */
export const at = (seconds: number): Date => new Date(T0.getTime() + seconds * 1000);

const DEFAULTS: GatewayDefaults = {
  timeoutS: 300,
  channels: [{ type: 'web' }],
  options: ['Approve', 'Deny'],
  onTimeout: 'deny',
};

/** A new pending request filed at `createdAt`, with the gateway's own constructor. */
export function newRequest(input: Partial<NewRequestInput> = {}, createdAt: Date = T0): ConfirmationRequest {
  const toolName = input.toolName ?? 'pay_invoice';
  const toolArgs = input.toolArgs ?? { invoice: 'INV-7', amount: 1200 };
  return newConfirmationRequest(
    { ...input, toolName, toolArgs },
    DEFAULTS,
    input.channels ?? DEFAULTS.channels,
    argsSha256(toolName, toolArgs),
    createdAt,
  );
}

/** Creates a request (asserting it is new) and returns the stored row. */
export async function file(
  store: ConfirmationStore,
  input: Partial<NewRequestInput> = {},
  createdAt: Date = T0,
  cards: { channel: string; target: string; sent?: boolean }[] = [],
): Promise<ConfirmationRequest> {
  const result = await store.create(newRequest(input, createdAt), cards);
  if (!result.created) throw new Error('fixture: expected a new row');
  return result.request;
}

/** A vote by `actor`, cast `seconds` after `T0`. */
export function vote(actor: string, decision: Decision = 'approve', seconds = 10, extra: Partial<Vote> = {}): Vote {
  return {
    decision,
    actor,
    via: actor.split(':')[0] ?? 'api',
    reason: null,
    option: null,
    approvedArgs: null,
    at: at(seconds),
    ...extra,
  };
}

/** Rows in the audit query's order: newest first, ties by id descending. */
export function newestFirst(rows: ConfirmationRequest[]): string[] {
  return [...rows]
    .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .map((r) => r.id);
}
