// Listen on the loopback interface only: services of this package are never reachable from
// another machine unless a caller explicitly asks for another address.
import type { Server } from 'node:net';

export const LOOPBACK = '127.0.0.1';

/** Resolves with the bound port (useful with port 0); rejects on EADDRINUSE and friends. */
export function listenLoopback(server: Server, port = 0, host = LOOPBACK): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      const addr = server.address();
      resolve(typeof addr === 'object' && addr ? addr.port : port);
    });
  });
}

/** Close a server and wait for it; an already-closed server is fine. */
export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
  });
}
