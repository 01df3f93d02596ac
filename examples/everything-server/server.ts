/**
 * The MCP conformance suite's reference server ("everything server"), composed only from
 * mcp-engines' public parts: a ToolRegistry, a ResourceRegistry, a PromptRegistry, McpServer, and
 * the Streamable HTTP server transport. It serves both protocol eras (the 2025 handshake with a
 * session per Mcp-Session-Id, and the stateless 2026-07-28 requests).
 *
 *   node --import tsx examples/everything-server/server.ts --port 0
 *
 * prints {"url":"http://127.0.0.1:PORT/mcp"} as its first stdout line, then serves until killed.
 * Run the suite against it: npx conformance server --url <that url>
 */
import { z } from 'zod';
import { McpServer, PromptRegistry, ResourceRegistry, ToolRegistry, rawResult, UsageError } from '../../src/index.js';
import { serveStreamableHttp } from '../../transports/index.js';

/** A 1×1 red PNG. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';
/** A WAV header with no samples (44 bytes): the smallest valid audio file. */
const WAV = Buffer.concat([
  Buffer.from('RIFF'),
  Buffer.from([36, 0, 0, 0]),
  Buffer.from('WAVEfmt '),
  Buffer.from([16, 0, 0, 0, 1, 0, 1, 0, 0x40, 0x1f, 0, 0, 0x80, 0x3e, 0, 0, 2, 0, 16, 0]),
  Buffer.from('data'),
  Buffer.from([0, 0, 0, 0]),
]).toString('base64');

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => {
      clearTimeout(t);
      resolve();
    });
  });

const text = (t: string) => rawResult({ content: [{ type: 'text', text: t }] });
const noArgs = z.object({});

