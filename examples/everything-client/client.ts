/**
 * The MCP conformance suite's client, built on mcp-engines' McpClient and its Streamable HTTP
 * client transport. The suite runs it as
 *
 *   MCP_CONFORMANCE_SCENARIO=<scenario> node --import tsx examples/everything-client/client.ts <server-url>
 *
 * and judges what it sends. It behaves as a generic client would, whatever the scenario: it
 * connects (the 2025 handshake), lists the tools, and calls each with arguments made from its
 * input schema (numbers 1, 2, …; strings "test"). It answers elicitation by accepting the form as
 * shown — the schema's defaults filled in for every field (SEP-1034) — and sampling with a fixed
 * reply. `initialize` only connects and lists. Exit 0 when every step succeeded, 1 otherwise.
 */
import { McpClient, type ToolDescriptor, UsageError } from '../../src/index.js';
import { StreamableHttpClientTransport } from '../../transports/index.js';

/** Arguments for a tool from its input schema: every required property gets a plain value. */
export function sampleArguments(tool: ToolDescriptor): Record<string, unknown> {
  const schema = tool.inputSchema as { properties?: Record<string, { type?: string; default?: unknown }>; required?: string[] };
  const args: Record<string, unknown> = {};
  let n = 1;
  for (const name of schema.required ?? []) {
    const prop = schema.properties?.[name] ?? {};
    if (prop.default !== undefined) args[name] = prop.default;
    else if (prop.type === 'number' || prop.type === 'integer') args[name] = n++;
    else if (prop.type === 'boolean') args[name] = true;
    else if (prop.type === 'array') args[name] = [];
    else if (prop.type === 'object') args[name] = {};
    else args[name] = 'test';
  }
  return args;
}

export async function runScenario(scenario: string, url: string, log: (line: string) => void = () => {}): Promise<void> {
  const client = new McpClient(
    { name: 'mcp-engines-everything-client', version: '1.0.0' },
    {
      onElicit: () => ({ action: 'accept', content: {} }),
      onCreateMessage: () => ({ role: 'assistant', content: { type: 'text', text: 'A reply from the test client.' }, model: 'none' }),
    },
  );
  await client.connect(new StreamableHttpClientTransport(new URL(url)));
  try {
    const tools = await client.listTools();
    log(`connected to ${client.serverInfo?.name ?? 'a server'} (${client.protocolVersion}); ${tools.length} tools`);
    if (scenario === 'initialize') return;
    for (const tool of tools) {
      const result = await client.callTool(tool.name, sampleArguments(tool));
      log(`${tool.name}: ${result.isError ? 'error' : 'ok'} ${JSON.stringify(result.content).slice(0, 200)}`);
    }
  } finally {
    await client.close();
  }
}

async function main(): Promise<void> {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
  const url = process.argv.at(-1);
  if (!scenario || !url || !/^https?:\/\//.test(url)) {
    throw new UsageError('usage: MCP_CONFORMANCE_SCENARIO=<scenario> client.ts <server-url> (an http:// or https:// URL)');
  }
  await runScenario(scenario, url, (line) => process.stderr.write(`${line}\n`));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    () => process.exit(0),
    (err) => {
      process.stderr.write(`everything-client: ${err instanceof Error ? err.message : String(err)}\n`);
      process.exit(err instanceof UsageError ? 64 : 1);
    },
  );
}
