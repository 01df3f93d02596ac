// The hidden back-channel of file transfer: tools that act on THIS server's file system. When the
// local side pushes, the remote side executes _recv_blob; when it pulls, the remote executes
// _send_blob. Files move in chunks (base64, at most CHUNK_MAX_BYTES each) so several can be in
// flight at once and no message holds the whole file. Both tools apply this side's cap and default
// directory. Callable, never listed.
import type { Stats } from 'node:fs';
import { stat, open } from 'node:fs/promises';
import { z } from 'zod';
import { ToolError, ToolRegistry } from '../../../src/index.js';
import { transferPolicy, resolveTransferPath, decodeCapped } from './transfer-policy.js';
import { IncomingTransfers } from './incoming-transfers.js';

/** Largest chunk either tool accepts or produces (raw bytes). */
export const CHUNK_MAX_BYTES = 4 * 1024 * 1024;

export interface BlobToolOptions {
  env: NodeJS.ProcessEnv;
  home: string;
}

const transferId = z.string().regex(/^[A-Za-z0-9_-]{8,64}$/, 'expected 8-64 of [A-Za-z0-9_-]');

export function blobTools(options: BlobToolOptions): ToolRegistry {
  const tools = new ToolRegistry();
  const incoming = new IncomingTransfers();

  tools.define({
    name: '_recv_blob',
    description:
      "Internal (file transfer): receive a file on this server's file system. op=chunk writes data (base64) at offset of a transfer of total bytes to path (default $TOPUP_XFER_DIR/<name>); op=commit checks completeness and renames atomically; op=abort discards.",
    hidden: true,
    input: z.strictObject({
      op: z.enum(['chunk', 'commit', 'abort']),
      transfer: transferId,
      path: z.string().min(1).optional().describe('absolute or ~/ path; default $TOPUP_XFER_DIR/<name>'),
      name: z.string().min(1).optional().describe('file name used for the default path'),
      total: z.number().int().nonnegative().optional().describe('size of the whole file'),
      offset: z.number().int().nonnegative().optional(),
      data: z.string().optional().describe('chunk content, base64'),
    }),
    handler: async (args) => {
      if (args.op === 'commit') return incoming.commit(args.transfer);
      if (args.op === 'abort') {
        await incoming.abort(args.transfer);
        return { aborted: true };
      }
      if (
        args.total === undefined ||
        args.offset === undefined ||
        args.data === undefined ||
        (args.path === undefined && args.name === undefined)
      ) {
        throw new ToolError('op "chunk" needs total, offset, data and path or name', { phase: 'transfer' });
      }
      const policy = transferPolicy(options.env, options.home);
      const target = resolveTransferPath(policy, args.path, args.name ?? args.path!, 'remote_path');
      const bytes = decodeCapped(args.data, Math.min(CHUNK_MAX_BYTES, policy.maxBytes));
      await incoming.chunk(args.transfer, target, args.total, policy.maxBytes, args.offset, bytes);
      return { path: target, offset: args.offset, bytes: bytes.length };
    },
  });

  tools.define({
    name: '_send_blob',
    description:
      "Internal (file transfer): read length bytes at offset of a file on this server's file system, base64, with the file's size and mtime (so the reader can tell the file changed between chunks).",
    hidden: true,
    input: z.strictObject({
      path: z.string().min(1).describe('absolute or ~/ path'),
      max_bytes: z.number().int().positive().optional().describe("the receiver's cap; the smaller cap applies"),
      offset: z.number().int().nonnegative().default(0),
      length: z.number().int().positive().max(CHUNK_MAX_BYTES).default(CHUNK_MAX_BYTES),
    }),
    handler: async (args) => {
      const policy = transferPolicy(options.env, options.home);
      const source = resolveTransferPath(policy, args.path, args.path, 'remote_path');
      const cap = Math.min(policy.maxBytes, args.max_bytes ?? policy.maxBytes);
      let info: Stats;
      try {
        info = await stat(source);
      } catch (err) {
        throw new ToolError(`remote file ${source} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, {
          phase: 'read',
        });
      }
      if (!info.isFile()) throw new ToolError(`remote file ${source} is not a regular file`, { phase: 'read' });
      if (info.size > cap) {
        throw new ToolError(
          `remote file ${source} is ${info.size} bytes, over the transfer cap of ${cap} bytes (TOPUP_XFER_MAX_BYTES); nothing was read`,
          {
            phase: 'cap',
            bytes: info.size,
            max_bytes: cap,
          },
        );
      }
      const length = Math.max(0, Math.min(args.length, info.size - args.offset));
      const buf = Buffer.alloc(length);
      const fh = await open(source, 'r');
      try {
        let got = 0;
        while (got < length) {
          const { bytesRead } = await fh.read(buf, got, length - got, args.offset + got);
          if (bytesRead === 0) break;
          got += bytesRead;
        }
        if (got !== length) throw new ToolError(`remote file ${source} shrank while being read`, { phase: 'read' });
      } finally {
        await fh.close();
      }
      return { path: source, bytes: info.size, mtime_ms: info.mtimeMs, offset: args.offset, data: buf.toString('base64') };
    },
  });
  return tools;
}
