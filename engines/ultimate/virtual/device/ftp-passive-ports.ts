// Where the virtual FTP server's passive data connections listen (PASV). By default the system
// picks any free port, as a firmware's lwIP stack does; a pinned range (for a firewall or a
// container that publishes ports) is walked round-robin from where the last PASV stopped, so a
// port still in TIME_WAIT or held by another program is skipped rather than fatal.
import type net from 'node:net';

export interface PassivePortRange {
  /** First port of the range (inclusive). */
  from: number;
  /** Last port of the range (inclusive). */
  to: number;
}

/** No port of the pinned range could be bound: the PASV is answered 425. */
export class PassivePortsExhaustedError extends Error {
  constructor(range: PassivePortRange) {
    super(`no free passive data port in ${range.from}-${range.to}`);
  }
}

function listenOnce(server: net.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as net.AddressInfo).port);
    });
  });
}

export class PassivePorts {
  #next: number;

  constructor(readonly range: PassivePortRange | null) {
    this.#next = range?.from ?? 0;
  }

  /** Binds `server` on `host` at a passive port and resolves with it. */
  async listen(server: net.Server, host: string): Promise<number> {
    const range = this.range;
    if (!range) return listenOnce(server, 0, host);
    const size = range.to - range.from + 1;
    for (let tried = 0; tried < size; tried++) {
      const port = this.#next;
      this.#next = port >= range.to ? range.from : port + 1;
      try {
        return await listenOnce(server, port, host);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'EADDRINUSE' && code !== 'EACCES') throw e;
      }
    }
    throw new PassivePortsExhaustedError(range);
  }
}
