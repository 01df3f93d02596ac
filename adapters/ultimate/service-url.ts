// The only service origin the adapter talks to: `http://127.0.0.1` with an optional port. No
// credentials, path, query or fragment (a lone trailing `/` is tolerated: it is what URL
// serialization adds to a bare origin, and it names the same origin). Anything else is refused
// before the adapter serves, so a typo can never send requests somewhere unexpected.
import { UsageError } from '../../common/index.js';

export interface ServiceOrigin {
  /** `http://127.0.0.1:<port>`, the port always explicit. */
  readonly origin: string;
  readonly host: '127.0.0.1';
  readonly port: number;
}

export const DEFAULT_SERVICE_PORT = 6464;

const ORIGIN = /^http:\/\/127\.0\.0\.1(?::(\d{1,5}))?\/?$/;

/** Throws UsageError naming what is wrong and what was expected. */
export function parseServiceUrl(text: string): ServiceOrigin {
  const expected = 'expected http://127.0.0.1 with an optional port, e.g. http://127.0.0.1:6464';
  const match = ORIGIN.exec(text);
  if (!match) {
    throw new UsageError(`--service-url ${JSON.stringify(text)} is not accepted: ${whatIsWrong(text)}; ${expected}`);
  }
  const port = match[1] === undefined ? 80 : Number(match[1]);
  if (!(port >= 1 && port <= 65535)) {
    throw new UsageError(`--service-url ${JSON.stringify(text)}: port ${match[1]} is out of range 1-65535; ${expected}`);
  }
  return { origin: `http://127.0.0.1:${port}`, host: '127.0.0.1', port };
}

function whatIsWrong(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'it is not a URL';
  }
  if (url.protocol !== 'http:') return `the scheme must be http, not ${url.protocol.replace(/:$/, '')}`;
  if (url.username || url.password) return 'credentials are not allowed';
  if (url.hostname !== '127.0.0.1') return `the host must be 127.0.0.1 (loopback only), not ${url.hostname}`;
  if (url.search) return 'a query is not allowed';
  if (url.hash) return 'a fragment is not allowed';
  if (url.pathname !== '/') return `a path (${url.pathname}) is not allowed`;
  return 'it must be written exactly as an origin';
}