function tools(): ToolRegistry {
  return new ToolRegistry()
    .define({
      name: 'test_simple_text',
      description: 'Returns simple text',
      input: noArgs,
      handler: () => text('This is a simple text response for testing.'),
    })
    .define({
      name: 'test_image_content',
      description: 'Returns an image',
      input: noArgs,
      handler: () => rawResult({ content: [{ type: 'image', data: PNG, mimeType: 'image/png' }] }),
    })
    .define({
      name: 'test_audio_content',
      description: 'Returns audio',
      input: noArgs,
      handler: () => rawResult({ content: [{ type: 'audio', data: WAV, mimeType: 'audio/wav' }] }),
    })
    .define({
      name: 'test_embedded_resource',
      description: 'Returns an embedded resource',
      input: noArgs,
      handler: () =>
        rawResult({
          content: [
            {
              type: 'resource',
              resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' },
            },
          ],
        }),
    })
    .define({
      name: 'test_multiple_content_types',
      description: 'Returns text, an image and an embedded resource',
      input: noArgs,
      handler: () =>
        rawResult({
          content: [
            { type: 'text', text: 'Multiple content types test:' },
            { type: 'image', data: PNG, mimeType: 'image/png' },
            {
              type: 'resource',
              resource: {
                uri: 'test://mixed-content-resource',
                mimeType: 'application/json',
                text: JSON.stringify({ test: 'data', value: 123 }),
              },
            },
          ],
        }),
    })
    .define({
      name: 'test_tool_with_logging',
      description: 'Sends three log messages while it runs',
      input: noArgs,
      handler: async (_args, ctx) => {
        ctx.logMessage('info', 'Tool execution started');
        await sleep(50, ctx.signal);
        ctx.logMessage('info', 'Tool processing data');
        await sleep(50, ctx.signal);
        ctx.logMessage('info', 'Tool execution completed');
        return text('Tool with logging executed successfully');
      },
    })
    .define({
      name: 'test_tool_with_progress',
      description: 'Reports progress 0, 50, 100 of 100',
      input: noArgs,
      handler: async (_args, ctx) => {
        ctx.progress(0, 100);
        await sleep(50, ctx.signal);
        ctx.progress(50, 100);
        await sleep(50, ctx.signal);
        ctx.progress(100, 100);
        return text('Tool with progress executed successfully');
      },
    })
    .define({
      name: 'test_error_handling',
      description: 'Always fails',
      input: noArgs,
      handler: () =>
        rawResult({ isError: true, content: [{ type: 'text', text: 'This tool intentionally returns an error for testing' }] }),
    })
    .define({
      name: 'test_sampling',
      description: "Asks the client's model",
      input: z.object({ prompt: z.string().describe('The prompt to send to the LLM') }),
      handler: async ({ prompt }, ctx) => {
        const r = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: prompt } }], maxTokens: 100 });
        const content = r.content as { type?: string; text?: string };
        return text(`LLM response: ${content?.type === 'text' ? content.text : JSON.stringify(r.content)}`);
      },
    })
    .define({
      name: 'test_elicitation',
      description: 'Asks the user',
      input: z.object({ message: z.string().describe('The message to show the user') }),
      handler: async ({ message }, ctx) => {
        const r = await ctx.elicit({
          message,
          requestedSchema: {
            type: 'object',
            properties: {
              username: { type: 'string', description: "User's response" },
              email: { type: 'string', description: "User's email address" },
            },
            required: ['username', 'email'],
          },
        });
        return text(`User response: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`);
      },
    })
    .define({
      name: 'test_elicitation_sep1034_defaults',
      description: 'Asks the user with a default for every primitive type',
      input: noArgs,
      handler: async (_args, ctx) => {
        const r = await ctx.elicit({
          message: 'Please review and update the form fields with defaults',
          requestedSchema: {
            type: 'object',
            properties: {
              name: { type: 'string', description: 'User name', default: 'John Doe' },
              age: { type: 'integer', description: 'User age', default: 30 },
              score: { type: 'number', description: 'User score', default: 95.5 },
              status: { type: 'string', description: 'User status', enum: ['active', 'inactive', 'pending'], default: 'active' },
              verified: { type: 'boolean', description: 'Verification status', default: true },
            },
            required: [],
          },
        });
        return text(`Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`);
      },
    })
    .define({
      name: 'test_elicitation_sep1330_enums',
      description: 'Asks the user with every enum form',
      input: noArgs,
      handler: async (_args, ctx) => {
        const r = await ctx.elicit({
          message: 'Please select options from the enum fields',
          requestedSchema: {
            type: 'object',
            properties: {
              untitledSingle: { type: 'string', description: 'Untitled single-select', enum: ['option1', 'option2', 'option3'] },
              titledSingle: {
                type: 'string',
                description: 'Titled single-select',
                oneOf: [
                  { const: 'value1', title: 'First Option' },
                  { const: 'value2', title: 'Second Option' },
                  { const: 'value3', title: 'Third Option' },
                ],
              },
              legacyEnum: {
                type: 'string',
                description: 'Legacy titled enum',
                enum: ['opt1', 'opt2', 'opt3'],
                enumNames: ['Option One', 'Option Two', 'Option Three'],
              },
              untitledMulti: {
                type: 'array',
                description: 'Untitled multi-select',
                items: { type: 'string', enum: ['option1', 'option2', 'option3'] },
              },
              titledMulti: {
                type: 'array',
                description: 'Titled multi-select',
                items: {
                  anyOf: [
                    { const: 'value1', title: 'First Choice' },
                    { const: 'value2', title: 'Second Choice' },
                    { const: 'value3', title: 'Third Choice' },
                  ],
                },
              },
            },
            required: [],
          },
        });
        return text(`Elicitation completed: action=${r.action}, content=${JSON.stringify(r.content ?? {})}`);
      },
    })
    .define({
      name: 'json_schema_2020_12_tool',
      description: 'Tool with JSON Schema 2020-12 features',
      input: z.strictObject({
        name: z.string().optional(),
        address: z.object({ street: z.string().optional(), city: z.string().optional() }).optional(),
      }),
      inputJsonSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
        properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
        additionalProperties: false,
      },
      handler: (args) => text(`JSON Schema 2020-12 tool called with: ${JSON.stringify(args)}`),
    });
}

