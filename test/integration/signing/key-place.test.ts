/**
 * Where the signing key lives, on a running gateway. SQLite: a key file beside the database (0600), the same key on
 * every start and for two processes starting at once, no private key in the database; an older database's key moved out and kept verifiable. PostgreSQL
 * with nothing configured: the key in the database, and the start-up log and `/readyz` say a database writer can
 * forge; with `TOLLGATE_SIGNING_KEY_FILE` they name the file instead.
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader } from 'jose';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { newDeploymentSecret } from '../../../src/contracts/deployment-secrets.js';
import { createServer, type TollgateServer } from '../../../src/server.js';
import { keyFilePath, retiredFilePath } from '../../../src/signing/key-file.js';
import { KEY_IN_DATABASE_WARNING, keyFromSeed } from '../../../src/signing/keys.js';
import { Database } from '../../../src/stores/sqlite/driver.js';
import { startChildGateway } from '../../helpers/child-gateway.js';
import { freshDatabase, withClient, type FreshDatabase } from '../postgres/fresh-database.js';

const TOKEN = 'key-place-token';
let dir: string;
const running: TollgateServer[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-key-place-'));
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

/** A gateway on `db` whose log lines are kept. */
async function start(db: string, env: Record<string, string> = {}) {
  const lines: { level: number; msg: string }[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  const server = await createServer({
    config: loadConfig({ port: 0, db }, { TOLLGATE_API_TOKENS: TOKEN, ...env }),
    logger,
  });
  running.push(server);
  const { url } = await server.listen();
  const api = (path: string, body?: unknown) =>
    fetch(`${url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  return {
    lines,
    api,
    async approve(): Promise<string> {
      const { id } = (await (await api('/v1/requests', { tool_name: 'deploy', tool_args: {} })).json()) as {
        id: string;
      };
      const decided = await api(`/v1/requests/${id}/decision`, { decision: 'approve', approver: 'web:alice' });
      return ((await decided.json()) as { verdict_token: string }).verdict_token;
    },
    async signingDetail(): Promise<string> {
      const ready = (await (await api('/readyz')).json()) as { checks: Record<string, { detail: string }> };
      return ready.checks.signing!.detail;
    },
    async kids(): Promise<string[]> {
      return ((await (await api('/.well-known/jwks.json')).json()) as { keys: { kid: string }[] }).keys.map(
        (k) => k.kid,
      );
    },
    close: () => server.close(),
  };
}

const verdictSecrets = (db: string) => {
  const sqlite = new Database(db, { readonly: true });
  try {
    return sqlite.prepare("SELECT count(*) FROM deployment_secrets WHERE name = 'verdict_signing'").pluck().get();
  } finally {
    sqlite.close();
  }
};

describe('the signing key of a SQLite gateway', () => {
  it('is a file beside the database: the same key on the next start, none in the database', async () => {
    const db = join(dir, 'tollgate.db');
    const first = await start(db);
    const kid = decodeProtectedHeader(await first.approve()).kid;
    expect(await first.signingDetail()).toBe(`signing key in ${keyFilePath(db)}; kid ${kid}`);
    expect(first.lines.map((l) => l.msg)).toContain(`signing key in ${keyFilePath(db)}; kid ${kid}`);
    await first.close();
    expect(statSync(keyFilePath(db)).mode & 0o777).toBe(0o600);

    const second = await start(db);
    expect(decodeProtectedHeader(await second.approve()).kid).toBe(kid);
    expect(await second.kids()).toEqual([kid]);
    expect(verdictSecrets(db)).toBe(0);
  });

  it('is the same key for two processes starting on one new database at once', async () => {
    const db = join(dir, 'shared.db');
    const gateways = await Promise.all([startChildGateway(db), startChildGateway(db)]);
    try {
      const jwks = await Promise.all(
        gateways.map(async (g) => (await (await fetch(`${g.url}/.well-known/jwks.json`)).json()) as object),
      );
      expect(jwks[1]).toEqual(jwks[0]);
      expect(statSync(keyFilePath(db)).mode & 0o777).toBe(0o600);
    } finally {
      await Promise.all(gateways.map((g) => g.kill()));
    }
  }, 90_000);

  it("moves an older database's key out of it, signs with the file from then on, and keeps the old key published", async () => {
    const db = join(dir, 'tollgate.db');
    await (await start(db)).close();
    // What a database from before key files looks like: its key in deployment_secrets, no file beside it.
    unlinkSync(keyFilePath(db));
    const seed = newDeploymentSecret();
    const sqlite = new Database(db);
    sqlite
      .prepare("INSERT INTO deployment_secrets (name, value, created_at) VALUES ('verdict_signing', ?, ?)")
      .run(seed, new Date().toISOString());
    sqlite.close();
    const old = await keyFromSeed(seed);

    const upgraded = await start(db);
    const kid = decodeProtectedHeader(await upgraded.approve()).kid;
    expect(kid).not.toBe(old.kid);
    expect(await upgraded.kids()).toEqual([kid, old.kid]);
    expect(verdictSecrets(db)).toBe(0);
    expect(existsSync(retiredFilePath(db))).toBe(true);
    expect(upgraded.lines.filter((l) => l.msg.startsWith('signing key moved out of the database'))).toHaveLength(1);
    await upgraded.close();

    const again = await start(db);
    expect(await again.kids()).toEqual([kid, old.kid]);
    expect(again.lines.filter((l) => l.msg.startsWith('signing key moved out'))).toEqual([]);
  });
});

describe('the signing key of a PostgreSQL gateway', () => {
  let database: FreshDatabase;
  beforeAll(async () => {
    database = await freshDatabase({ migrate: true });
  });
  afterAll(() => database?.drop());

  it('is in the database with nothing configured, and the start-up log and /readyz say a writer can forge', async () => {
    const gateway = await start(database.url);
    const kid = decodeProtectedHeader(await gateway.approve()).kid;
    const said = `${KEY_IN_DATABASE_WARNING} (set TOLLGATE_SIGNING_KEY_FILE to keep it outside); kid ${kid}`;
    expect(await gateway.signingDetail()).toBe(said);
    expect(gateway.lines.filter((l) => l.msg === said).map((l) => l.level)).toEqual([40]);
    const stored = await withClient(database.url, async (c) =>
      Number((await c.query("SELECT count(*) FROM deployment_secrets WHERE name = 'verdict_signing'")).rows[0].count),
    );
    expect(stored).toBe(1);
  });

  it('names the file with TOLLGATE_SIGNING_KEY_FILE, and warns of nothing', async () => {
    const file = join(dir, 'signing.pem');
    const pem = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    writeFileSync(file, pem, { mode: 0o600 });
    const gateway = await start(database.url, { TOLLGATE_SIGNING_KEY_FILE: file });
    const kid = decodeProtectedHeader(await gateway.approve()).kid;
    expect(await gateway.signingDetail()).toBe(`signing key in TOLLGATE_SIGNING_KEY_FILE ${file}; kid ${kid}`);
    expect(gateway.lines.filter((l) => l.msg.includes(KEY_IN_DATABASE_WARNING))).toEqual([]);
  });
});
