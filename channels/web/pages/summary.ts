/**
 * @module channels/web/pages/summary
 * The call summary on the web: a short block for the inbox (risk, headline, first items, as chat cards show them) and
 * the request page's section with every file's diff highlighted by diff2html. diff2html is imported on the first
 * request page that shows a diff, never at the gateway's start; its HTML escapes the diff's text, and the diff was
 * masked when the request was filed.
 */
import type * as Diff2HtmlModule from 'diff2html';
import { summaryView, type SummaryView } from '../../../src/channel/card-summary.js';
import type { CallSummary, FileChange } from '../../../src/summaries/types.js';
import { html, SafeHtml } from '../html.js';

type Diff2Html = typeof Diff2HtmlModule;
let diff2html: Promise<Diff2Html> | undefined;
const loadDiff2Html = (): Promise<Diff2Html> => (diff2html ??= import('diff2html'));

/** The stylesheet the request page loads (under `/ui/assets/`) when it shows a diff. */
export const DIFF_STYLESHEET = 'diff2html.css';

/** The risk as a coloured word with its reasons, and what the call does. */
function overview(view: SummaryView, reasons: 'list' | 'line'): SafeHtml {
  return html`<p class="risk-line"><span class="risk ${view.risk}">${view.riskLabel}</span>
    ${reasons === 'line' && view.reasons.length ? html` <span>${view.reasons.join('; ')}</span>` : ''}</p>
  ${reasons === 'list' && view.reasons.length ? html`<ul class="reasons">${view.reasons.map((r) => html`<li>${r}</li>`)}</ul>` : ''}
  ${view.headline ? html`<p class="headline"><strong>${view.headline}</strong></p>` : ''}`;
}

/**
 * The inbox's summary of a request: risk and reasons on one line, the headline, the first three items; `keyArgs` (the
 * key arguments) when the summary does not read the call (an unknown tool's arguments are its best description).
 */
export function inboxSummary(summary: CallSummary | null, keyArgs: SafeHtml | string): SafeHtml | string {
  if (!summary) return keyArgs;
  const view = summaryView(summary, { maxItems: 3, maxDiffLines: 0, maxLineChars: 110 });
  return html`<div class="summary compact">${overview(view, 'line')}
    ${view.items.length ? html`<ul class="summary-items">${view.items.map((i) => html`<li><code>${i}</code></li>`)}${view.moreItems ? html`<li class="muted">${view.moreLine}</li>` : ''}</ul>` : ''}</div>
  ${view.readsCall ? '' : keyArgs}`;
}

/**
 * One file's diff as diff2html reads it: `---`/`+++` headers, and hunk headers with line ranges (an `Edit`'s fragment
 * or a Codex patch has none, or `@@ context` without numbers: they are counted here from the hunk's lines).
 */
export function unifiedDiff(file: FileChange): string {
  const [from, to] = [
    file.status === 'added' ? '/dev/null' : `a/${file.path}`,
    file.status === 'deleted' ? '/dev/null' : `b/${file.path}`,
  ];
  const hunks: { header: string; lines: string[] }[] = [];
  for (const line of file.diff.split('\n')) {
    if (line.startsWith('@@') || !hunks.length) hunks.push({ header: line.startsWith('@@') ? line : '', lines: [] });
    if (!line.startsWith('@@')) hunks.at(-1)!.lines.push(line);
  }
  let start = 1;
  const body = hunks.map(({ header, lines }) => {
    const old = lines.filter((l) => !l.startsWith('+')).length;
    const now = lines.filter((l) => !l.startsWith('-')).length;
    const ranged = /^@@ -\d+(,\d+)? \+\d+(,\d+)? @@/.test(header);
    const context = header.replace(/^@@\s*/, '').replace(/\s*@@$/, '');
    const head = ranged
      ? header
      : `@@ -${old ? start : 0},${old} +${now ? start : 0},${now} @@${context ? ` ${context}` : ''}`;
    start += Math.max(old, now);
    return [head, ...lines.map((l) => (/^[+\- ]/.test(l) ? l : ` ${l}`))].join('\n');
  });
  const mode =
    file.status === 'added' ? 'new file mode 100644\n' : file.status === 'deleted' ? 'deleted file mode 100644\n' : '';
  return `diff --git a/${file.path} b/${file.path}\n${mode}--- ${from}\n+++ ${to}\n${body.join('\n')}\n`;
}

/**
 * The request page's summary section: the risk with each reason, the headline, every item, and each file's diff
 * highlighted (diff2html, line by line, loaded here on first use); the raw arguments stay below it.
 */
export async function summarySection(summary: CallSummary | null, requestId: string): Promise<SafeHtml | string> {
  if (!summary) return '';
  const view = summaryView(summary, { maxItems: 60, maxDiffLines: 0, maxLineChars: 300 });
  const files = (summary.files ?? []).filter((f) => f.diff);
  let diffs: SafeHtml | string = '';
  if (files.length) {
    const { html: render } = await loadDiff2Html();
    diffs = new SafeHtml(
      render(files.map(unifiedDiff).join(''), {
        drawFileList: false,
        outputFormat: 'line-by-line',
        matching: 'lines',
        diffMaxChanges: 2000,
      }),
    );
  }
  return html`<section class="card summary risk-${view.risk}" id="call-summary">
  <h2>What this call does</h2>
  ${overview(view, 'list')}
  ${view.items.length ? html`<ul class="summary-items">${view.items.map((i) => html`<li><code>${i}</code></li>`)}</ul>` : ''}
  ${diffs ? html`<div class="diffs" id="diffs">${diffs}</div>` : ''}
  ${summary.truncated ? html`<p class="muted">Part of this summary was left out to keep it small; the <a href="/ui/requests/${requestId}/raw">raw arguments</a> have everything.</p>` : ''}
</section>`;
}
