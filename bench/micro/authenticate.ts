/**
 * @module bench/micro/authenticate
 * `tsx bench/micro/authenticate.ts`: the CPU of one API token authentication on SQLite (`SqliteTokenStore.authenticate`,
 * paid on every API call), 10,000 calls, median of 3 rounds — without a witness (as before row signatures), with the
 * witness remembering the rows it verified, and verifying the row's Ed25519 signature on every call.
 */
import { generateKeyPairSync } from 'node:crypto';
import { Witness } from '../../src/audit/witness.js';
import { RowSeals } from '../../src/audit/witnessed-rows.js';
import { signingKeyOf } from '../../src/signing/key-text.js';
import { openStores } from '../../src/stores/open-store.js';
import type { SqliteTokenStore } from '../../src/stores/sqlite/token-store.js';

const N = 10_000;

async function main() {
  const stores = await openStores(':memory:');
  const tokens = stores.tokens as SqliteTokenStore;
  const witness = new Witness(await signingKeyOf(generateKeyPairSync('ed25519').privateKey), 60);
  tokens.useWitness(witness);
  const { secret } = await tokens.create({ name: 'bench', scopes: ['request:read'] }, new Date());
  const now = new Date();

  async function measure(label: string, setup: () => void) {
    const rounds: number[] = [];
    for (let round = 0; round < 3; round++) {
      setup();
      for (let i = 0; i < 200; i++) await tokens.authenticate(secret, now);
      const start = process.cpuUsage();
      for (let i = 0; i < N; i++) if (!(await tokens.authenticate(secret, now))) throw new Error('refused');
      const used = process.cpuUsage(start);
      rounds.push((used.user + used.system) / N);
    }
    rounds.sort((a, b) => a - b);
    console.log(
      `${label}: median ${rounds[1]!.toFixed(2)} µs CPU per authenticate (${rounds.map((t) => t.toFixed(2))})`,
    );
  }

  await measure('no witness', () => tokens.useWitness(null));
  await measure('witness, verified rows remembered', () => tokens.useWitness(witness));
  await measure('witness, Ed25519 verify every call', () => {
    tokens.useWitness(witness);
    // A checker that forgets: a fresh one per call.
    const store = tokens as unknown as { seals: RowSeals };
    const keys = store.seals.keys;
    store.seals = { why: (...args: Parameters<RowSeals['why']>) => new RowSeals(keys).why(...args) } as RowSeals;
  });
  await stores.close();
}

void main();
