/**
 * Exports render flat rows (`requests/export-lines.ts`) with the same bytes as the request in its API shape would give:
 * NDJSON equal to `JSON.stringify` of `toApiRequest` plus `execution`, CSV equal to `csvCell` of each of those fields.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { writeExport } from '../../../src/http/export.js';
import { csvCell, executionOf, lineOf, type ExportPage } from '../../../src/requests/export-lines.js';
import { EXPORT_FIELDS, exportRowOf } from '../../../src/requests/export-rows.js';
import { toApiRequest } from '../../../src/requests/serialize.js';
import type { ConfirmationEvent, ConfirmationRequest } from '../../../src/requests/types.js';
import { at, newRequest } from '../../contracts/store-fixtures.js';

/** A pending request and a decided one with edited arguments, values a CSV or JSON writer can get wrong. */
function requests(): ConfirmationRequest[] {
  const odd = newRequest(
    {
      toolName: '=cmd|calc',
      toolArgs: { 'q"u,o\nte': '+1', 10: [1.5, null, '\u2028é😀\\\t'] },
      prompt: '-rm "x",\r\n',
      agentId: '@agent',
      metadata: { k: 'v' },
    },
    at(0),
  );
  const decided: ConfirmationRequest = {
    ...newRequest({ toolName: 'deploy', toolArgs: { env: 'prod' } }, at(10)),
    status: 'approved',
    approvedArgs: { env: 'staging' },
    respondedAt: at(20),
    respondedBy: 'slack:U1',
    respondedVia: 'slack',
    respondedByPerson: 'p1',
    decisionOption: 'Approve',
    reason: 'ok, "fine"',
    allowed: true,
  };
  return [odd, decided];
}

const receipt = (requestId: string): ConfirmationEvent => ({
  id: 7,
  requestId,
  type: 'executed',
  actor: 'agent',
  channel: null,
  detail: { args_sha256: 'ab', args_match: false, allowed: true, detail: 'ran, "twice"' },
  at: at(30),
});

async function render(
  format: 'csv' | 'ndjson',
  rows: ConfirmationRequest[],
  receipts: ConfirmationEvent[],
): Promise<string> {
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      done();
    },
  });
  async function* pages(): AsyncIterable<ExportPage> {
    yield {
      lines: rows.map((r) => lineOf(exportRowOf(r), format)),
      receipts: new Map(receipts.map((e) => [e.requestId, e])),
    };
  }
  expect(await writeExport(sink, pages(), format)).toBe(true);
  return text;
}

describe('export rendering', () => {
  it('lists the API fields in toApiRequest’s order, verdict_token last', () => {
    expect(Object.keys(toApiRequest(requests()[0]!))).toEqual([...EXPORT_FIELDS, 'verdict_token']);
  });

  it('writes NDJSON as JSON.stringify of the API shape with its execution', async () => {
    const rows = requests();
    const text = await render('ndjson', rows, [receipt(rows[1]!.id)]);
    const expected = rows
      .map((r, i) => JSON.stringify({ ...toApiRequest(r), execution: i === 1 ? executionOf([receipt(r.id)]) : null }))
      .join('\n');
    expect(text).toBe(`${expected}\n`);
  });

  it('writes CSV as csvCell of each column, formulas defused and quotes doubled', async () => {
    const rows = requests();
    const text = await render('csv', rows, [receipt(rows[0]!.id)]);
    const header = text.slice(0, text.indexOf('\n'));
    const expected = rows.map((r, i) => {
      const api = toApiRequest(r) as unknown as Record<string, unknown>;
      const execution = i === 0 ? (executionOf([receipt(r.id)]) as unknown as Record<string, unknown>) : null;
      return header
        .split(',')
        .map((c) => csvCell(c.startsWith('execution_') ? execution?.[c.slice('execution_'.length)] : api[c]));
    });
    expect(text).toBe(`${header}\n${expected.map((cells) => `${cells.join(',')}\n`).join('')}`);
    expect(expected[0]).toContain("'=cmd|calc");
  });
});
