// The two servers under comparison: the same trivial echo tool on our McpServer and on the
// official SDK's McpServer. Run as a process: `node --import tsx bench/core/servers.ts ours|sdk`.
import { z } from 'zod';
import { McpServer as SdkMcpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport as SdkStdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { McpServer, ToolRegistry } from '../../src/index.js';
import { StdioServerTransport } from '../../transports/index.js';

export function ourEchoServer(): McpServer {
  const tools = new ToolRegistry().define({
    name: 'echo',
    description: 'echo',
    input: z.object({ text: z.string() }),
    handler: ({ text }) => ({ text }),
  });
  return new McpServer({ name: 'ours', version: '1', tools });
}

export function sdkEchoServer(): SdkMcpServer {
  const server = new SdkMcpServer({ name: 'sdk', version: '1' });
  server.registerTool('echo', { description: 'echo', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text: JSON.stringify({ text }) }],
  }));
  return server;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const which = process.argv[2];
  if (which === 'ours') await ourEchoServer().connect(new StdioServerTransport());
  else if (which === 'sdk') await sdkEchoServer().connect(new SdkStdioServerTransport());
  else throw new Error('usage: servers.ts ours|sdk');
}
