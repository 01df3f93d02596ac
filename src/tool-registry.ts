import { z } from 'zod';
import type { Logger } from './logger.js';
import type { JsonRpcId } from '../transports/transport.js';
import { atLeast } from './mcp/protocol-version.js';
import { RawToolResult, ToolError, ToolResult, type CallToolResult } from './tool-result.js';

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** What a tool handler receives besides its arguments. */
export interface ToolContext {
  /** Aborted when the caller cancels (notifications/cancelled) or disconnects. */
  readonly signal: AbortSignal;
  readonly requestId: JsonRpcId;
  /** The protocol version negotiated with this client. */
  readonly protocolVersion: string;
  readonly clientInfo?: { name?: string; version?: string };
  /** Report progress; a no-op unless the caller passed `_meta.progressToken`. */
  progress(progress: number, total?: number, message?: string): void;
  readonly log: Logger;
  /** Send a notification to this client. */
  notify(method: string, params?: Record<string, unknown>): void;
}

export interface ToolDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType | undefined = undefined> {
  /** 1–128 characters of [A-Za-z0-9_.-]. */
  name: string;
  title?: string;
  description: string;
  /** Arguments schema; must describe an object. Use z.strictObject for a closed request. */
  input: I;
  /** Output schema; when set and the client negotiated ≥ 2025-06-18, results carry structuredContent. */
  output?: O;
  annotations?: ToolAnnotations;
  /** Callable but not listed by tools/list. */
  hidden?: boolean;
  /**
   * Return a JSON object (the tool's result), a ToolResult (toolResult()), or a RawToolResult
   * (rawResult()); throw ToolError for an error result.
   */
  handler: (args: z.output<I>, ctx: ToolContext) => unknown;
}

/** A tool as tools/list describes it. */
export interface ToolDescriptor {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: ToolAnnotations & { title?: string };
}

interface RegisteredTool {
  readonly def: ToolDefinition<z.ZodType, z.ZodType | undefined>;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown>;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** JSON Schema for the wire. `$schema` is dropped: clients of every version apply their default. */
function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return rest;
}

/** "path: problem" for every zod issue, so the caller learns which field is wrong and what was expected. */
export function describeZodError(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.length ? issue.path.map(String).join('.') : '(arguments)'}: ${issue.message}`)
    .join('; ');
}

/**
 * Tools with zod schemas. Registries compose: `mount` adds another registry's tools (and any it
 * gains later); a duplicate name anywhere in the composition throws when it is defined.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();
  private readonly parents: ToolRegistry[] = [];
  private readonly listCache = new Map<string, ToolDescriptor[]>();

  define<I extends z.ZodType, O extends z.ZodType | undefined = undefined>(def: ToolDefinition<I, O>): this {
    if (!TOOL_NAME.test(def.name)) {
      throw new Error(`invalid tool name ${JSON.stringify(def.name)}: expected 1-128 characters of [A-Za-z0-9_.-]`);
    }
    const inputSchema = toJsonSchema(def.input, 'input');
    if (inputSchema.type !== 'object') {
      throw new Error(`tool ${def.name}: the input schema must describe an object, got ${JSON.stringify(inputSchema.type)}`);
    }
    const outputSchema = def.output ? toJsonSchema(def.output, 'output') : undefined;
    if (outputSchema && outputSchema.type !== 'object') {
      throw new Error(`tool ${def.name}: the output schema must describe an object`);
    }
    this.add({ def: def as unknown as RegisteredTool['def'], inputSchema, outputSchema });
    return this;
  }

  /** Add all of `other`'s tools, now and as it gains more. */
  mount(other: ToolRegistry): this {
    if (other === this) throw new Error('a registry cannot mount itself');
    for (const tool of other.tools.values()) this.add(tool);
    other.parents.push(this);
    return this;
  }

  private add(tool: RegisteredTool): void {
    if (this.tools.has(tool.def.name)) throw new Error(`duplicate tool name: ${tool.def.name} is already defined`);
    this.tools.set(tool.def.name, tool);
    this.listCache.clear();
    for (const parent of this.parents) parent.add(tool);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  get names(): string[] {
    return [...this.tools.keys()];
  }

  /** The tools/list answer for a protocol version (hidden tools excluded). */
  list(protocolVersion: string): ToolDescriptor[] {
    const cached = this.listCache.get(protocolVersion);
    if (cached) return cached;
    const withAnnotations = atLeast(protocolVersion, '2025-03-26');
    const withTitleAndOutput = atLeast(protocolVersion, '2025-06-18');
    const list: ToolDescriptor[] = [];
    for (const { def, inputSchema, outputSchema } of this.tools.values()) {
      if (def.hidden) continue;
      const d: ToolDescriptor = { name: def.name, description: def.description, inputSchema };
      if (withTitleAndOutput && def.title) d.title = def.title;
      if (withTitleAndOutput && outputSchema) d.outputSchema = outputSchema;
      if (withAnnotations && (def.annotations || def.title)) {
        d.annotations = { ...(def.title ? { title: def.title } : {}), ...def.annotations };
      }
      list.push(d);
    }
    this.listCache.set(protocolVersion, list);
    return list;
  }

  /**
   * Run a tool. Unknown names are the caller's concern (the server answers -32602); everything
   * else — bad arguments, a ToolError, an unexpected exception — becomes an isError result.
   */
  async call(name: string, rawArgs: unknown, ctx: ToolContext): Promise<CallToolResult> {
    const tool = this.tools.get(name);
    if (!tool) throw new Error(`unknown tool ${name}`);
    const { def } = tool;
    const parsed = def.input.safeParse(rawArgs ?? {});
    if (!parsed.success) {
      return errorResult({ error: `invalid arguments for tool ${name}: ${describeZodError(parsed.error)}` });
    }
    let value: unknown;
    try {
      value = await def.handler(parsed.data, ctx);
    } catch (err) {
      if (err instanceof ToolError) return errorResult(err.toPayload());
      if (ctx.signal.aborted) return errorResult({ error: 'cancelled' });
      ctx.log.error(`tool ${name} failed: ${(err as Error)?.stack ?? String(err)}`);
      return errorResult({ error: `internal error in tool ${name}` });
    }
    if (value instanceof RawToolResult) return value.result;
    const isError = value instanceof ToolResult ? value.isError : false;
    const payload = value instanceof ToolResult ? value.payload : value;
    const result: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(payload ?? {}) }], isError };
    if (def.output && !isError && atLeast(ctx.protocolVersion, '2025-06-18')) {
      const checked = def.output.safeParse(payload);
      if (!checked.success) {
        ctx.log.error(`tool ${name} returned a result outside its output schema: ${describeZodError(checked.error)}`);
        return errorResult({ error: `tool ${name} produced a result that does not match its output schema` });
      }
      result.structuredContent = payload as Record<string, unknown>;
    }
    return result;
  }
}

function errorResult(payload: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(payload) }], isError: true };
}
