/**
 * The read side of the store contract (part of `runStoreContract`): the audit query with its filters and cursor,
 * streamed scans, the pending index the schedulers walk, counts, and card bookkeeping.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { encodeCursor, InvalidCursorError } from '../../src/requests/cursor.js';
import type { ConfirmationStore, RequestQuery } from '../../src/requests/store.js';
import { writeExport } from '../../src/http/export.js';
import { exportPagesOf, type ExportFormat, type ExportPage } from '../../src/requests/export-lines.js';
import type { ConfirmationRequest } from '../../src/requests/types.js';
import { ValidationError } from '../../src/api/errors.js';
import { at, file, newestFirst, newRequest, T0, vote } from './store-fixtures.js';

/** Every page of `query` at `limit` rows a page. */
async function allPages(store: ConfirmationStore, query: RequestQuery, limit: number): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ ...query, limit, cursor });
    pages.push(page.items.map((r) => r.id));
    cursor = page.nextCursor ?? undefined;
  } while (cursor && pages.length < 100);
  return pages;
}

/** Each exported line (head and tail) with the id of its receipt (null without one). */
async function exported(pages: AsyncIterable<ExportPage>): Promise<[string, string, number | null][]> {
  const rows: [string, string, number | null][] = [];
  for await (const page of pages)
    for (const [id, head, tail] of page.lines) rows.push([head, tail, page.receipts.get(id)?.id ?? null]);
  return rows;
}

/** The bytes `writeExport` writes from `pages`. */
async function written(pages: AsyncIterable<ExportPage>, format: ExportFormat): Promise<string> {
  const chunks: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  });
  await writeExport(sink, pages, format);
  return chunks.join('');
}

/** Text a JSON or CSV writer can get wrong: every control character but NUL (PostgreSQL text has none), quotes, separators, formulas, U+2028, DEL, astral. */
const ODD = `${Array.from({ length: 31 }, (_, i) => String.fromCharCode(i + 1)).join('')}"',;\\/\u2028\u2029\u007f é😀`;

async function collect(rows: AsyncIterable<ConfirmationRequest>): Promise<string[]> {
  const ids: string[] = [];
  for await (const row of rows) ids.push(row.id);
  return ids;
}

