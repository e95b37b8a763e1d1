/**
 * @module langgraph
 * `tollgate/langgraph`: tollgate approvals for LangGraph.js and langchain v1's `humanInTheLoopMiddleware`.
 */
export {
  answerInterrupt,
  resumeCommand,
  type GraphInterrupt,
  type HitlDecision,
  type LanggraphGateOptions,
  type PlainInterruptAnswer,
} from './interrupts.js';
export type { FrameworkGateOptions } from '../gate.js';
