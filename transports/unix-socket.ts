import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type { Stats } from 'node:fs';
import { lstat, mkdir, unlink, chmod, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { StreamTransport } from './stream.js';
import { encodeMessage } from './ndjson.js';

export interface UnixSocketServerOptions {
  maxLineBytes?: number;
  /**
   * How long a new client waits for the previous one to be seen gone before it is answered
   * "server busy" (default 250 ms). A client that closed its socket before the next one connected
   * is always seen gone within one turn of the event loop; this is only the bound for a client that
   * really is still connected.
   */
  busyGraceMs?: number;
}

/**
 * What `onConnection` may return: an MCP ServerSession has `clientInfo` once initialized, which is
 * how the "server busy" answer names who holds the socket.
 */
export interface IdentifiedConnection {
  readonly clientInfo?: { readonly name?: string; readonly version?: string };
}

export interface UnixSocketListener {
  readonly path: string;
  /** True while a client is connected (only one is served at a time). */
  readonly busy: boolean;
  /** "held by <clientInfo> since <time>" while a client is connected. */
  readonly holder: string | undefined;
  close(): Promise<void>;
}

/** The JSON-RPC error a second client receives before its connection is closed. */
export const SOCKET_BUSY_CODE = -32001;

export class SocketInUseError extends Error {
  override readonly name = 'SocketInUseError';
}

/**
 * sun_path holds 108 bytes on Linux (104 on the BSDs and macOS) including the terminating NUL;
 * a longer path is silently truncated by bind()/connect(), so it is refused up front.
 */
export const MAX_SOCKET_PATH_BYTES = process.platform === 'linux' ? 107 : 103;

export class SocketPathTooLongError extends Error {
  override readonly name = 'SocketPathTooLongError';
  constructor(readonly path: string) {
    super(
      `socket path ${path} is ${Buffer.byteLength(path)} bytes; Unix sockets allow at most ${MAX_SOCKET_PATH_BYTES} bytes on this platform (use a shorter path, e.g. under ~/.topup/sockets/)`,
    );
  }
}

export function checkSocketPath(path: string): void {
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) throw new SocketPathTooLongError(path);
}

/** One served client: its socket, what onConnection made of it, and since when. */
interface Holder {
  readonly socket: Socket;
  readonly since: Date;
  identity?: IdentifiedConnection;
}

function describeHolder(holder: Holder): string {
  const info = holder.identity?.clientInfo;
  const who = info?.name ? `${info.name}${info.version ? ` ${info.version}` : ''}` : 'a client that has not initialized';
  return `held by ${who} since ${holder.since.toISOString()}`;
}

/**
 * Serve MCP on a Unix domain socket, one client at a time.
 *
 * - The socket file is created with mode 0600: the process umask is narrowed around bind(), so
 *   there is no moment in which the file is wider.
 * - A socket file left by a dead process (connect refused) is replaced; a live one is refused with
 *   SocketInUseError; a path that is not a socket is never deleted.
 * - A second client while one is connected receives one JSON-RPC error (code -32001, id null) naming
 *   the reason and who holds the socket (the holder's MCP clientInfo and since when; also in
 *   `error.data`), and is disconnected. The first client is not disturbed. A client that closed its
 *   socket before the next one connected is never counted as holding it (its end-of-file may not
 *   have been read yet, so the newcomer waits up to `busyGraceMs` for it).
 * - A path longer than sun_path allows is refused before anything is created (SocketPathTooLongError).
 * - `onConnection` is called with a fresh transport for every accepted client; whatever state the
 *   caller keeps (an McpServer, an engine) outlives the connection, so clients can reconnect.
 */
export async function serveUnixSocket(
  path: string,
  onConnection: (transport: StreamTransport) => unknown,
  options: UnixSocketServerOptions = {},
): Promise<UnixSocketListener> {
  checkSocketPath(path);
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  await removeStaleSocket(path);
  const busyGraceMs = options.busyGraceMs ?? 250;

  let active: Holder | null = null;
  const sockets = new Set<Socket>();

  const refuse = (socket: Socket, holder: Holder) => {
    socket.end(
      encodeMessage({
        jsonrpc: '2.0',
        id: null,
        error: {
          code: SOCKET_BUSY_CODE,
          message: `server busy: another client is connected to ${path} (${describeHolder(holder)}); this socket serves one client at a time, retry after it disconnects`,
          data: { held_by: holder.identity?.clientInfo ?? null, since: holder.since.toISOString() },
        },
      }),
    );
  };

  const serve = (socket: Socket) => {
    const holder: Holder = { socket, since: new Date() };
    active = holder;
    const transport = new StreamTransport(socket, socket, {
      maxLineBytes: options.maxLineBytes,
      onClose: () => {
        socket.destroy();
      },
    });
    // 'end' (the client closed its side) frees the socket as much as 'close' does: the next client
    // must not be refused because our side has not finished tearing this one down.
    const release = () => {
      if (active === holder) active = null;
    };
    socket.once('end', release);
    socket.once('close', () => {
      release();
      void transport.close();
    });
    Promise.resolve(onConnection(transport))
      .then((identity) => {
        if (identity && typeof identity === 'object') holder.identity = identity as IdentifiedConnection;
      })
      .catch((err) => {
        process.stderr.write(`unix socket: connection setup failed: ${(err as Error).message}\n`);
        socket.destroy();
      });
  };

  /** Resolves true once `holder` is gone, false if it is still there after the grace period. */
  const goneWithin = (holder: Holder, ms: number) =>
    new Promise<boolean>((resolve) => {
      if (active !== holder) return resolve(true);
      const done = (gone: boolean) => {
        clearTimeout(timer);
        holder.socket.off('end', onGone);
        holder.socket.off('close', onGone);
        resolve(gone);
      };
      const onGone = () => done(true);
      const timer = setTimeout(() => done(active !== holder), ms);
      holder.socket.once('end', onGone);
      holder.socket.once('close', onGone);
    });

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    const current = active;
    if (!current) return serve(socket);
    // The previous client may have closed just before this one connected, with its EOF not yet
    // read: give it the grace period to be seen gone before answering "server busy". Meanwhile
    // nothing reads this socket (no 'data' listener yet), so whatever it sends stays buffered.
    void goneWithin(current, busyGraceMs).then((gone) => {
      if (socket.destroyed) return;
      if (gone && !active) serve(socket);
      else refuse(socket, active ?? current);
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
    get holder() {
      return active ? describeHolder(active) : undefined;
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
  let info: Stats;
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
    if (Buffer.byteLength(path) > MAX_SOCKET_PATH_BYTES) return reject(new SocketPathTooLongError(path));
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
