/**
 * @module client/errors
 * What {@link GateClient} throws: the gateway's problem+json document when it answered, or a network-level cause
 * when it did not.
 */

/** An RFC 9457 problem document as the gateway sends it. */
export interface ProblemDocument {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: { path: string; message: string }[];
}

/**
 * A failed call to the gateway. `status` is the HTTP status, or 0 when no answer arrived (network error, timeout,
 * missing configuration); `problem` is the problem+json body when the gateway sent one.
 */
export class GateClientError extends Error {
  override readonly name = 'GateClientError';

  constructor(
    message: string,
    /** HTTP status; 0 when the gateway never answered. */
    readonly status: number,
    /** The gateway's problem document, when it sent one. */
    readonly problem: ProblemDocument | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** The problem's stable code (`tollgate_conflict`, `client_config`, …), taken from its `type` URL; `network` when no answer came. */
  get code(): string {
    if (this.problem?.type && this.problem.type !== 'about:blank')
      return this.problem.type.split('/').pop() ?? 'unknown';
    return this.status === 0 ? 'network' : `http_${this.status}`;
  }

  /** True when trying again later may succeed: no answer, or the gateway was restarting or overloaded. */
  get retryable(): boolean {
    return (
      (this.status === 0 && this.problem === null) ||
      this.status === 502 ||
      this.status === 503 ||
      this.status === 504 ||
      this.status === 429
    );
  }
}

/** Reads a problem document from a failed response, or builds one from the status when the body is something else. */
export async function problemFrom(response: Response): Promise<ProblemDocument> {
  return problemFromText(response.status, response.statusText, await response.text().catch(() => ''));
}

/** {@link problemFrom} for a body already read (a `node:http` response has no `Response`). */
export function problemFromText(status: number, statusText: string, text: string): ProblemDocument {
  try {
    const parsed = JSON.parse(text) as Partial<ProblemDocument>;
    if (parsed && typeof parsed === 'object' && typeof parsed.detail === 'string') {
      return {
        type: parsed.type ?? `about:blank`,
        title: parsed.title ?? statusText,
        status: parsed.status ?? status,
        detail: parsed.detail,
        ...(Array.isArray(parsed.errors) ? { errors: parsed.errors } : {}),
      };
    }
  } catch {
    // Not JSON: a proxy's error page, say. Fall through to a synthetic problem.
  }
  return { type: 'about:blank', title: statusText || 'Error', status, detail: text.slice(0, 300) || `HTTP ${status}` };
}
