// The one error a virtual device's service gives when its port cannot be bound: which service
// (its role), which address and port, and the system's reason. Callers that pinned the port (a
// command line, a container setup) turn it into advice; the engine itself knows no flags.

/** The virtual device's listening services, by the name a user knows them by. */
export type VirtualServiceRole = 'REST' | 'FTP' | 'DMA' | 'VICE monitor' | 'lab bench';

export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
  constructor(
    readonly role: VirtualServiceRole,
    readonly host: string,
    readonly port: number,
    /** The system's error code: EADDRINUSE (held by another program) or EACCES (a privileged port). */
    readonly code: string,
  ) {
    super(
      code === 'EADDRINUSE'
        ? `the virtual device's ${role} port ${host}:${port} is already in use by another program`
        : `the virtual device cannot listen on ${host}:${port} for ${role} (${code})`,
    );
  }
}

/** Runs one service's listen and names its role and port when the address cannot be bound. */
export async function listenAs(role: VirtualServiceRole, host: string, port: number, listen: () => Promise<number>): Promise<number> {
  try {
    return await listen();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') throw new PortInUseError(role, host, port, code);
    throw e;
  }
}
