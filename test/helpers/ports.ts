// Real loopback ports for tests that pin them: free ones (bound by the system, then released all
// together so they are distinct) and occupied ones (held by a listener until the test releases it).
import net from 'node:net';

function listen(port = 0): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

const portOf = (s: net.Server) => (s.address() as net.AddressInfo).port;
const close = (s: net.Server) => new Promise<void>((r) => s.close(() => r()));

/** `n` distinct ports that were free a moment ago. */
export async function freePorts(n: number): Promise<number[]> {
  const held = await Promise.all(Array.from({ length: n }, () => listen()));
  const ports = held.map(portOf);
  await Promise.all(held.map(close));
  return ports;
}

/** A port held by a listener of this process until `release()`. */
export async function occupyPort(): Promise<{ port: number; release(): Promise<void> }> {
  const server = await listen();
  return { port: portOf(server), release: () => close(server) };
}

/** True when this process can bind the port now (nothing else listens on it). */
export async function canBind(port: number): Promise<boolean> {
  try {
    await close(await listen(port));
    return true;
  } catch {
    return false;
  }
}
