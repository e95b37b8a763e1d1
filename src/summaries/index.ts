/**
 * @module summaries
 * Call summaries: what a tool call will do (file diffs, shell programs, SQL statements, MCP annotations) and how risky
 * it looks, computed once when a request is filed. One summarizer per kind behind the {@link Summarizer} contract.
 */
export { summarize, SUMMARIZERS, MAX_SUMMARY_CHARS } from './summarize.js';
export { REASONS, reasonParts, type ReasonCode } from './reasons.js';
export { cleanAnnotations } from './mcp.js';
export * from './types.js';