function resources(): ResourceRegistry {
  return new ResourceRegistry()
    .resource({
      uri: 'test://static-text',
      name: 'Static Text Resource',
      description: 'A static text resource for testing',
      mimeType: 'text/plain',
      read: () => 'This is the content of the static text resource.',
    })
    .resource({
      uri: 'test://static-binary',
      name: 'Static Binary Resource',
      description: 'A static binary resource (image) for testing',
      mimeType: 'image/png',
      read: (uri) => ({ uri, mimeType: 'image/png', blob: PNG }),
    })
    .resource({
      uri: 'test://watched-resource',
      name: 'Watched Resource',
      description: 'A resource to subscribe to',
      mimeType: 'text/plain',
      read: () => 'Watched resource content',
    })
    .template({
      uriTemplate: 'test://template/{id}/data',
      name: 'Template Resource',
      description: 'A resource template with an id',
      mimeType: 'application/json',
      read: (_uri, { id }) => JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
      complete: { id: (value) => ['123', '456', '789'].filter((v) => v.startsWith(value)) },
    });
}

function prompts(): PromptRegistry {
  return new PromptRegistry()
    .define({
      name: 'test_simple_prompt',
      description: 'A simple prompt without arguments',
      get: () => [{ role: 'user', content: { type: 'text', text: 'This is a simple prompt for testing.' } }],
    })
    .define({
      name: 'test_prompt_with_arguments',
      description: 'A prompt with two required arguments',
      arguments: [
        {
          name: 'arg1',
          description: 'First test argument',
          required: true,
          complete: (v) => ['paris', 'park', 'party'].filter((w) => w.startsWith(v)),
        },
        { name: 'arg2', description: 'Second test argument', required: true },
      ],
      get: ({ arg1, arg2 }) => [{ role: 'user', content: { type: 'text', text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }],
    })
    .define({
      name: 'test_prompt_with_embedded_resource',
      description: 'A prompt that embeds a resource',
      arguments: [{ name: 'resourceUri', description: 'URI of the resource to embed', required: true }],
      get: ({ resourceUri }) => [
        {
          role: 'user',
          content: {
            type: 'resource',
            resource: { uri: resourceUri!, mimeType: 'text/plain', text: 'Embedded resource content for testing.' },
          },
        },
        { role: 'user', content: { type: 'text', text: 'Please process the embedded resource above.' } },
      ],
    })
    .define({
      name: 'test_prompt_with_image',
      description: 'A prompt with an image',
      get: () => [
        { role: 'user', content: { type: 'image', data: PNG, mimeType: 'image/png' } },
        { role: 'user', content: { type: 'text', text: 'Please analyze the image above.' } },
      ],
    });
}

export function createEverythingServer(): McpServer {
  return new McpServer({
    name: 'mcp-engines-everything-server',
    version: '1.0.0',
    tools: tools(),
    resources: resources(),
    prompts: prompts(),
    logging: true,
  });
}

function parseArgs(argv: string[]): { host: string; port: number } {
  let host = '127.0.0.1';
  let port = 0;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--port' || a === '--host') {
      const v = argv[++i];
      if (v === undefined) throw new UsageError(`${a} needs a value`);
      if (a === '--host') host = v;
      else if (!/^\d+$/.test(v) || Number(v) > 65535) throw new UsageError(`--port must be 0..65535, got ${JSON.stringify(v)}`);
      else port = Number(v);
    } else {
      throw new UsageError(`unknown option ${JSON.stringify(a)}; expected --port N and --host ADDR`);
    }
  }
  return { host, port };
}

async function main(): Promise<void> {
  const { host, port } = parseArgs(process.argv.slice(2));
  const server = createEverythingServer();
  const listener = await serveStreamableHttp({ host, port, connect: (t) => server.connect(t), logger: server.log });
  process.stdout.write(`${JSON.stringify({ url: listener.url })}\n`);
  const stop = async () => {
    await listener.close();
    await server.close();
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => {
    process.stderr.write(`everything-server: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(err instanceof UsageError ? 64 : 1);
  });
}
