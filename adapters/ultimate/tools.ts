// The tools of ultimate-tool-mcp, generated from the service's wire declaration
// (services/ultimate-tool/api/tools.ts): per entry, its name, title, description, hints and closed
// input; its data is the route's declared response. Each tool validates its input locally, sends
// one request of its route and returns the service's answer as the envelope's data. Nothing is
// computed here: no builds, no device access, no evidence reading of the adapter's own — only the
// three `follow`s the declaration names.
import type { z } from 'zod';
import { type SchemaAdvertiser, ToolRegistry, type ToolContext, toolResult } from '../../src/index.js';
import type { EvidenceReadSchema } from '../../services/ultimate-tool/api/schemas.js';
import { TOOL_NAMES, TOOLS, type ToolName, type ToolSpec, toolRequest, toolResponse } from '../../services/ultimate-tool/api/tools.js';
import { ultimateSchemaAdvertiser } from './advertised-schemas.js';
import { ultimateEnvelope } from './envelope.js';
import { reportJobRuns } from './job-progress.js';
import type { CaptureProgress, UltimateServiceClient } from './service-client.js';

/** The tool names, exactly as the contract spells them, in the order tools/list shows them. */
export const ULTIMATE_TOOL_NAMES: readonly ToolName[] = TOOL_NAMES;

/**
 * The data as relayed: the service may add fields and the adapter passes every field on unchanged,
 * so the top level of a declared response is open (its nested objects are as declared).
 */
function relayed(schema: z.ZodType): z.ZodType {
  return 'loose' in schema && typeof schema.loose === 'function' ? (schema as z.ZodObject).loose() : schema;
}

/** `advertise`: how tools/list shows the schemas (default: the short forms; `{}` shows them whole). */
export function createUltimateTools(client: UltimateServiceClient, advertise: SchemaAdvertiser = ultimateSchemaAdvertiser): ToolRegistry {
  const tools = new ToolRegistry({ envelope: ultimateEnvelope, advertise });
  for (const name of TOOL_NAMES) {
    const spec: ToolSpec = TOOLS[name];
    tools.define({
      name,
      title: spec.title,
      description: spec.description,
      input: spec.input,
      output: relayed(toolResponse(name)),
      annotations: spec.hints,
      handler: (args, ctx) => forward(client, name, spec, args as Record<string, unknown>, ctx),
    });
  }
  return tools;
}

async function forward(client: UltimateServiceClient, name: ToolName, spec: ToolSpec, args: Record<string, unknown>, ctx: ToolContext) {
  const input = toolRequest(name, args);
  const signal = ctx.signal;
  switch (spec.follow) {
    case 'capture-job': {
      const answer = await client.startCapture(spec.route as 'startDebugStreamCapture' | 'startSourceLinkedCapture', input, {
        signal,
        onProgress: datagramProgress(ctx),
      });
      await ctx.progressDelivered?.();
      return answer;
    }
    case 'job-progress': {
      // With a progressToken: one progress notification, runs finished out of planned (job-progress.ts).
      const body = (await client.call(spec.route, input, { signal })) as { job: Parameters<typeof reportJobRuns>[1] };
      await reportJobRuns(ctx, body.job);
      return body;
    }
    case 'evidence-content':
      return asEvidenceResult((await client.call(spec.route, input, { signal })) as EvidenceBody);
    default:
      return client.call(spec.route, input, { signal });
  }
}

/**
 * MCP progress of a capture (when the caller sent a progressToken): datagrams received out of the
 * bound, reported only when the count grew (progress must increase).
 */
function datagramProgress(ctx: { progress(progress: number, total?: number, message?: string): void }): (p: CaptureProgress) => void {
  let last = -1;
  return (p) => {
    if (p.datagrams <= last) return;
    last = p.datagrams;
    ctx.progress(p.datagrams, p.max_datagrams ?? undefined, `${p.datagrams} debug-stream datagrams received`);
  };
}

type EvidenceBody = { api_schema_version: number; evidence: z.output<typeof EvidenceReadSchema> };

/**
 * A PNG travels as MCP image content (and not a second time as base64 inside the JSON); text
 * stays inline; any other binary is size and SHA-256 only, whatever the service sent.
 */
function asEvidenceResult(body: EvidenceBody) {
  const { base64, ...evidence } = body.evidence;
  const data: EvidenceBody = { ...body, evidence };
  if (evidence.kind === 'image' && base64 !== undefined) {
    return toolResult(data, { extraContent: [{ type: 'image', data: base64, mimeType: evidence.media_type }] });
  }
  return toolResult(data);
}
