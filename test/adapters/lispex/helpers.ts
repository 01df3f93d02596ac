// Shared helpers of the Lispex MCP tests: connect the official SDK client to a Lispex server in
// memory, read tool payloads, and count host calls (to prove a bound was enforced before work).
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '../../../transports/index.js';
import { createLispexServer } from '../../../adapters/lispex/index.js';
import type { EvaluationHost } from '../../../adapters/lispex/index.js';
import type { StartupProducts } from '../../../adapters/lispex/products.js';
import type { EvaluateOptions, EvaluationJob, HostOutcome } from '../../../engines/lispex/host/index.js';

export type ToolCallResult = Awaited<ReturnType<Client['callTool']>>;

/** Wraps a host and records every job it is asked to run. */
export class CountingHost implements EvaluationHost {
  readonly jobs: EvaluationJob[] = [];
  readonly outcomes: HostOutcome[] = [];
  readonly options: Array<EvaluateOptions | undefined> = [];
  constructor(private readonly inner: EvaluationHost) {}
  async evaluate(job: EvaluationJob, options?: EvaluateOptions): Promise<HostOutcome> {
    this.jobs.push(job);
    this.options.push(options);
    const outcome = await this.inner.evaluate(job, options);
    this.outcomes.push(outcome);
    return outcome;
  }
}

export async function connectInMemory(
  host: EvaluationHost,
  products: StartupProducts = {},
  comparisonWallClockMs?: number,
): Promise<{ client: Client; close: () => Promise<void> }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const server = createLispexServer({
    host,
    products,
    ...(comparisonWallClockMs !== undefined ? { comparisonWallClockMs } : {}),
  });
  await server.connect(serverSide);
  const client = new Client({ name: 'lispex-mcp-test', version: '1.0.0' });
  await client.connect(clientSide);
  return { client, close: () => client.close() };
}

/**
 * The JSON payload of a tool result: the first text block, which must equal structuredContent when
 * both are there — unless the result is over the registry's text-copy limit, whose text is then a
 * note and structuredContent the payload.
 */
export function payload(result: ToolCallResult): any {
  const first = (result.content as Array<{ type: string; text?: string }>)[0];
  if (first?.type !== 'text' || first.text === undefined) throw new Error('no text content in the result');
  const text = JSON.parse(first.text);
  if (result.structuredContent === undefined) return text;
  if (text?.text_copy === 'omitted') return result.structuredContent;
  assert.deepEqual(text, result.structuredContent, 'the text copy is the structured content');
  return text;
}
