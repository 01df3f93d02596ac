// An official MCP SDK client connected in-process to an adapter that talks to `serviceUrl`.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createUltimateToolServer } from '../../../../adapters/ultimate/index.js';
import { createLogger } from '../../../../src/index.js';
import { InMemoryTransport } from '../../../../transports/index.js';

export interface Envelope {
  schema_version: number;
  operation: string;
  data?: Record<string, unknown>;
  error?: { code: string; layer: string; message: string; http_status?: number; details?: Record<string, unknown> };
}

export interface CallOutcome {
  isError: boolean;
  envelope: Envelope;
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
}

export async function connectAdapter(serviceUrl: string, options: { requestTimeoutMs?: number; protocolVersion?: string } = {}) {
  const server = createUltimateToolServer({
    serviceUrl,
    logger: createLogger('test', 'error'),
    ...(options.requestTimeoutMs !== undefined ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: 'ultimate-mcp-test', version: '1.0.0' });
  await client.connect(clientSide);
  /** Call a tool and check that structuredContent and the text carry the same envelope. */
  async function call(name: string, args: Record<string, unknown> = {}): Promise<CallOutcome> {
    const r = (await client.callTool({ name, arguments: args })) as {
      isError?: boolean;
      structuredContent?: Envelope;
      content: CallOutcome['content'];
    };
    const text = r.content[0]?.text;
    if (typeof text !== 'string') throw new Error(`${name}: the first content block is not text`);
    const fromText = JSON.parse(text) as Envelope;
    if (JSON.stringify(fromText) !== JSON.stringify(r.structuredContent)) {
      throw new Error(`${name}: text and structuredContent differ:\n${text}\n${JSON.stringify(r.structuredContent)}`);
    }
    return { isError: r.isError === true, envelope: fromText, content: r.content };
  }
  return {
    client,
    server,
    call,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}