/** Declares the read-side tests; `store()` is the current test's store. */
export function runStoreQueryContract(store: () => ConfirmationStore): void {
  /** Six rows over two tools, two agents and three outcomes, filed a minute apart. */
  async function seed() {
    const rows = [
      await file(store(), { toolName: 'pay_invoice', agentId: 'billing' }, at(0)),
      await file(store(), { toolName: 'deploy', agentId: 'ops' }, at(60)),
      await file(store(), { toolName: 'pay_invoice', agentId: 'ops' }, at(120)),
      await file(store(), { toolName: 'deploy', agentId: 'billing' }, at(180)),
      await file(store(), { toolName: 'pay_invoice', agentId: 'billing' }, at(240)),
      await file(store(), { toolName: 'deploy', agentId: 'ops' }, at(300)),
    ];
    // Each decided before its deadline (filed + 300 s): a later vote would expire it instead.
    await store().decide(rows[0]!.id, vote('web:alice', 'approve', 10));
    await store().decide(rows[1]!.id, vote('web:bob', 'deny', 70));
    await store().decide(rows[2]!.id, vote('web:alice', 'deny', 130));
    return rows;
  }

  describe('list', () => {
    it('answers newest first, with each filter alone and together', async () => {
      const rows = await seed();
      const ids = (query: RequestQuery) =>
        store()
          .list(query)
          .then((page) => page.items.map((r) => r.id));
      const pick = (...i: number[]) => newestFirst(i.map((n) => rows[n]!));
      expect(await ids({})).toEqual(pick(0, 1, 2, 3, 4, 5));
      expect(await ids({ status: 'pending' })).toEqual(pick(3, 4, 5));
      expect(await ids({ status: 'denied' })).toEqual(pick(1, 2));
      expect(await ids({ toolName: 'deploy' })).toEqual(pick(1, 3, 5));
      expect(await ids({ agentId: 'billing' })).toEqual(pick(0, 3, 4));
      expect(await ids({ respondedBy: 'web:alice' })).toEqual(pick(0, 2));
      expect(await ids({ since: at(120), until: at(240) })).toEqual(pick(2, 3, 4));
      expect(await ids({ since: at(121) })).toEqual(pick(3, 4, 5));
      expect(await ids({ until: at(60) })).toEqual(pick(0, 1));
      expect(await ids({ toolName: 'pay_invoice', agentId: 'billing', status: 'pending' })).toEqual(pick(4));
      expect(await ids({ toolName: 'nothing' })).toEqual([]);
    });

    it('pages with a cursor without duplicates or gaps, also across rows filed in the same millisecond', async () => {
      const rows: ConfirmationRequest[] = [];
      for (let i = 0; i < 7; i++)
        rows.push(await file(store(), { toolName: i % 2 ? 'deploy' : 'pay_invoice' }, i < 5 ? T0 : at(i)));
      const pages = await allPages(store(), {}, 2);
      expect(pages.map((p) => p.length)).toEqual([2, 2, 2, 1]);
      expect(pages.flat()).toEqual(newestFirst(rows));
      const filtered = await allPages(store(), { toolName: 'pay_invoice' }, 1);
      expect(filtered.flat()).toEqual(newestFirst(rows.filter((r) => r.toolName === 'pay_invoice')));
      // Under `until` the cursor's bound takes over from it (SQLite), never widening it: a cursor newer than `until`
      // still finds nothing newer than `until`.
      const untilFive = await allPages(store(), { until: at(5) }, 2);
      expect(untilFive.flat()).toEqual(newestFirst(rows.filter((r) => r.createdAt.getTime() <= at(5).getTime())));
      const past = await store().list({ until: at(5), limit: 10, cursor: encodeCursor(at(7), rows[6]!.id) });
      expect(past.items.map((r) => r.id)).toEqual(
        newestFirst(rows.filter((r) => r.createdAt.getTime() <= at(5).getTime())),
      );
    });

    it('ends with a null cursor when the last page is full', async () => {
      for (let i = 0; i < 4; i++) await file(store(), {}, at(i));
      const first = await store().list({ limit: 2 });
      const second = await store().list({ limit: 2, cursor: first.nextCursor! });
      expect(second.items).toHaveLength(2);
      const third = second.nextCursor
        ? await store().list({ limit: 2, cursor: second.nextCursor })
        : { items: [], nextCursor: null };
      expect(third).toEqual({ items: [], nextCursor: null });
      expect((await store().list({})).nextCursor).toBeNull();
    });

    it('refuses a cursor it did not issue with InvalidCursorError (a ValidationError naming cursor)', async () => {
      await file(store());
      for (const cursor of [
        'not-a-cursor',
        Buffer.from('yesterday|abc').toString('base64url'),
        Buffer.from('a|b|c').toString('base64url'),
      ]) {
        const error = await store()
          .list({ cursor })
          .then(
            () => null,
            (e: unknown) => e,
          );
        expect(error).toBeInstanceOf(InvalidCursorError);
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).errors).toEqual([expect.objectContaining({ path: 'cursor' })]);
      }
    });
  });

  describe('scan', () => {
    it('yields every matching row newest first, past any internal batch size', async () => {
      const made = await Promise.all(Array.from({ length: 1010 }, (_, i) => store().create(newRow(i), [])));
      const rows = made.map((m) => m.request);
      expect(await collect(store().scan({}))).toEqual(newestFirst(rows));
      expect(await collect(store().scan({ toolName: 'deploy', since: at(100) }))).toEqual(
        newestFirst(rows.filter((r) => r.toolName === 'deploy' && r.createdAt >= at(100))),
      );
      expect(await collect(store().scan({ agentId: 'nobody' }))).toEqual([]);
    });
  });

  describe('exportPages', () => {
    it('yields the lines scan’s rows render to (the same bytes, both formats), past a page, each with its latest receipt', async () => {
      const made = await Promise.all(Array.from({ length: 1010 }, (_, i) => store().create(newRow(i), [])));
      const toolArgs = {
        'q"u,o\nte': '=1+2',
        10: [1.5, -0, null, true, '\u2028é😀\\', 1e21, 0.1],
        nested: { b: 1, a: [] },
        [ODD]: ODD,
      };
      const odd = await file(
        store(),
        {
          toolName: 'odd',
          toolArgs,
          prompt: '-rm "x",\r\n',
          agentId: '@a',
          userId: `\t${ODD}`,
          sessionId: `+${ODD}`,
          metadata: { k: ODD },
        },
        at(30),
      );
      await store().decide(
        odd.id,
        vote('web:alice', 'approve', 40, { approvedArgs: { b: 1, a: '2' }, reason: `=${ODD}`, option: '\r-' }),
      );
      const cr = await file(store(), { toolName: '\rcr', toolArgs: {}, prompt: '', agentId: ODD }, at(35));
      await store().decide(cr.id, vote('slack:U1', 'deny', 45, { reason: '' }));
      await store().appendEvent(odd.id, {
        type: 'executed',
        actor: 'agent',
        channel: null,
        detail: { args_sha256: 'ab', args_match: true, allowed: true },
        at: at(50),
      });
      await store().appendEvent(odd.id, {
        type: 'execution_failed',
        actor: 'agent',
        channel: null,
        detail: { detail: 'boom' },
        at: at(60),
      });
      await store().appendEvent(made[3]!.request.id, {
        type: 'executed',
        actor: 'agent',
        channel: null,
        detail: {},
        at: at(70),
      });
      for (const format of ['ndjson', 'csv'] as const) {
        const general = (query: RequestQuery) =>
          exportPagesOf(store().scan(query), (ids) => store().receiptsOf(ids), format);
        const all = await exported(store().exportPages({}, format));
        expect(all).toHaveLength(1012);
        expect(all).toEqual(await exported(general({})));
        expect(await written(store().exportPages({}, format), format)).toBe(await written(general({}), format));
        expect(all.filter(([, , receipt]) => receipt !== null)).toHaveLength(2);
        expect(await exported(store().exportPages({ toolName: 'odd', status: 'approved' }, format))).toEqual(
          await exported(general({ toolName: 'odd' })),
        );
        expect(await exported(store().exportPages({ agentId: 'nobody' }, format))).toEqual([]);
      }
    });

    it('joins each row’s receipt when the rows it exports are few among many with receipts (a filtered export)', async () => {
      // 30 rows of one tool among 3,000, every row with a receipt: the receipts around the exported rows are many more
      // than the rows themselves (a store that reads a page's receipts by range must fall back to reading them by id).
      const made = await Promise.all(
        Array.from({ length: 3000 }, (_, i) => file(store(), { toolName: i % 100 === 0 ? 'rare' : 'busy' }, at(i))),
      );
      for (let from = 0; from < made.length; from += 50) {
        const some = made.slice(from, from + 50);
        await Promise.all(
          some.map((r, i) =>
            store().appendEvent(r.id, {
              type: 'executed',
              actor: 'agent',
              channel: null,
              detail: { n: from + i },
              at: at(from + i + 1),
            }),
          ),
        );
      }
      const general = exportPagesOf(store().scan({ toolName: 'rare' }), (ids) => store().receiptsOf(ids), 'ndjson');
      const rare = await exported(store().exportPages({ toolName: 'rare' }, 'ndjson'));
      expect(rare).toHaveLength(30);
      expect(rare.filter(([, , receipt]) => receipt === null)).toEqual([]);
      expect(rare).toEqual(await exported(general));
    });
  });

  describe('pending', () => {
    it('walks pending rows by expiry then id, page after page', async () => {
      const rows: ConfirmationRequest[] = [];
      for (const timeoutS of [50, 10, 30, 30, 30, 20]) rows.push(await file(store(), { timeoutS }));
      await store().decide(rows[5]!.id, vote('slack:U1', 'deny'));
      const expected = rows
        .slice(0, 5)
        .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime() || (a.id < b.id ? -1 : 1))
        .map((r) => ({ id: r.id, expiresAt: r.expiresAt }));
      expect(await store().pending(100)).toEqual(expected);
      const walked: { id: string; expiresAt: Date }[] = [];
      let page = await store().pending(2);
      while (page.length) {
        walked.push(...page);
        const last = page[page.length - 1]!;
        page = await store().pending(2, last.expiresAt, last.id);
      }
      expect(walked).toEqual(expected);
    });
  });

  describe('eventsOf', () => {
    it('reads the events of several requests at once, by request and then oldest first, and nothing of an unknown id', async () => {
      const [a, b, c] = [await file(store()), await file(store()), await file(store())];
      await store().appendEvent(a.id, {
        type: 'reminded',
        actor: 'system',
        channel: null,
        detail: { step: 0 },
        at: at(5),
      });
      await store().decide(b.id, vote('slack:U1', 'deny'));
      await store().appendEvent(c.id, {
        type: 'reminded',
        actor: 'system',
        channel: null,
        detail: { step: 0 },
        at: at(5),
      });
      const [first, second] = [a, b].sort((x, y) => (x.id < y.id ? -1 : 1));
      const expected = [...(await store().events(first!.id)), ...(await store().events(second!.id))];
      expect(expected.map((e) => e.type)).toEqual(expect.arrayContaining(['created', 'reminded', 'denied']));
      expect(await store().eventsOf([b.id, 'no-such-request', a.id])).toEqual(expected);
      expect(await store().eventsOf([])).toEqual([]);
    });
  });

  describe('getMany', () => {
    it('reads the rows of several ids at once, pending and final alike, leaving out an unknown id', async () => {
      const [a, b, c] = [await file(store()), await file(store()), await file(store())];
      await store().decide(b.id, vote('slack:U1', 'deny'));
      const byId = (rows: ConfirmationRequest[]) => [...rows].sort((x, y) => (x.id < y.id ? -1 : 1));
      const expected = byId([(await store().get(a.id))!, (await store().get(b.id))!]);
      expect(expected.map((r) => r.status).sort()).toEqual(['denied', 'pending']);
      expect(byId(await store().getMany([b.id, newRequest().id, a.id]))).toEqual(expected);
      expect((await store().getMany([c.id]))[0]).toEqual(await store().get(c.id));
      expect(await store().getMany([])).toEqual([]);
    });
  });

  describe('pendingPlans', () => {
    it('walks pending rows as pending does, each marked by whether its created event records a follow-up plan', async () => {
      const plan = {
        policy: { rule: 'payments', follow_ups: [{ kind: 'remind', step: 0, at: at(60).toISOString() }] },
      };
      const planned = (await store().create(newRequest({ timeoutS: 30 }), [], { detail: plan })).request;
      const ruled = (
        await store().create(newRequest({ timeoutS: 10 }), [], { detail: { policy: { rule: 'payments' } } })
      ).request;
      const plain = await file(store(), { timeoutS: 20 });
      // Recorded on the created event only: a later event mentioning follow-ups does not count.
      await store().appendEvent(plain.id, {
        type: 'reminded',
        actor: 'system',
        channel: null,
        detail: plan,
        at: at(5),
      });
      const decided = (await store().create(newRequest({ timeoutS: 5 }), [], { detail: plan })).request;
      await store().decide(decided.id, vote('slack:U1', 'deny'));
      const expected = [ruled, plain, planned].map((r) => ({
        id: r.id,
        expiresAt: r.expiresAt,
        planned: r === planned,
      }));
      expect(await store().pendingPlans(100)).toEqual(expected);
      const first = await store().pendingPlans(2);
      expect(first).toEqual(expected.slice(0, 2));
      expect(await store().pendingPlans(2, first[1]!.expiresAt, first[1]!.id)).toEqual(expected.slice(2));
    });
  });

  describe('receiptsOf', () => {
    it('reads the latest execution receipt of each request at once: one each, none for a request without one', async () => {
      const [a, b, c] = [await file(store()), await file(store()), await file(store())];
      await store().decide(a.id, vote('web:alice', 'approve', 10));
      await store().decide(b.id, vote('web:alice', 'approve', 10));
      await store().appendEvent(a.id, {
        type: 'execution_failed',
        actor: 'token:agent',
        channel: null,
        detail: { detail: 'timeout' },
        at: at(20),
      });
      await store().appendEvent(a.id, {
        type: 'executed',
        actor: 'token:agent',
        channel: null,
        detail: { args_match: true },
        at: at(30),
      });
      // A later event that is not a receipt does not hide the receipt before it.
      await store().appendEvent(a.id, {
        type: 'post_call',
        actor: 'token:agent',
        channel: null,
        detail: {},
        at: at(40),
      });
      await store().appendEvent(b.id, {
        type: 'execution_failed',
        actor: 'token:agent',
        channel: null,
        detail: { detail: 'boom' },
        at: at(25),
      });
      const latest = async (id: string) =>
        (await store().events(id)).filter((e) => e.type === 'executed' || e.type === 'execution_failed').at(-1)!;
      const expected = [await latest(a.id), await latest(b.id)].sort((x, y) => (x.requestId < y.requestId ? -1 : 1));
      expect(expected.map((e) => e.type).sort()).toEqual(['executed', 'execution_failed']);
      const byRequest = (events: { requestId: string }[]) =>
        [...events].sort((x, y) => (x.requestId < y.requestId ? -1 : 1));
      expect(byRequest(await store().receiptsOf([c.id, b.id, 'no-such-request', a.id]))).toEqual(expected);
      expect(await store().receiptsOf([c.id])).toEqual([]);
      expect(await store().receiptsOf([])).toEqual([]);
    });
  });

  describe('countByStatus', () => {
    it('counts every status, zero included', async () => {
      expect(await store().countByStatus()).toEqual({ pending: 0, approved: 0, denied: 0, expired: 0, cancelled: 0 });
      await seed();
      expect(await store().countByStatus()).toEqual({ pending: 3, approved: 1, denied: 2, expired: 0, cancelled: 0 });
    });
  });

  describe('messages', () => {
    it('updates a card field by field and lists unsent cards of pending requests only', async () => {
      const a = await file(store(), {}, T0, [
        { channel: 'slack', target: 'C1' },
        { channel: 'feishu', target: 'oc_1' },
      ]);
      const b = await file(store(), {}, T0, [{ channel: 'slack', target: 'C2' }]);
      await store().updateMessage(a.id, 'slack', 'C1', { status: 'sent', messageRef: 'C1:1.5', attempts: 1 }, at(5));
      await store().updateMessage(a.id, 'feishu', 'oc_1', { attempts: 2, lastError: 'HTTP 500' }, at(6));
      const [slack, feishu] = await store().messages(a.id);
      expect(slack).toEqual({
        requestId: a.id,
        channel: 'slack',
        target: 'C1',
        messageRef: 'C1:1.5',
        status: 'sent',
        attempts: 1,
        lastError: null,
        updatedAt: at(5),
      });
      expect(feishu).toEqual({
        requestId: a.id,
        channel: 'feishu',
        target: 'oc_1',
        messageRef: null,
        status: 'pending',
        attempts: 2,
        lastError: 'HTTP 500',
        updatedAt: at(6),
      });
      await store().updateMessage(a.id, 'feishu', 'oc_1', { lastError: null, status: 'failed' }, at(7));
      expect((await store().messages(a.id))[1]).toMatchObject({
        status: 'failed',
        lastError: null,
        attempts: 2,
        updatedAt: at(7),
      });

      const key = (m: { requestId: string; target: string }) => `${m.requestId}/${m.target}`;
      expect((await store().unsentMessages(10)).map(key)).toEqual([key({ requestId: b.id, target: 'C2' })]);
      await store().ensureMessage(a.id, 'slack', 'C9', at(8));
      expect((await store().unsentMessages(10)).map(key).sort()).toEqual([`${a.id}/C9`, `${b.id}/C2`].sort());
      expect(await store().unsentMessages(1)).toHaveLength(1);
      await store().decide(b.id, vote('slack:U1', 'deny'));
      expect((await store().unsentMessages(10)).map(key)).toEqual([`${a.id}/C9`]);
    });

    it('ensureMessage adds a card once and leaves an existing card alone', async () => {
      const request = await file(store(), {}, T0, [{ channel: 'slack', target: 'C1' }]);
      await store().updateMessage(request.id, 'slack', 'C1', { status: 'sent', messageRef: 'C1:1.5' }, at(1));
      await store().ensureMessage(request.id, 'slack', 'C1', at(2));
      await store().ensureMessage(request.id, 'slack', 'C2', at(2));
      await store().ensureMessage(request.id, 'slack', 'C2', at(3));
      expect((await store().messages(request.id)).map((m) => [m.target, m.status, m.messageRef, m.updatedAt])).toEqual([
        ['C1', 'sent', 'C1:1.5', at(1)],
        ['C2', 'pending', null, at(2)],
      ]);
    });
  });
}

/** Row `i` of the scan fixture: every third a deploy, four rows per second (ties on the creation time). */
function newRow(i: number): ConfirmationRequest {
  return newRequest({ toolName: i % 3 === 0 ? 'deploy' : 'pay_invoice' }, at(Math.floor(i / 4)));
}
