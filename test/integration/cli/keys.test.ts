/**
 * `tollgate keys export` writes the JWKS a verifier pins (what the gateway serves, read without changing anything);
 * `tollgate keys rotate` gives a SQLite deployment a new key file and keeps the old key verifiable beside it, and
 * refuses keys it does not keep (a setting, PostgreSQL).
 */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeProtectedHeader } from 'jose';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli/main.js';
import { keyFilePath, retiredFilePath } from '../../../src/signing/key-file.js';
import { KEY_IN_DATABASE_WARNING } from '../../../src/signing/keys.js';
import { verifyVerdict } from '../../../src/verify/index.js';
import { capturedOutput } from '../../helpers/captured-output.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { freshDatabase, type FreshDatabase } from '../postgres/fresh-database.js';

/** Runs the CLI in-process; resolves with its exit code and what it printed. */
const cli = (...argv: string[]) => capturedOutput(() => main(argv));

type Jwks = { keys: { kid: string }[] };
let dir: string;
let db: string;
const open: TestServer[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-keys-cli-'));
  db = join(dir, 'tollgate.db');
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
});

async function serve(): Promise<TestServer> {
  const t = await startTestServer({ dbPath: db });
  open.push(t);
  return t;
}
async function approved(t: TestServer): Promise<string> {
  const { id } = (await (await t.api('/v1/requests', { body: { tool_name: 'deploy', tool_args: {} } })).json()) as {
    id: string;
  };
  const res = await t.api(`/v1/requests/${id}/decision`, { body: { decision: 'approve', approver: 'web:alice' } });
  return ((await res.json()) as { verdict_token: string }).verdict_token;
}
const servedJwks = async (t: TestServer) => (await (await fetch(`${t.url}/.well-known/jwks.json`)).json()) as Jwks;

describe('tollgate keys export', () => {
  it('writes the JWKS the gateway serves, to stdout or --out', async () => {
    const t = await serve();
    const served = await servedJwks(t);
    const printed = await cli('keys', 'export', '--db', db);
    expect(printed.code, printed.stderr).toBe(0);
    expect(JSON.parse(printed.stdout)).toEqual(served);
    expect(printed.stderr).toContain(`current: signing key in ${keyFilePath(db)}; kid ${served.keys[0]!.kid}`);

    const out = join(dir, 'pinned.json');
    const written = await cli('keys', 'export', '--db', db, '--out', out);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toBe('');
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(served);
  });

  it('makes no key for a database that has none yet, and says so', async () => {
    expect((await cli('migrate', '--db', db)).code).toBe(0);
    const r = await cli('keys', 'export', '--db', db);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('no signing key yet');
    expect(() => statSync(keyFilePath(db))).toThrow();
  });
});

describe('tollgate keys rotate', () => {
  it('writes a new key file and keeps the old key verifiable after the restart', async () => {
    const before = await serve();
    const oldToken = await approved(before);
    const oldKid = decodeProtectedHeader(oldToken).kid!;

    const r = await cli('keys', 'rotate', '--db', db);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`old key ${oldKid} stays verifiable: listed in ${retiredFilePath(db)}`);
    expect(r.stdout).toContain('restart the gateway');
    expect(statSync(keyFilePath(db)).mode & 0o777).toBe(0o600);
    await before.close();
    open.splice(0);

    const after = await serve();
    const newKid = decodeProtectedHeader(await approved(after)).kid!;
    expect(newKid).not.toBe(oldKid);
    const served = await servedJwks(after);
    expect(served.keys.map((k) => k.kid)).toEqual([newKid, oldKid]);
    expect(JSON.parse((await cli('keys', 'export', '--db', db)).stdout)).toEqual(served);
    const pinned = served.keys as Parameters<typeof verifyVerdict>[1]['keys'];
    expect(await verifyVerdict(oldToken, { keys: pinned, toolName: 'deploy', args: {} })).toMatchObject({ ok: true });
  });

  it('refuses a key it does not keep: one set by hand, or a PostgreSQL deployment', async () => {
    await (await serve()).close();
    open.splice(0);
    vi.stubEnv('TOLLGATE_SIGNING_KEY_FILE', join(dir, 'mine.pem'));
    const set = await cli('keys', 'rotate', '--db', db);
    expect(set.code).toBe(2);
    expect(set.stderr).toContain('rotate by setting a new key there');
    vi.unstubAllEnvs();
    const pg = await cli('keys', 'rotate', '--db', 'postgres://postgres@127.0.0.1:5432/none');
    expect(pg.code).toBe(2);
    expect(pg.stderr).toContain('on PostgreSQL set TOLLGATE_SIGNING_KEY_FILE');
    expect((await cli('keys')).code).toBe(2);
  });
});

describe('tollgate keys export on PostgreSQL with the key in the database', () => {
  let database: FreshDatabase;
  beforeAll(async () => {
    database = await freshDatabase({ migrate: true });
  });
  afterAll(() => database?.drop());

  it('exports the key the replicas sign with, and warns that a database writer can forge', async () => {
    const t = await startTestServer({ dbPath: database.url });
    open.push(t);
    const r = await cli('keys', 'export', '--db', database.url);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(await servedJwks(t));
    expect(r.stderr).toContain(`warning: ${KEY_IN_DATABASE_WARNING}`);
  });
});
