// The modern era's multi-round-trip requests (MRTR). A handler that asks the client for input
// (ctx.elicit, ctx.createMessage, ctx.listRoots) on a stateless request cannot wait for it: the
// server answers `resultType: "input_required"` with the request in `inputRequests`, and the client
// retries the original request with `inputResponses`. The handler then runs again from the start,
// and its asks are answered from the responses, in order, by key. Answers of earlier rounds travel
// in `requestState`, signed with a key of this process so a client cannot forge another round's
// answers; state that fails the check is ignored (the server asks again), never trusted.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { ErrorCode, RpcError } from '../jsonrpc/errors.js';
import { isObject } from './request-scope.js';

/** Thrown inside a handler to end this round with an InputRequiredResult. Not an error. */
export class InputRequiredSignal extends Error {
  override readonly name = 'InputRequiredSignal';
  constructor(
    readonly key: string,
    readonly request: { method: string; params: Record<string, unknown> },
  ) {
    super(`input required: ${request.method} (${key})`);
  }
}

/** How long an answer carried in requestState stays valid. */
const STATE_TTL_MS = 15 * 60_000;

export class RequestStateCodec {
  private readonly key = randomBytes(32);

  encode(method: string, answers: Record<string, unknown>): string {
    const body = Buffer.from(JSON.stringify({ m: method, t: Date.now(), a: answers })).toString('base64url');
    return `${body}.${this.sign(body)}`;
  }

  /** The answers of earlier rounds, or {} for state that is absent, forged, stale or for another method. */
  decode(method: string, state: unknown): Record<string, unknown> {
    if (typeof state !== 'string') return {};
    const [body, mac] = state.split('.');
    if (!body || !mac) return {};
    const expected = Buffer.from(this.sign(body));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return {};
    try {
      const parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { m?: unknown; t?: unknown; a?: unknown };
      if (parsed.m !== method || typeof parsed.t !== 'number' || Date.now() - parsed.t > STATE_TTL_MS || !isObject(parsed.a)) return {};
      return parsed.a;
    } catch {
      return {};
    }
  }

  private sign(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}

/** One request's answers (earlier rounds plus this retry's inputResponses) and its ask counter. */
export class InputRound {
  private readonly counters = new Map<string, number>();

  constructor(readonly answers: Record<string, unknown>) {}

  static from(params: Record<string, unknown>, method: string, codec: RequestStateCodec): InputRound {
    const responses = params.inputResponses;
    if (responses !== undefined && !isObject(responses)) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        'Invalid params: "inputResponses" must be an object mapping input request keys to results',
      );
    }
    return new InputRound({ ...codec.decode(method, params.requestState), ...(responses ?? {}) });
  }

  /** The key for the next ask of `method` (unless the handler names one). */
  nextKey(method: string, given?: string): string {
    if (given !== undefined) return given;
    const prefix = method.split('/')[0]!;
    const n = this.counters.get(prefix) ?? 0;
    this.counters.set(prefix, n + 1);
    return `${prefix}-${n}`;
  }
}
