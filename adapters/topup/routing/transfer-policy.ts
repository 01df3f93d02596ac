// The file-transfer rules both ends apply: the size cap (TOPUP_XFER_MAX_BYTES, default 16 MiB,
// checked with stat before any byte is read), the default directory (TOPUP_XFER_DIR, default
// ~/.topup/xfer/, `off` = explicit paths only), path resolution (absolute or ~/…; a default path
// is <dir>/<basename>, so it cannot escape the directory), and size-checked base64 decoding.
import { basename, isAbsolute, join, normalize } from 'node:path';
import { ToolError } from '../../../src/index.js';

export const DEFAULT_XFER_MAX_BYTES = 16 * 1024 * 1024;

export interface TransferPolicy {
  readonly maxBytes: number;
  /** null when TOPUP_XFER_DIR=off. */
  readonly dir: string | null;
  readonly home: string;
}

export function transferPolicy(env: NodeJS.ProcessEnv, home: string): TransferPolicy {
  const rawMax = env.TOPUP_XFER_MAX_BYTES;
  let maxBytes = DEFAULT_XFER_MAX_BYTES;
  if (rawMax !== undefined && rawMax !== '') {
    if (!/^\d+$/.test(rawMax.trim()) || Number(rawMax) <= 0) {
      throw new ToolError(`TOPUP_XFER_MAX_BYTES is "${rawMax}"; expected a positive whole number of bytes`, { phase: 'config' });
    }
    maxBytes = Number(rawMax);
  }
  const rawDir = env.TOPUP_XFER_DIR;
  let dir: string | null = join(home, '.topup', 'xfer');
  if (rawDir === 'off') dir = null;
  else if (rawDir !== undefined && rawDir !== '') dir = expandHome(rawDir, home);
  return { maxBytes, dir, home };
}

export function expandHome(path: string, home: string): string {
  if (path === '~') return home;
  if (path.startsWith('~/')) return join(home, path.slice(2));
  return path;
}

/** An explicit path (absolute or ~/…), or <TOPUP_XFER_DIR>/<name> when none is given. */
export function resolveTransferPath(policy: TransferPolicy, explicit: string | undefined, name: string, what: string): string {
  if (explicit !== undefined) {
    const p = expandHome(explicit, policy.home);
    if (!isAbsolute(p))
      throw new ToolError(`${what} "${explicit}" is relative; expected an absolute path or one starting with ~/`, { phase: 'path' });
    return normalize(p);
  }
  if (policy.dir === null) {
    throw new ToolError(`TOPUP_XFER_DIR is "off", so ${what} must be given explicitly`, { phase: 'path' });
  }
  const base = basename(name);
  if (base === '' || base === '.' || base === '..')
    throw new ToolError(`cannot derive a file name from "${name}" for the default ${what}`, { phase: 'path' });
  return join(policy.dir, base);
}

/** Decoded size of a base64 string, computed without decoding it. */
export function base64DecodedLength(b64: string): number {
  const padding = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return Math.floor((b64.length * 3) / 4) - padding;
}

/** Decode a base64 payload after checking its size against the cap and its alphabet. */
export function decodeCapped(b64: string, maxBytes: number): Buffer {
  const size = base64DecodedLength(b64);
  if (size > maxBytes) {
    throw new ToolError(`the transferred file is ${size} bytes, over the transfer cap of ${maxBytes} bytes (TOPUP_XFER_MAX_BYTES)`, {
      phase: 'cap',
      bytes: size,
      max_bytes: maxBytes,
    });
  }
  // Buffer.from skips characters outside the alphabet, so a payload with any of them (or bad
  // padding) decodes to a different length than its text implies: one O(1) check after decoding
  // instead of a regex pass over megabytes.
  const bytes = Buffer.from(b64, 'base64');
  if (b64.length % 4 !== 0 || bytes.length !== size) throw new ToolError('data is not valid base64', { phase: 'decode' });
  return bytes;
}
