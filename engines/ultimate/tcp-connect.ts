// One TCP connect with a time limit, as the device's DMA service and VICE's two monitors are
// reached: a connect that gets no answer in time is an UltimateError 'timeout', a refused or failed
// one goes through networkError; the socket comes back with Nagle off (small request/answer frames).
import net from 'node:net';
import { UltimateError, networkError } from './errors.js';

/** `what` names the service in errors, e.g. "DMA" → "DMA connect HOST:PORT: …". */
export function connectTcp(what: string, host: string, port: number, timeoutMs: number): Promise<net.Socket> {
  const operation = `${what} connect ${host}:${port}`;
  return new Promise<net.Socket>((resolve, reject) => {
    const s = net.connect({ host, port });
    const timer = setTimeout(() => {
      s.destroy();
      reject(new UltimateError('timeout', `${operation}: no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    s.once('connect', () => {
      clearTimeout(timer);
      s.setNoDelay(true);
      resolve(s);
    });
    s.once('error', (e) => {
      clearTimeout(timer);
      reject(networkError(e, operation, timeoutMs));
    });
  });
}
