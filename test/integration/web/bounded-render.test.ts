/**
 * Rows whose arguments today's input bounds would refuse (an older version filed them, or someone wrote the database
 * directly) still render: bounded in depth and size, with a "truncated — show raw" notice, a capped raw view, fast,
 * and without stalling /healthz while ten of them render at once.
 */
import { Database } from '../../../src/stores/sqlite/driver.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWebChannel } from '../../../channels/web/index.js';
import { boundedJson } from '../../../src/utils/json-view.js';
import { startTestServer, type TestServer } from '../../helpers/server.js';
import { visibleText, WebClient } from './web-client.js';

const TOKEN = 'bob-token-0123456789abcdef';
const PAGE_LIMIT = 400_000;
/** The raw view keeps 100,000 characters; HTML escaping can make one of them six (`"` → `&quot;`). */
const RAW_PAGE_LIMIT = 700_000;

/** `{"a":{"a":…}}` `depth` levels deep, as JSON text (built as text: the value itself is too deep to stringify). */
const deepJson = (depth: number) => `${'{"a":'.repeat(depth)}"bottom"${'}'.repeat(depth)}`;

describe('web request page with oversized arguments', () => {
  let server: TestServer;
  let bob: WebClient;

  beforeEach(async () => {
    server = await startTestServer({ channels: [createWebChannel({ users: [{ name: 'bob', token: TOKEN }] })] });
    bob = new WebClient(server.url);
    await bob.signIn('bob', TOKEN);
  });

  afterEach(async () => {
    await server.close();
  });

  /** Files a small request, then overwrites its arguments in the database, bypassing the API's bounds. */
  const fileWithRawArgs = async (argsJson: string) => {
    const { request } = await server.gateway.request({ toolName: 'deploy_service', toolArgs: { small: true } });
    const db = new Database(server.dbPath);
    db.prepare('UPDATE confirmation_requests SET tool_args = ? WHERE id = ?').run(argsJson, request.id);
    db.close();
    return request.id;
  };

  it('renders 4,000 and 50,000 levels bounded, with a capped raw view', async () => {
    for (const depth of [4_000, 50_000]) {
      const id = await fileWithRawArgs(deepJson(depth));
      const started = Date.now();
      const page = await bob.request(`/ui/requests/${id}`);
      expect(page.status).toBe(200);
      // Generous for a loaded 2-core machine; before the fix the page was 32 MB, which the size check catches anyway.
      expect(Date.now() - started).toBeLessThan(2_000);
      expect(page.text.length).toBeLessThan(PAGE_LIMIT);
      expect(visibleText(page.text)).toContain('truncated — show raw');
      expect(page.text).toContain(`href="/ui/requests/${id}/raw"`);
      // The buttons still work: an approver can see and decide it.
      expect(page.text).toContain('id="decision-form"');
      const raw = await bob.request(`/ui/requests/${id}/raw`);
      expect(raw.status).toBe(200);
      expect(raw.text.length).toBeLessThan(RAW_PAGE_LIMIT);
      expect(raw.text).toContain('{&quot;a&quot;:{&quot;a&quot;:');
      if (depth === 50_000) expect(raw.text).toContain('raw view is cut');
    }
  });

  it('renders 2 MB of wide arguments and a single huge string bounded', async () => {
    const wide = JSON.stringify(
      Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`key_${i}`, `value number ${i}`])),
    );
    const long = JSON.stringify({ blob: 'x'.repeat(3_000_000), api_key: 'sk-should-never-show' });
    for (const args of [wide, long]) {
      const id = await fileWithRawArgs(args);
      const page = await bob.request(`/ui/requests/${id}`);
      expect(page.status).toBe(200);
      expect(page.text.length).toBeLessThan(PAGE_LIMIT);
      expect(visibleText(page.text)).toContain('truncated — show raw');
      const raw = await bob.request(`/ui/requests/${id}/raw`);
      expect(raw.text.length).toBeLessThan(RAW_PAGE_LIMIT);
      expect(raw.text).not.toContain('sk-should-never-show');
    }
  });

  it('keeps /healthz responsive while ten deep pages render', async () => {
    const id = await fileWithRawArgs(deepJson(4_000));
    const pages = Array.from({ length: 10 }, () => bob.request(`/ui/requests/${id}`));
    const started = Date.now();
    const health = await fetch(`${server.url}/healthz`);
    const healthMs = Date.now() - started;
    const results = await Promise.all(pages);
    expect(health.status).toBe(200);
    expect(healthMs).toBeLessThan(1_000);
    for (const page of results) expect(page.status).toBe(200);
  });
});

describe('boundedJson', () => {
  it('writes small values as JSON.stringify would, masking secrets', () => {
    const value = { a: [1, { b: 'two' }], empty: {}, none: [], password: 'hunter2', nested: { token: 42 } };
    const view = boundedJson(value, { maxDepth: 10, maxChars: 10_000, indent: 2 });
    expect(view).toEqual({
      truncated: false,
      text: JSON.stringify({ ...value, password: '••••', nested: { token: '••••' } }, null, 2),
    });
    expect(boundedJson(value, { maxDepth: 10, maxChars: 10_000, indent: 0 }).text).toBe(
      JSON.stringify({ ...value, password: '••••', nested: { token: '••••' } }),
    );
  });

  it('stops at the depth and size limits and says so', () => {
    expect(boundedJson({ a: { b: { c: 1 } } }, { maxDepth: 2, maxChars: 1_000, indent: 0 })).toEqual({
      text: '{"a":{"b":{…}}}',
      truncated: true,
    });
    const wide = boundedJson(
      Array.from({ length: 1_000 }, (_, i) => i),
      { maxDepth: 5, maxChars: 50, indent: 0 },
    );
    expect(wide.truncated).toBe(true);
    expect(wide.text.length).toBeLessThan(80);
  });
});
