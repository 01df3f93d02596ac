import type { Readable, Writable } from 'node:stream';
import { StreamTransport, type StreamTransportOptions } from './stream.js';

/**
 * The server side of stdio: protocol on stdin/stdout, nothing else on stdout.
 * Logs belong on stderr (see src/logger.ts).
 */
export class StdioServerTransport extends StreamTransport {
  constructor(options: StreamTransportOptions & { stdin?: Readable; stdout?: Writable } = {}) {
    const stdin = options.stdin ?? process.stdin;
    super(stdin, options.stdout ?? process.stdout, {
      ...options,
      onClose: async () => {
        stdin.pause();
        await options.onClose?.();
      },
    });
  }
}
