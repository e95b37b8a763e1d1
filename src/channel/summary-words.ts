/**
 * @module channel/summary-words
 * The words a card puts around a call summary (`card-summary.ts`), in English. A channel that speaks another language
 * hands the card model its own {@link SummaryWords} (Feishu's Chinese: `channels/feishu/i18n-summary.ts`); the card
 * model still decides what is shown, cut and masked, so a translation changes only words.
 */
import type { Risk, RiskReason } from '../summaries/types.js';

/** How an MCP tool's four hints are named, and the three answers. */
export interface HintWords {
  readOnly: string;
  destructive: string;
  idempotent: string;
  openWorld: string;
  yes: string;
  no: string;
  notSaid: string;
}

/** Every word a card puts around a summary's values. */
export interface SummaryWords {
  risk: Record<Risk, string>;
  /** A risk reason's sentence: English keeps the summary's own text; a translation words it from its code. */
  reason(reason: RiskReason): string;
  /** A flag code (a risk code) as a short tag: `recursive_delete` → `recursive delete`. */
  flag(code: string): string;
  /** Between a label and what follows (`High risk: …`, `read-only: yes`). */
  colon: string;
  /** Between reasons in one line. */
  reasonSeparator: string;
  /** Between names in a list (programs, flags, notes). */
  listSeparator: string;
  /** The edit headline: `Changes 3 files: +12 −4`. */
  changes(files: number, added: number, removed: number): string;
  /** The shell headline: `Runs curl, sudo, bash` (programs already joined). */
  runs(programs: string): string;
  /** The SQL headline: `2 SQL statements: delete, select` (kinds already joined). */
  statements(count: number, kinds: string): string;
  /** The MCP headline. */
  mcpTool: string;
  /** Notes after a file's counts. */
  newFile: string;
  deletedFile: string;
  outsideCwd: string;
  hints: HintWords;
  /** The line after a cut list: `… and 3 more`. */
  more(count: number): string;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The summary's words in English (every channel's default). */
export const ENGLISH_SUMMARY_WORDS: SummaryWords = {
  risk: { high: 'High risk', medium: 'Medium risk', low: 'Low risk' },
  reason: (r) => r.text,
  flag: (code) => code.replace(/^sql_/, '').replace(/_/g, ' '),
  colon: ': ',
  reasonSeparator: '; ',
  listSeparator: ', ',
  changes: (files, added, removed) => `Changes ${plural(files, 'file', 'files')}: +${added} −${removed}`,
  runs: (programs) => `Runs ${programs}`,
  statements: (count, kinds) => `${plural(count, 'SQL statement', 'SQL statements')}: ${kinds}`,
  mcpTool: 'MCP tool, as its server describes it',
  newFile: 'new file',
  deletedFile: 'deleted',
  outsideCwd: 'outside the working directory',
  hints: {
    readOnly: 'read-only',
    destructive: 'destructive',
    idempotent: 'idempotent',
    openWorld: 'open world',
    yes: 'yes',
    no: 'no',
    notSaid: 'not said',
  },
  more: (count) => `… and ${count} more`,
};
