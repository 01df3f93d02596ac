// Binding and closing the virtual device's TCP services (HTTP, FTP, DMA, VICE monitor) the same way.
import type * as net from 'node:net';

/** Listen on host:port (default loopback, any free port) and return the bound port. */
export async function listenLoopback(server: net.Server, port = 0, host = '127.0.0.1'): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as net.AddressInfo).port;
}

/** Destroy every open connection, then wait for the server to close. */
export async function closeServer(server: net.Server, sockets: Iterable<{ destroy(): void }>): Promise<void> {
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}
