// The local side of push_file / pull_file: the file is cut into chunks that travel base64 in
// tools/call requests of the peer's hidden blob tools, a few in flight at once (so reading,
// encoding, the SSH hop and the remote write overlap). The cap is checked with stat before any
// byte is read; the receiving side writes atomically.
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { checkFileSize, FileTooLargeError, NotARegularFileError } from '../../../common/capped-read.js';
import { writeFileDurable } from '../../../common/durable-write.js';
import { randomBytes } from 'node:crypto';
import { ToolError, parseToolPayload } from '../../../src/index.js';
import type { CallToolResult } from '../../../src/index.js';
import { decodeCapped } from './transfer-policy.js';

/** Chunk size on the wire (raw bytes); the blob tools accept up to CHUNK_MAX_BYTES. */
export const TRANSFER_CHUNK_BYTES = 1024 * 1024;
/** Chunks in flight at once. */
const IN_FLIGHT = 4;

export type CallPeer = (tool: string, args: Record<string, unknown>) => Promise<CallToolResult>;

/** The payload of a blob-tool result, or a ToolError carrying the peer's error and phase. */
function payloadOf(result: CallToolResult, what: string): Record<string, unknown> {
  const payload = parseToolPayload(result);
  if (!result.isError && payload && typeof payload === 'object') return payload as Record<string, unknown>;
  const p = (payload && typeof payload === 'object' ? payload : { error: String(payload) }) as Record<string, unknown>;
  const { error, ...details } = p;
  throw new ToolError(`${what}: ${typeof error === 'string' ? error : JSON.stringify(p)}`, {
    ...details,
    phase: typeof p.phase === 'string' ? p.phase : 'remote',
  });
}

/** Run `count` jobs with at most IN_FLIGHT at a time; the first failure stops new ones and is thrown. */
async function inFlight(count: number, job: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown;
  const worker = async () => {
    while (failure === undefined && next < count) {
      const i = next++;
      try {
        await job(i);
      } catch (err) {
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, Math.max(count, 1)) }, worker));
  if (failure !== undefined) throw failure;
}

/** Push `localPath` (size already known to be within `maxBytes`) to the peer; returns the peer's path. */
export async function pushFile(
  call: CallPeer,
  localPath: string,
  maxBytes: number,
  remotePath: string | undefined,
  hostLabel: string,
): Promise<{ remote_path: string; bytes: number }> {
  let total: number;
  try {
    // stat-and-cap on the open descriptor before a single byte is read.
    total = await checkFileSize(localPath, maxBytes);
  } catch (err) {
    if (err instanceof FileTooLargeError) {
      throw new ToolError(
        `local file ${localPath} is ${err.size} bytes, over the transfer cap of ${maxBytes} bytes (TOPUP_XFER_MAX_BYTES); nothing was read`,
        { phase: 'cap', bytes: err.size, max_bytes: maxBytes },
      );
    }
    if (err instanceof NotARegularFileError) throw new ToolError(`local file ${localPath} is not a regular file`, { phase: 'read' });
    throw new ToolError(`local file ${localPath} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
      phase: 'read',
    });
  }
  const transfer = randomBytes(12).toString('hex');
  const where = { ...(remotePath !== undefined ? { path: remotePath } : {}), name: basename(localPath) };
  const chunks = Math.max(1, Math.ceil(total / TRANSFER_CHUNK_BYTES));
  const fh = await open(localPath, 'r');
  try {
    await inFlight(chunks, async (i) => {
      const offset = i * TRANSFER_CHUNK_BYTES;
      const length = Math.min(TRANSFER_CHUNK_BYTES, total - offset);
      const buf = Buffer.alloc(length);
      const { bytesRead } = await fh.read(buf, 0, length, offset);
      if (bytesRead !== length) throw new ToolError(`local file ${localPath} changed while being read`, { phase: 'read' });
      payloadOf(
        await call('_recv_blob', { op: 'chunk', transfer, ...where, total, offset, data: buf.toString('base64') }),
        `push_file to ${hostLabel} failed`,
      );
    });
    const done = payloadOf(await call('_recv_blob', { op: 'commit', transfer }), `push_file to ${hostLabel} failed`);
    return { remote_path: String(done.path), bytes: Number(done.bytes) };
  } catch (err) {
    await call('_recv_blob', { op: 'abort', transfer }).catch(() => undefined);
    throw err;
  } finally {
    await fh.close();
  }
}

/** Pull `remotePath` from the peer into `localPath` (atomically); the peer checks the cap before reading. */
export async function pullFile(
  call: CallPeer,
  remotePath: string,
  localPath: string,
  maxBytes: number,
  hostLabel: string,
): Promise<{ local_path: string; bytes: number }> {
  const what = `pull_file from ${hostLabel} failed`;
  const read = async (offset: number) => {
    const p = payloadOf(await call('_send_blob', { path: remotePath, max_bytes: maxBytes, offset, length: TRANSFER_CHUNK_BYTES }), what);
    if (typeof p.data !== 'string' || typeof p.bytes !== 'number')
      throw new ToolError(`${what}: malformed _send_blob answer`, { phase: 'remote' });
    return { size: p.bytes, mtime: p.mtime_ms, data: decodeCapped(p.data, Math.min(maxBytes, TRANSFER_CHUNK_BYTES)) };
  };
  const first = await read(0);
  if (first.size > maxBytes)
    throw new ToolError(`${what}: the remote file is ${first.size} bytes, over the transfer cap of ${maxBytes} bytes`, { phase: 'cap' });
  // The whole file is at most the cap: assemble it in memory, then one durable atomic write
  // (temp file, fsync, rename, directory fsync) — a failed pull leaves nothing behind.
  const content = Buffer.alloc(first.size);
  first.data.copy(content, 0);
  const chunks = Math.ceil(first.size / TRANSFER_CHUNK_BYTES);
  await inFlight(Math.max(0, chunks - 1), async (i) => {
    const offset = (i + 1) * TRANSFER_CHUNK_BYTES;
    const part = await read(offset);
    if (part.size !== first.size || part.mtime !== first.mtime) {
      throw new ToolError(`${what}: ${remotePath} changed on the host during the transfer`, { phase: 'read' });
    }
    if (offset + part.data.length > content.length) throw new ToolError(`${what}: a chunk runs past the file size`, { phase: 'remote' });
    part.data.copy(content, offset);
  });
  try {
    await writeFileDurable(localPath, content, { mode: 0o644 });
  } catch (err) {
    throw new ToolError(`cannot write ${localPath}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { phase: 'write' });
  }
  return { local_path: localPath, bytes: first.size };
}
