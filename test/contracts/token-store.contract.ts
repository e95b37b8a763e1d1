/**
 * The token store contract suite: every {@link TokenStore} (SQLite, PostgreSQL) must pass it. Interface only — no SQL,
 * no driver — with fixed times, so a dialect's test file is a few lines:
 *
 * ```ts
 * runTokenStoreContract({ name: 'sqlite', newStore: async () => ({ store, cleanup }) });
 * ```
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../src/api/errors.js';
import type { TokenStore } from '../../src/tokens/token-store.js';

/** How the suite builds token stores: a fresh, empty, migrated one per test. */
export interface TokenStoreContractSetup {
  name?: string;
  newStore(): Promise<{ store: TokenStore; cleanup(): Promise<void> }>;
}

const T0 = new Date('2026-03-01T12:00:00.000Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

/** Runs the token store contract against the stores `setup.newStore` builds. */
export function runTokenStoreContract(setup: TokenStoreContractSetup): void {
  describe(`token store contract: ${setup.name ?? 'store'}`, () => {
    let store: TokenStore;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ store, cleanup } = await setup.newStore());
    });
    afterEach(async () => {
      await cleanup();
    });

    it('creates a token whose secret is shown once and authenticates as it', async () => {
      const { token, secret } = await store.create(
        { name: 'alice-bridge', scopes: ['request:decide'], as: 'web:alice' },
        T0,
      );
      expect(secret).toMatch(/^tg_[A-Za-z0-9_-]{43}$/);
      expect(token).toEqual({
        id: expect.any(String),
        name: 'alice-bridge',
        scopes: ['request:decide'],
        as: 'web:alice',
        person: null,
        createdAt: T0,
        expiresAt: null,
        revokedAt: null,
      });
      expect(await store.authenticate(secret, at(1))).toEqual({
        id: token.id,
        name: 'alice-bridge',
        scopes: ['request:decide'],
        as: 'web:alice',
        person: null,
      });
      expect(await store.authenticate(`${secret}x`, at(1))).toBeNull();
      expect(JSON.stringify(await store.list())).not.toContain(secret);
    });

    it('keeps the person a token speaks for and authenticates as that person', async () => {
      const { token, secret } = await store.create(
        { name: 'alice-cli', scopes: ['request:decide'], as: 'person:alice', person: 'alice' },
        T0,
      );
      expect(token).toMatchObject({ as: 'person:alice', person: 'alice' });
      expect(await store.authenticate(secret, at(1))).toMatchObject({ id: token.id, person: 'alice' });
      expect((await store.list()).find((t) => t.id === token.id)).toMatchObject({ person: 'alice' });
    });

    it('lists every token oldest first, without secrets', async () => {
      const b = await store.create({ name: 'b', scopes: ['admin'] }, at(1));
      const a = await store.create(
        { name: 'a', scopes: ['request:create', 'request:read'], expiresAt: at(100) },
        at(2),
      );
      expect(await store.list()).toEqual([b.token, a.token]);
      expect(await store.list().then((tokens) => tokens.map((t) => Object.keys(t).sort()))).toEqual([
        ['as', 'createdAt', 'expiresAt', 'id', 'name', 'person', 'revokedAt', 'scopes'],
        ['as', 'createdAt', 'expiresAt', 'id', 'name', 'person', 'revokedAt', 'scopes'],
      ]);
    });

    it('refuses a name in use — also when creates race — with a ConflictError naming it', async () => {
      await store.create({ name: 'agent', scopes: ['request:create'] }, T0);
      await expect(store.create({ name: 'agent', scopes: ['admin'] }, at(1))).rejects.toThrow(ConflictError);
      await expect(store.create({ name: 'agent', scopes: ['admin'] }, at(1))).rejects.toThrow(/agent/);
      const race = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) => store.create({ name: 'raced', scopes: ['admin'] }, at(i))),
      );
      expect(race.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of race) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConflictError);
      expect((await store.list()).map((t) => t.name)).toEqual(['agent', 'raced']);
    });

    it('stops authenticating at expiry', async () => {
      const { secret } = await store.create({ name: 'short', scopes: ['request:read'], expiresAt: at(60) }, T0);
      expect(await store.authenticate(secret, at(59))).not.toBeNull();
      expect(await store.authenticate(secret, at(60))).toBeNull();
    });

    it('revokes at once, keeps the first revocation time, and refuses an unknown id', async () => {
      const { token, secret } = await store.create({ name: 'gone', scopes: ['admin'] }, T0);
      await store.revoke(token.id, at(10));
      expect(await store.authenticate(secret, at(11))).toBeNull();
      await store.revoke(token.id, at(20));
      expect((await store.list())[0]).toMatchObject({ id: token.id, revokedAt: at(10) });
      await expect(store.revoke('019ca945-2558-7021-896a-c2c0d2fb7767', at(30))).rejects.toThrow(NotFoundError);
    });
  });
}
