/**
 * @module channels/feishu/i18n-summary
 * The call summary's words in Chinese, handed to the one card model (`src/channel/card-summary.ts`) by
 * {@link localizedCardText}: risk labels, reasons worded from their stable codes (the detail the summarizer appended,
 * a host or a path, kept as written), flag tags, headlines and notes. Paths, programs, diffs and SQL stay as the call
 * wrote them.
 */
import { ENGLISH_SUMMARY_WORDS, type SummaryWords } from '../../src/channel/card-summary.js';
import { reasonParts, type ReasonCode } from '../../src/summaries/index.js';

/** Every risk code's sentence: a new code fails to compile until it is translated here. */
const ZH_REASONS: Record<ReasonCode, string> = {
  recursive_delete: '递归删除文件',
  forced_delete: '不经确认删除文件',
  history_rewrite: '改写 git 历史',
  privilege: '以提升的权限运行',
  world_writable: '使文件对所有人可写',
  remote_code: '运行从网络获取的代码',
  eval: '把字符串当作代码执行',
  network: '访问网络',
  write_outside_cwd: '写入工作目录之外',
  secret_read: '读取机密',
  package_install: '安装软件包',
  db_destructive: '运行破坏性的数据库语句',
  disk_overwrite: '覆写磁盘或文件系统',
  shell_unparsed: '无法解析该命令',
  too_large: '内容过大，无法完整读取',
  path_outside_cwd: '修改工作目录之外的文件',
  secret_file: '修改存放机密的文件',
  file_deleted: '删除文件',
  patch_unparsed: '无法读取该补丁',
  sql_unparsed: '无法解析该 SQL',
  sql_drop: '删除表或数据库',
  sql_truncate: '清空表',
  sql_unbounded_write: '更新或删除所有行（没有 WHERE）',
  sql_write: '修改数据',
  sql_schema_change: '修改表结构',
  mcp_destructive: '该工具声明可能破坏数据',
  mcp_open_world: '该工具声明会访问外部系统',
  mcp_writes: '该工具声明会修改内容，但不具破坏性',
  mcp_read_only: '该工具声明只读',
  mcp_unannotated: '该工具未说明其行为',
  unknown_tool: 'tollgate 不了解该工具的作用',
  summary_failed: '无法总结该调用',
};

/** The codes a command or statement is tagged with, as short tags. */
const ZH_FLAGS: Partial<Record<ReasonCode, string>> = {
  recursive_delete: '递归删除',
  forced_delete: '强制删除',
  history_rewrite: '改写历史',
  privilege: '提权',
  world_writable: '所有人可写',
  remote_code: '远程代码',
  eval: '执行字符串',
  network: '网络',
  write_outside_cwd: '写到工作目录外',
  secret_read: '读取机密',
  package_install: '安装软件包',
  disk_overwrite: '覆写磁盘',
  sql_unbounded_write: '全表写入',
  sql_drop: '删除表',
  sql_truncate: '清空表',
  sql_write: '写入',
  sql_schema_change: '改表结构',
};

/** Details the summarizers word themselves (sizes, the parser's verdict), translated; others are shown as written. */
const ZH_DETAILS: [RegExp, string][] = [
  [/^(\d+) characters$/, '$1 个字符'],
  [/^(\d+) characters of SQL$/, '$1 个字符的 SQL'],
  [/^syntax error$/, '语法错误'],
  [/^parsing took too long$/, '解析耗时过长'],
  [/^too complex to parse: nested more than (\d+) levels$/, '过于复杂：嵌套超过 $1 层'],
  [/^too complex to parse: more than (\d+) pipes$/, '过于复杂：超过 $1 个管道'],
  [/^too complex to parse: more than (\d+) && and \|\|$/, '过于复杂：超过 $1 个 && 和 ||'],
  [
    /^too complex to parse: more than (\d+) characters after a heredoc on its line$/,
    '过于复杂：heredoc 所在行其后超过 $1 个字符',
  ],
  [/^too complex to parse: more than (\d+) characters read$/, '过于复杂：读取超过 $1 个字符'],
  [/^too complex to parse: more than (\d+) parser steps$/, '过于复杂：超过 $1 个解析步骤'],
  [/ and (\d+) more$/, ' 等另外 $1 项'],
];

function zhDetail(detail: string): string {
  const known = ZH_DETAILS.find(([pattern]) => pattern.test(detail));
  return known ? detail.replace(known[0], known[1]) : detail;
}

/** The summary's words in Chinese. */
export const CHINESE_SUMMARY_WORDS: SummaryWords = {
  risk: { high: '高风险', medium: '中风险', low: '低风险' },
  reason(r) {
    const parts = reasonParts(r);
    if (!parts) return r.text;
    const sentence = ZH_REASONS[parts.code];
    return parts.detail === undefined ? sentence : `${sentence}：${zhDetail(parts.detail)}`;
  },
  flag: (code) => ZH_FLAGS[code as ReasonCode] ?? ENGLISH_SUMMARY_WORDS.flag(code),
  colon: '：',
  reasonSeparator: '；',
  listSeparator: '、',
  changes: (files, added, removed) => `修改 ${files} 个文件：+${added} −${removed}`,
  runs: (programs) => `运行 ${programs}`,
  statements: (count, kinds) => `${count} 条 SQL 语句：${kinds}`,
  mcpTool: 'MCP 工具（按其服务器的描述）',
  newFile: '新文件',
  deletedFile: '删除',
  outsideCwd: '在工作目录之外',
  hints: {
    readOnly: '只读',
    destructive: '破坏性',
    idempotent: '幂等',
    openWorld: '访问外部',
    yes: '是',
    no: '否',
    notSaid: '未说明',
  },
  more: (count) => `… 另外 ${count} 项`,
};
