/**
 * @module channels/web/pages/away
 * The signed-in person's away window: whether they are away, until when and who stands in for them, where that was
 * set (the config file or here), and a form to set it (dates in UTC, a delegate among the people of the directory,
 * a note) or to say "I'm back". What the delegate is lent is the person's say on requests that wait for them.
 */
import type { Away } from '../../../src/people/away.js';
import { html, type SafeHtml } from '../html.js';
import { formatTime } from './format.js';
import { layout, type Viewer } from './layout.js';

/** What the page shows. */
export interface AwayPageOptions {
  viewer: Viewer;
  person: string;
  away: Away | null;
  source: 'config' | 'database' | null;
  setBy: string | null;
  at: Date | null;
  /** Who may stand in: every other person of the directory, by id, with a name when known. */
  people: { id: string; name: string | null }[];
  /** A fixed notice after a change, or the problem with what was submitted. */
  notice?: { tone: 'good' | 'bad'; text: string };
  /** What was submitted, kept when it was refused. */
  form?: { from?: string; until?: string; delegate?: string; note?: string };
}

const day = (d: Date) => d.toISOString().slice(0, 10);

/** Renders the away page. */
export function awayPage(options: AwayPageOptions): SafeHtml {
  const { viewer, away } = options;
  const form =
    options.form ??
    (away
      ? { from: day(away.from), until: day(away.until), delegate: away.delegate ?? '', note: away.note ?? '' }
      : {});
  const where =
    options.source === 'config'
      ? 'set in the config file'
      : options.setBy
        ? `set by ${options.setBy}${options.at ? ` at ${formatTime(options.at)}` : ''}`
        : '';
  const status = away
    ? html`<p id="away-now">You are away from ${formatTime(away.from)} until ${formatTime(away.until)}; ${away.delegate ? html`<strong>${away.delegate}</strong> stands in for you: requests waiting for you wait for them too, and their decisions are recorded as made for you.` : 'nobody stands in for you: requests still wait for you, and escalations skip you.'}${away.note ? html` Note: ${away.note}` : ''} <span class="muted">(${where})</span></p>`
    : html`<p id="away-now">You are not away.</p>`;
  const body = html`<h1>Away</h1>
${options.notice ? html`<p class="notice ${options.notice.tone}" role="status" id="away-notice">${options.notice.text}</p>` : ''}
<section class="card" id="away-status">${status}
${
  away
    ? html`<form method="post" action="/ui/away/clear" class="inline" id="away-clear">
    <input type="hidden" name="_csrf" value="${viewer.csrf}">
    <button type="submit">I'm back</button>
  </form>`
    : ''
}
</section>
<form method="post" action="/ui/away" class="card" id="away-form">
  <input type="hidden" name="_csrf" value="${viewer.csrf}">
  <p class="muted">Dates are UTC days: away from the start of the first, back at the start of the second.</p>
  <label>Away from <input type="date" name="from" required value="${form.from ?? ''}"></label>
  <label>Back on <input type="date" name="until" required value="${form.until ?? ''}"></label>
  <label>Who stands in for you
    <select name="delegate">
      <option value="">Nobody</option>
      ${options.people.map((p) => html`<option value="${p.id}" ${form.delegate === p.id ? html`selected` : ''}>${p.name ? `${p.name} (${p.id})` : p.id}</option>`)}
    </select>
  </label>
  <label>Note <input type="text" name="note" maxlength="500" value="${form.note ?? ''}"></label>
  <button type="submit">Save</button>
</form>`;
  return layout({ title: 'Away', viewer, current: 'away' }, body);
}
