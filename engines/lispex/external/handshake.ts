// The startup version handshake of an external product: `<product> --handshake` must print one
// JSON line naming lispex.external-backend-protocol/v1 within a few seconds, with an empty
// environment. Anything else rejects the product before the server starts.

import { spawnSync } from 'node:child_process';
import { EXTERNAL_PROTOCOL } from './derivation.js';

export const HANDSHAKE_TIMEOUT_MS = 5_000;

export interface HandshakeAnswer {
  readonly protocol: string;
  readonly product: string;
  readonly version: string;
}

/** The product's handshake answer, or a message saying what was wrong. */
export function handshake(path: string): { ok: true; answer: HandshakeAnswer } | { ok: false; problem: string } {
  const r = spawnSync(path, ['--handshake'], {
    env: {},
    timeout: HANDSHAKE_TIMEOUT_MS,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024,
    encoding: 'utf8',
  });
  if (r.error !== undefined) {
    const timedOut = (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT';
    return {
      ok: false,
      problem: timedOut
        ? `did not answer the version handshake within ${HANDSHAKE_TIMEOUT_MS} ms`
        : `could not be run (${r.error.message})`,
    };
  }
  if (r.status !== 0) return { ok: false, problem: `answered the version handshake with exit status ${r.status ?? r.signal}` };
  let answer: unknown;
  try {
    answer = JSON.parse(r.stdout.trim());
  } catch {
    return {
      ok: false,
      problem: `answered the version handshake with something that is not JSON (expected {"protocol":"${EXTERNAL_PROTOCOL}",...})`,
    };
  }
  const a = answer as Partial<HandshakeAnswer> | null;
  if (a === null || typeof a !== 'object' || a.protocol !== EXTERNAL_PROTOCOL) {
    return { ok: false, problem: `speaks protocol ${JSON.stringify(a?.protocol ?? null)}, expected ${EXTERNAL_PROTOCOL}` };
  }
  return { ok: true, answer: { protocol: a.protocol, product: String(a.product ?? ''), version: String(a.version ?? '') } };
}
