// The hidden back-channel of file transfer: tools that act on THIS server's file system. When the
// local side pushes, the remote side executes _recv_blob; when it pulls, the remote executes
// _send_blob. Both apply this side's cap and default directory. Callable, never listed.
import { z } from 'zod';
import { ToolRegistry } from '../../../src/index.js';
import { transferPolicy, resolveTransferPath, readCapped, decodeCapped, writeTransferred } from './transfer-policy.js';

export interface BlobToolOptions {
  env: NodeJS.ProcessEnv;
  home: string;
}

export function blobTools(options: BlobToolOptions): ToolRegistry {
  const tools = new ToolRegistry();
  tools.define({
    name: '_recv_blob',
    description: 'Internal (file transfer): write a base64 payload to this server\'s file system atomically.',
    hidden: true,
    input: z.strictObject({
      path: z.string().min(1).optional().describe('absolute or ~/ path; default $TOPUP_XFER_DIR/<name>'),
      name: z.string().min(1).describe('file name used for the default path'),
      data: z.string().describe('file content, base64'),
    }),
    handler: async (args) => {
      const policy = transferPolicy(options.env, options.home);
      const target = resolveTransferPath(policy, args.path, args.name, 'remote_path');
      const bytes = decodeCapped(args.data, policy.maxBytes);
      await writeTransferred(target, bytes);
      return { path: target, bytes: bytes.length };
    },
  });
  tools.define({
    name: '_send_blob',
    description: 'Internal (file transfer): read a file from this server\'s file system, base64.',
    hidden: true,
    input: z.strictObject({
      path: z.string().min(1).describe('absolute or ~/ path'),
      max_bytes: z.number().int().positive().optional().describe('the receiver\'s cap; the smaller cap applies'),
    }),
    handler: async (args) => {
      const policy = transferPolicy(options.env, options.home);
      const source = resolveTransferPath(policy, args.path, args.path, 'remote_path');
      const cap = Math.min(policy.maxBytes, args.max_bytes ?? policy.maxBytes);
      const data = await readCapped(source, cap, 'remote file');
      return { path: source, bytes: data.length, data: data.toString('base64') };
    },
  });
  return tools;
}
