import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { lstat, mkdir, unlink, chmod, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StreamTransport } from './stream.js';
import { encodeMessage } from './ndjson.js';

export interface UnixSocketServerOptions {
  maxLineBytes?: number;
}

export interface UnixSocketListener {
  readonly path: string;
  /** True while a client is connected (only one is served at a time). */
  readonly busy: boolean;
  close(): Promise<void>;
}

/** The JSON-RPC error a second client receives before its connection is closed. */
export const SOCKET_BUSY_CODE = -32001;

export class SocketInUseError extends Error {
  override readonly name = 'SocketInUseError';
}

/**
 * Serve MCP on a Unix domain socket, one client at a time.
 *
 * - The socket file is created with mode 0600: the process umask is narrowed around bind(), so
 *   there is no moment in which the file is wider.
 * - A socket file left by a dead process (connect refused) is replaced; a live one is refused with
 *   SocketInUseError; a path that is not a socket is never deleted.
 * - A second client while one is connected receives one JSON-RPC error (code -32001, id null) naming
 *   the reason, and is disconnected. The first client is not disturbed.
 * - `onConnection` is called with a fresh transport for every accepted client; whatever state the
 *   caller keeps (an McpServer, an engine) outlives the connection, so clients can reconnect.
 */
export async function serveUnixSocket(
  path: string,
  onConnection: (transport: StreamTransport) => unknown,
  options: UnixSocketServerOptions = {},
): Promise<UnixSocketListener> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await removeStaleSocket(path);

  let active: Socket | null = null;
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    if (active) {
      socket.end(
        encodeMessage({
          jsonrpc: '2.0',
          id: null,
          error: {
            code: SOCKET_BUSY_CODE,
            message: `server busy: another client is connected to ${path}; this socket serves one client at a time, retry after it disconnects`,
          },
        }),
      );
      return;
    }
    active = socket;
    const transport = new StreamTransport(socket, socket, {
      maxLineBytes: options.maxLineBytes,
      onClose: () => {
        socket.destroy();
      },
    });
    socket.once('close', () => {
      if (active === socket) active = null;
      void transport.close();
    });
    Promise.resolve(onConnection(transport)).catch((err) => {
      process.stderr.write(`unix socket: connection setup failed: ${(err as Error).message}\n`);
      socket.destroy();
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    // bind() happens synchronously inside listen() for a path, so the narrowed umask covers it.
    const previous = process.umask(0o177);
    try {
      server.listen(path, () => {
        server.off('error', reject);
        resolve();
      });
    } finally {
      process.umask(previous);
    }
  });
  // Belt and braces: the file must be owner-only whatever the platform did.
  if (((await stat(path)).mode & 0o777) !== 0o600) await chmod(path, 0o600);

  let closed = false;
  return {
    path,
    get busy() {
      return active !== null;
    },
    async close() {
      if (closed) return;
      closed = true;
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closing;
      await unlink(path).catch(() => {});
    },
  };
}

async function removeStaleSocket(path: string): Promise<void> {
  let info;
  try {
    info = await lstat(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (!info.isSocket()) {
    throw new SocketInUseError(`refusing to replace ${path}: it exists and is not a socket`);
  }
  const live = await new Promise<boolean>((resolve) => {
    const probe = createConnection(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
  if (live) throw new SocketInUseError(`another server is already listening on ${path}`);
  await unlink(path);
}

/** Connect to an MCP server on a Unix domain socket. */
export function connectUnixSocket(path: string, options: { maxLineBytes?: number } = {}): Promise<StreamTransport> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(path);
    socket.once('connect', () => {
      socket.off('error', onError);
      resolve(
        new StreamTransport(socket, socket, {
          maxLineBytes: options.maxLineBytes,
          onClose: () => {
            socket.destroy();
          },
        }),
      );
    });
    const onError = (err: NodeJS.ErrnoException) => {
      const why =
        err.code === 'ENOENT'
          ? `no socket at ${path}`
          : err.code === 'ECONNREFUSED'
            ? `nothing is listening on ${path}`
            : err.code === 'EACCES'
              ? `permission denied on ${path}`
              : err.message;
      reject(new Error(`cannot connect to ${path}: ${why}`));
    };
    socket.once('error', onError);
  });
}
