// The receiving end of a chunked push: chunks of one transfer (a sender-chosen id) arrive in any
// order, each is written at its offset into a `.tmp` file next to the target; `commit` checks that
// every byte arrived, syncs and renames (atomic), `abort` (or 60 s without a chunk) removes the
// temp file. The total size is checked against the cap before the temp file is even created.
import { mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ToolError } from '../../../src/index.js';
import { fsyncDirectory } from '../../../common/durable-write.js';

const IDLE_MS = 60_000;
let tmpCounter = 0;

interface Incoming {
  readonly target: string;
  readonly tmp: string;
  readonly total: number;
  readonly fh: Promise<FileHandle>;
  received: number;
  /** Offsets already written, so a repeated chunk cannot make the count lie. */
  readonly seen: Set<number>;
  idle: NodeJS.Timeout;
}

export class IncomingTransfers {
  private readonly transfers = new Map<string, Incoming>();

  /** Write one chunk; the first chunk of a transfer creates it (`target`/`total` fix it). */
  async chunk(id: string, target: string, total: number, maxBytes: number, offset: number, data: Buffer): Promise<void> {
    let t = this.transfers.get(id);
    if (!t) {
      if (total > maxBytes) {
        throw new ToolError(`the transferred file is ${total} bytes, over the transfer cap of ${maxBytes} bytes (TOPUP_XFER_MAX_BYTES)`, {
          phase: 'cap',
          bytes: total,
          max_bytes: maxBytes,
        });
      }
      const tmp = `${target}.${process.pid}.${tmpCounter++}.tmp`;
      const fh = mkdir(dirname(target), { recursive: true, mode: 0o700 }).then(() => open(tmp, 'w', 0o644));
      fh.catch(() => {});
      t = { target, tmp, total, fh, received: 0, seen: new Set(), idle: this.idleTimer(id) };
      this.transfers.set(id, t);
    } else {
      if (t.target !== target || t.total !== total)
        throw new ToolError(`transfer ${id} was started for ${t.target} (${t.total} bytes)`, { phase: 'transfer' });
      t.idle.refresh();
    }
    if (offset + data.length > t.total) {
      await this.abort(id);
      throw new ToolError(`chunk at ${offset} (+${data.length}) runs past the announced size ${total}`, { phase: 'transfer' });
    }
    let fh: FileHandle;
    try {
      fh = await t.fh;
    } catch (err) {
      await this.abort(id);
      throw new ToolError(`cannot write ${target}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { phase: 'write' });
    }
    if (t.seen.has(offset)) return;
    t.seen.add(offset);
    await fh.write(data, 0, data.length, offset);
    t.received += data.length;
  }

  async commit(id: string): Promise<{ path: string; bytes: number }> {
    const t = this.transfers.get(id);
    if (!t)
      throw new ToolError(`no transfer ${id} is in progress (it may have been idle for over ${IDLE_MS / 1000} s)`, { phase: 'transfer' });
    if (t.received !== t.total) {
      await this.abort(id);
      throw new ToolError(`transfer ${id} is incomplete: ${t.received} of ${t.total} bytes arrived`, { phase: 'transfer' });
    }
    this.transfers.delete(id);
    clearTimeout(t.idle);
    try {
      const fh = await t.fh;
      await fh.sync();
      await fh.close();
      await rename(t.tmp, t.target);
      // The rename itself must survive a crash, as with every durable write.
      await fsyncDirectory(dirname(t.target));
    } catch (err) {
      await rm(t.tmp, { force: true });
      throw new ToolError(`cannot write ${t.target}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, { phase: 'write' });
    }
    return { path: t.target, bytes: t.total };
  }

  async abort(id: string): Promise<void> {
    const t = this.transfers.get(id);
    if (!t) return;
    this.transfers.delete(id);
    clearTimeout(t.idle);
    await t.fh.then((fh) => fh.close()).catch(() => {});
    await rm(t.tmp, { force: true });
  }

  private idleTimer(id: string): NodeJS.Timeout {
    const timer = setTimeout(() => void this.abort(id), IDLE_MS);
    timer.unref();
    return timer;
  }
}
