// The Streamable HTTP servers under comparison, each run as its own process:
//   node --import tsx bench/core/http-servers.ts ours|sdk-session|sdk-stateless
// prints {"url": …} on its first stdout line. The tool is the same trivial echo as servers.ts.
//  - ours: serveStreamableHttp + our McpServer (one 2025-era session per client; JSON answers).
//  - sdk-session: the official SDK's McpServer + StreamableHTTPServerTransport, one session,
//    enableJsonResponse (JSON answers, no SSE stream per call: its fastest stateful setting).
//  - sdk-stateless: the SDK's stateless pattern (sessionIdGenerator undefined, a new server and
//    transport per request, as its docs prescribe: a stateless transport cannot be reused),
//    enableJsonResponse.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { serveStreamableHttp } from '../../transports/index.js';
import { ourEchoServer, sdkEchoServer } from './servers.js';

export async function startHttpServer(which: string): Promise<string> {
  if (which === 'ours') {
    const server = ourEchoServer();
    const listener = await serveStreamableHttp({ connect: (t) => server.connect(t) });
    return listener.url;
  }
  if (which === 'sdk-session' || which === 'sdk-stateless') {
    const sessions = new Map<string, StreamableHTTPServerTransport>();
    const http = createServer(async (req, res) => {
      if (which === 'sdk-stateless') {
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
        const server = sdkEchoServer();
        res.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(req, res);
        return;
      }
      const id = req.headers['mcp-session-id'] as string | undefined;
      let transport = id ? sessions.get(id) : undefined;
      if (!transport) {
        const t = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: true,
          onsessioninitialized: (sid) => void sessions.set(sid, t),
        });
        await sdkEchoServer().connect(t);
        transport = t;
      }
      await transport.handleRequest(req, res);
    });
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
    return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  }
  throw new Error('usage: http-servers.ts ours|sdk-session|sdk-stateless');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  process.stdout.write(`${JSON.stringify({ url: await startHttpServer(process.argv[2] ?? '') })}\n`);
}
