// C64U_HOST, the Ultimate's address as a user writes it, into device options: a host name or
// IPv4 address (`192.168.1.64`), an IPv6 address (`fe80::1`, `[fe80::1]`), either with a REST port
// (`127.0.0.1:32893`, `[::1]:8080`), or a URL (`http://host:port`). A port or a URL names the
// REST endpoint (FTP and DMA keep the device's ports, 21 and 64, on the same host). Before this,
// `127.0.0.1:32893` was taken for an IPv6 address and became `http://[127.0.0.1:32893]:80`.
import type { UltimateDeviceOptions } from '../../../engines/ultimate/index.js';

const EXPECTED =
  'expected a host name or address (192.168.1.64, fe80::1), optionally with the REST port (127.0.0.1:32893, [::1]:8080), or a URL (http://host:port)';

export class DeviceAddressError extends Error {
  override readonly name = 'DeviceAddressError';
}

function port(text: string, whole: string): number {
  const n = Number(text);
  if (!/^[0-9]{1,5}$/.test(text) || n < 1 || n > 65535)
    throw new DeviceAddressError(`C64U_HOST ${JSON.stringify(whole)}: port ${JSON.stringify(text)} is not 1..65535; ${EXPECTED}`);
  return n;
}

/** Device options for C64U_HOST, or DeviceAddressError saying what was expected. */
export function deviceAddress(text: string): Pick<UltimateDeviceOptions, 'host' | 'baseUrl'> {
  const t = text.trim();
  if (t === '' || /\s/.test(t)) throw new DeviceAddressError(`C64U_HOST ${JSON.stringify(text)} is not an address; ${EXPECTED}`);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(t)) {
    let url: URL;
    try {
      url = new URL(t);
    } catch {
      throw new DeviceAddressError(`C64U_HOST ${JSON.stringify(text)} is not a URL; ${EXPECTED}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new DeviceAddressError(`C64U_HOST ${JSON.stringify(text)}: the Ultimate's REST API is http (or https), not ${url.protocol}`);
    if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username || url.password)
      throw new DeviceAddressError(`C64U_HOST ${JSON.stringify(text)}: give the URL's scheme, host and port only (no path, query or user)`);
    return { baseUrl: url.origin };
  }
  const bracketed = /^\[([0-9a-fA-F:.%a-zA-Z]+)\](?::(.*))?$/.exec(t);
  if (bracketed) {
    const [, v6, p] = bracketed;
    return p === undefined ? { host: v6! } : { baseUrl: `http://[${v6}]:${port(p, text)}` };
  }
  const colons = t.split(':').length - 1;
  if (colons === 0) {
    if (t.includes('/')) throw new DeviceAddressError(`C64U_HOST ${JSON.stringify(text)} holds a "/"; ${EXPECTED}`);
    return { host: t };
  }
  if (colons === 1) {
    const [h, p] = t.split(':') as [string, string];
    if (h === '' || h.includes('/')) throw new DeviceAddressError(`C64U_HOST ${JSON.stringify(text)} names no host; ${EXPECTED}`);
    return { baseUrl: `http://${h}:${port(p, text)}` };
  }
  // Two or more colons: an IPv6 address without a port (a port needs brackets).
  if (!/^[0-9a-fA-F:.]+(%[A-Za-z0-9_.-]+)?$/.test(t))
    throw new DeviceAddressError(`C64U_HOST ${JSON.stringify(text)} is not an IPv6 address; ${EXPECTED}`);
  return { host: t };
}
