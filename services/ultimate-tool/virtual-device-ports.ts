// `serve --virtual-device-ports rest=N,ftp=N,dma=N,vice=N,bench=N,ftp-data=LOW-HIGH`: the ports the
// in-process virtual Ultimate listens on, for firewalls and containers that must know them in
// advance. One key per service rather than one base port: a firewall rule or a published port
// names each service, a base port would impose a layout nobody asked for, and one taken port
// would then move (or block) all of them. A key left out keeps the system's choice (any free port).
import { UsageError } from '../../common/index.js';
import type { PassivePortRange } from '../../engines/ultimate/virtual/index.js';
import type { VirtualServiceRole } from '../../engines/ultimate/virtual/index.js';

export interface VirtualDevicePorts {
  rest?: number;
  ftp?: number;
  dma?: number;
  vice?: number;
  /** The Elite II's lab bench (only with --virtual-product u64-elite2). */
  bench?: number;
  /** FTP passive data connections (PASV), an inclusive range. */
  ftpData?: PassivePortRange;
}

type SinglePortKey = 'rest' | 'ftp' | 'dma' | 'vice' | 'bench';

/** Each key, the role the virtual device reports in PortInUseError, and what it is for. */
export const VIRTUAL_DEVICE_PORT_KEYS: ReadonlyArray<{ key: SinglePortKey | 'ftp-data'; role: string; what: string }> = [
  { key: 'rest', role: 'REST', what: 'the REST API (HTTP)' },
  { key: 'ftp', role: 'FTP', what: 'the FTP control connection' },
  { key: 'ftp-data', role: 'FTP data', what: 'FTP passive data connections, a range LOW-HIGH' },
  { key: 'dma', role: 'DMA', what: 'the DMA service (port 64 on hardware)' },
  { key: 'vice', role: 'VICE monitor', what: "the virtual device's VICE binary monitor" },
  { key: 'bench', role: 'lab bench', what: 'the Elite II lab bench (--virtual-product u64-elite2)' },
];

/** The key that pins a role, for advice in errors ("pin another port with ftp=N"). */
export function keyOfRole(role: VirtualServiceRole): SinglePortKey {
  const found = VIRTUAL_DEVICE_PORT_KEYS.find((k) => k.role === role);
  return found!.key as SinglePortKey;
}

const EXPECTED = `expected KEY=PORT pairs separated by commas, KEY one of ${VIRTUAL_DEVICE_PORT_KEYS.map((k) => k.key).join(', ')}, PORT 1..65535 (ftp-data=LOW-HIGH)`;

function portNumber(key: string, text: string): number {
  if (!/^[0-9]{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65535)
    throw new UsageError(`--virtual-device-ports: ${key} expects a port 1..65535, got ${JSON.stringify(text)}`);
  return Number(text);
}

/**
 * Parses the flag's value. Refuses, naming what was expected: an unknown key, a key given twice,
 * a port that is not a number in 1..65535, a reversed or malformed range, and one port given to
 * two services (`otherPorts` adds the ports pinned elsewhere on the command line, e.g. --port).
 */
export function parseVirtualDevicePorts(text: string, otherPorts: Record<string, number> = {}): VirtualDevicePorts {
  const out: VirtualDevicePorts = {};
  const seen = new Set<string>();
  const owners = new Map<number, string>(Object.entries(otherPorts).map(([name, port]) => [port, name]));
  const claim = (port: number, who: string) => {
    const other = owners.get(port);
    if (other)
      throw new UsageError(`--virtual-device-ports: port ${port} is given to both ${other} and ${who}; every service needs its own port`);
    owners.set(port, who);
  };
  const items = text.split(',');
  if (items.some((i) => i.trim() === ''))
    throw new UsageError(`--virtual-device-ports: empty item in ${JSON.stringify(text)}; ${EXPECTED}`);
  const range: { key: string; from: number; to: number }[] = [];
  for (const raw of items) {
    const item = raw.trim();
    const eq = item.indexOf('=');
    if (eq <= 0) throw new UsageError(`--virtual-device-ports: ${JSON.stringify(item)} is not KEY=PORT; ${EXPECTED}`);
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (!VIRTUAL_DEVICE_PORT_KEYS.some((k) => k.key === key))
      throw new UsageError(`--virtual-device-ports: unknown key ${JSON.stringify(key)}; ${EXPECTED}`);
    if (seen.has(key)) throw new UsageError(`--virtual-device-ports: ${key} is given twice; give each key once`);
    seen.add(key);
    if (key === 'ftp-data') {
      const m = /^([^-]+)-([^-]+)$/.exec(value);
      if (!m)
        throw new UsageError(`--virtual-device-ports: ftp-data expects a range LOW-HIGH (e.g. 50000-50009), got ${JSON.stringify(value)}`);
      const from = portNumber('ftp-data', m[1]!);
      const to = portNumber('ftp-data', m[2]!);
      if (from > to) throw new UsageError(`--virtual-device-ports: ftp-data range ${value} is reversed; expected LOW-HIGH with LOW ≤ HIGH`);
      out.ftpData = { from, to };
      range.push({ key, from, to });
    } else {
      const port = portNumber(key, value);
      claim(port, `${key}=`);
      out[key as SinglePortKey] = port;
    }
  }
  for (const r of range)
    for (const [port, who] of owners)
      if (port >= r.from && port <= r.to)
        throw new UsageError(
          `--virtual-device-ports: the ftp-data range ${r.from}-${r.to} contains port ${port} of ${who}; keep them apart`,
        );
  return out;
}
