/**
 * @module summaries/sql
 * The SQL summarizer: statement kinds and tables read by `node-sql-parser` (its PostgreSQL build, then its MySQL one,
 * each loaded on first use), with `DELETE`/`UPDATE` without `WHERE`, `DROP` and `TRUNCATE` named. Used for a tool's
 * `query`/`sql` argument and for the SQL a database client runs in a shell command.
 */
import { reason } from './reasons.js';
import type { Finding, StatementSummary, Summarizer } from './types.js';

/** Characters of SQL parsed at most; longer text is shown as too large (medium). */
export const MAX_SQL_CHARS = 20_000;
/** Statements listed at most. */
const MAX_STATEMENTS = 50;

type SqlParser = { astify(sql: string, opt?: object): unknown; tableList(sql: string, opt?: object): string[] };
const dialects = { postgresql: 'node-sql-parser/build/postgresql.js', mysql: 'node-sql-parser/build/mysql.js' };
const loaded = new Map<string, Promise<SqlParser>>();

function loadSqlParser(dialect: keyof typeof dialects): Promise<SqlParser> {
  let parser = loaded.get(dialect);
  if (!parser) {
    parser = import(dialects[dialect]).then(
      (m: { default: { Parser: new () => SqlParser } }) => new m.default.Parser(),
    );
    loaded.set(dialect, parser);
  }
  return parser;
}

/** Argument names that hold SQL. */
const SQL_ARG = ['sql', 'query', 'statement', 'sql_query', 'sqlQuery'];
/** Tool names of database tools (a database MCP server's `query`, `execute_sql`, …). */
const SQL_TOOL = /sql|query|postgres|mysql|sqlite|database|\bdb\b|_db_|execute/i;

/** The SQL text of a call, when it has one. */
export function sqlOf(toolName: string, args: Record<string, unknown>): string | null {
  for (const name of SQL_ARG) {
    const value = args[name];
    if (typeof value !== 'string' || !value.trim()) continue;
    // A `query` argument is SQL only for a database tool, or when it reads as SQL.
    if (
      name === 'query' &&
      !SQL_TOOL.test(toolName) &&
      !/^\s*(select|insert|update|delete|with|drop|truncate|alter|create)\b/i.test(value)
    )
      continue;
    return value;
  }
  return null;
}

interface AstNode {
  type?: string;
  keyword?: string;
  where?: unknown;
}

/** What a piece of SQL does: its statements and the reasons they raise. Throws when no dialect parses it. */
export async function analyzeSql(
  sql: string,
): Promise<{ statements: StatementSummary[]; reasons: Finding['reasons']; truncated: boolean }> {
  if (sql.length > MAX_SQL_CHARS)
    return { statements: [], reasons: [reason('too_large', `${sql.length} characters of SQL`)], truncated: true };
  let asts: AstNode[] | null = null;
  let tables: string[] = [];
  let failure: unknown;
  for (const dialect of ['postgresql', 'mysql'] as const) {
    try {
      const parser = await loadSqlParser(dialect);
      const ast = parser.astify(sql);
      asts = (Array.isArray(ast) ? ast : [ast]) as AstNode[];
      tables = parser.tableList(sql);
      break;
    } catch (error) {
      failure = error;
    }
  }
  if (!asts) throw failure instanceof Error ? failure : new Error('unparsable SQL');
  const reasons: Finding['reasons'] = [];
  const statements = asts.slice(0, MAX_STATEMENTS).map((ast): StatementSummary => {
    const kind = String(ast.type ?? 'unknown').toLowerCase();
    const own = tables
      .map((t) => t.split('::'))
      .filter(([k]) => k?.toLowerCase() === kind)
      .map(([, schema, table]) => (schema && schema !== 'null' ? `${schema}.${table}` : String(table)));
    const flags: string[] = [];
    if ((kind === 'delete' || kind === 'update') && !ast.where) flags.push('sql_unbounded_write');
    if (kind === 'drop') flags.push('sql_drop');
    if (kind === 'truncate') flags.push('sql_truncate');
    if (['insert', 'update', 'delete', 'replace'].includes(kind) && !flags.length) flags.push('sql_write');
    if (['alter', 'create', 'rename'].includes(kind)) flags.push('sql_schema_change');
    return { kind, tables: [...new Set(own)], flags };
  });
  for (const statement of statements)
    for (const flag of statement.flags)
      if (!reasons.some((r) => r.code === flag))
        reasons.push(reason(flag as Parameters<typeof reason>[0], statement.tables.join(', ') || undefined));
  return { statements, reasons, truncated: asts.length > MAX_STATEMENTS };
}

/** The SQL summarizer. */
export const sqlSummarizer: Summarizer = {
  kind: 'sql',
  accepts: (toolName, args) => sqlOf(toolName, args) !== null,
  async summarize(toolName, args): Promise<Finding> {
    const sql = sqlOf(toolName, args) ?? '';
    try {
      const { statements, reasons, truncated } = await analyzeSql(sql);
      return { kind: 'sql', statements, reasons, truncated };
    } catch (error) {
      return { kind: 'sql', statements: [], reasons: [reason('sql_unparsed', firstLine(error))] };
    }
  },
};

const firstLine = (error: unknown): string =>
  String((error as Error)?.message ?? error)
    .split('\n')[0]!
    .slice(0, 160);
