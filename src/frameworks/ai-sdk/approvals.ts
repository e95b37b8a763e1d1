/**
 * @module frameworks/ai-sdk
 * Vercel AI SDK (`ai` 6 and 7): answers the `tool-approval-request` parts of a generateText/streamText result through
 * tollgate. Only the parts both majors share are used (the part's `approvalId` and `toolCall`, and the
 * `tool-approval-response` tool message), and the types are written here structurally so `ai` stays an optional peer.
 */
import { argsObject, askForCall, confirmRun, gateClientFrom, type FrameworkGateOptions } from '../gate.js';

/** The part of a `tool-approval-request` content part this adapter reads. */
export interface AiSdkApprovalRequestPart {
  type: 'tool-approval-request';
  approvalId: string;
  toolCall: { toolCallId: string; toolName: string; input: unknown };
}

/** The `tool-approval-response` part the AI SDK reads on the next call. */
export interface AiSdkApprovalResponsePart {
  type: 'tool-approval-response';
  approvalId: string;
  approved: boolean;
  reason?: string;
}

/** A `tool` model message carrying the answers. */
export interface AiSdkApprovalMessage {
  role: 'tool';
  content: AiSdkApprovalResponsePart[];
}

/**
 * Files one tollgate request per `tool-approval-request` part in `content` (a result's `content`, or any list of
 * parts; other parts are ignored), waits for the verdicts and returns the `tool` message to append to the messages
 * before the next `generateText`/`streamText` call — or `[]` when nothing asked for approval. A denial's reason goes
 * into the response, so the model sees it in the `execution-denied` tool result. The idempotency key is
 * `<keyPrefix ?? "ai-sdk">:<toolCallId>`, so a restarted process asking again re-attaches to the same request.
 * The AI SDK has no way to approve with changed input, so approver-edited args are not applied (see the docs).
 *
 * @example
 * ```ts
 * import { generateText } from 'ai';
 * import { approvalResponses } from 'tollgate/ai-sdk';
 *
 * const messages = [{ role: 'user' as const, content: 'deploy to prod' }];
 * let result = await generateText({ model, tools, messages });
 * messages.push(...result.response.messages);
 * const answers = await approvalResponses(result.content, { url: 'http://127.0.0.1:8787', token: process.env.TOLLGATE_TOKEN });
 * if (answers.length) {
 *   messages.push(...answers);
 *   result = await generateText({ model, tools, messages });
 * }
 * ```
 */
export async function approvalResponses(
  content: readonly unknown[],
  options: FrameworkGateOptions = {},
): Promise<AiSdkApprovalMessage[]> {
  const requests = content.filter(isApprovalRequest);
  if (requests.length === 0) return [];
  const client = gateClientFrom(options);
  const parts = await Promise.all(
    requests.map(async (part): Promise<AiSdkApprovalResponsePart> => {
      const call = { toolName: part.toolCall.toolName, args: argsObject(part.toolCall.input) };
      const asked = await askForCall(client, options, 'ai-sdk', {
        ...call,
        callId: part.toolCall.toolCallId,
        metadata: { framework: 'ai-sdk', approval_id: part.approvalId },
      });
      // The call the AI SDK makes on an approval is the model's own: this tool with the input it asked with (filed
      // as `args`); its approval response carries no arguments, so an edited approval does not cover it.
      const verdict = await confirmRun(options, asked, call);
      return {
        type: 'tool-approval-response',
        approvalId: part.approvalId,
        approved: verdict.allowed,
        ...(verdict.reason ? { reason: verdict.reason } : {}),
      };
    }),
  );
  return [{ role: 'tool', content: parts }];
}

function isApprovalRequest(part: unknown): part is AiSdkApprovalRequestPart {
  if (!part || typeof part !== 'object') return false;
  const p = part as Partial<AiSdkApprovalRequestPart>;
  return (
    p.type === 'tool-approval-request' &&
    typeof p.approvalId === 'string' &&
    !!p.toolCall &&
    typeof p.toolCall.toolCallId === 'string'
  );
}
