/**
 * A key rotation keeps the rows signed before it valid: a token and an away change signed with the old key still act
 * once that key is retired (trusted, no longer signing), and stop acting when it is dropped from the trusted keys.
 * Also: the signed bytes give each field its own length, so moving text from one field to the next breaks the seal.
 */
import { expect, it } from 'vitest';
import { Witness } from '../../../src/audit/witness.js';
import { tokenRowMessage } from '../../../src/audit/witnessed-rows.js';
import { openStores } from '../../../src/stores/open-store.js';
import { freshKey } from './witnessed.js';

const DAY = 86_400_000;

it('rows signed with a retired key still act; with the key dropped they do not', async () => {
  const stores = await openStores(':memory:');
  const [oldKey, newKey] = [await freshKey(), await freshKey()];
  stores.useWitness(new Witness(oldKey, 60));
  const now = new Date();
  const { secret } = await stores.tokens.create({ name: 'reader', scopes: ['audit:read'] }, now);
  const away = {
    from: new Date(now.getTime() - DAY),
    until: new Date(now.getTime() + DAY),
    delegate: 'bob',
    note: null,
  };
  await stores.away.record({ person: 'alice', away, setBy: 'person:alice', at: now });

  stores.useWitness(new Witness(newKey, 60, [oldKey.publicJwk]));
  expect(await stores.tokens.authenticate(secret, now)).toMatchObject({ name: 'reader' });
  expect((await stores.away.latest()).map((c) => c.away?.delegate)).toEqual(['bob']);

  stores.useWitness(new Witness(newKey, 60));
  expect(await stores.tokens.authenticate(secret, now)).toBeNull();
  expect(await stores.away.latest()).toEqual([]);
  await stores.close();
});

it('each field is signed with its length: text moved between fields is another message', () => {
  const row = {
    id: 't1',
    name: 'ab',
    secretSha256: 'c',
    scopes: ['admin'],
    as: null,
    person: null,
    createdAt: new Date(0),
    expiresAt: null,
    revokedAt: null,
  };
  expect(tokenRowMessage({ ...row, name: 'a', secretSha256: 'bc' }).equals(tokenRowMessage(row))).toBe(false);
  expect(tokenRowMessage({ ...row, as: '' }).equals(tokenRowMessage(row))).toBe(false);
});
