import { z } from 'zod';
import type { Logger } from './logger.js';
import type { JsonRpcId } from '../transports/transport.js';
import { atLeast } from './mcp/protocol-version.js';
import { type ResultEnvelope, type ToolFailure, plainEnvelope } from './tool-envelope.js';
import { asToolError } from './engine-errors.js';
import { type CallToolResult, type ContentBlock, RawToolResult, ToolResult } from './tool-result.js';
import { assertZod4Schema } from './zod-version.js';
import { RpcError } from './jsonrpc/errors.js';
import { InputRequiredSignal } from './mcp/input-required.js';
import type { ServerRequestContext } from './mcp/server-context.js';
import { compactJsonSchema } from './json-schema-trim.js';

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
  /** The client's declared capabilities (the session's, or this request's in the modern era). */
  readonly clientCapabilities?: Record<string, unknown>;
  /** Report progress; a no-op unless the caller passed `_meta.progressToken`. */
  progress(progress: number, total?: number, message?: string): void;
  /**
   * Resolves once the client has handled the progress reported so far (a ping round trip; at once
   * when none was sent). A tool that reports just before it answers awaits it: the official SDK
   * client dispatches a notification a microtask after reading it but retires the request's
   * progress handler as soon as it reads the answer, so a report read together with its answer
   * was dropped as "unknown token". Optional: contexts made outside a server lack it.
   */
  progressDelivered?(): Promise<void>;
  readonly log: Logger;
  /** Send a notification to this client. */
  notify(method: string, params?: Record<string, unknown>): void;
}

type Awaitable<T> = T | Promise<T>;

/**
 * What a handler may return. With an output schema: a value of that schema's type, a ToolResult
 * carrying one (or an error result), or a RawToolResult — so a handler that returns the wrong
 * shape does not compile. Without one: anything JSON.
 */
export type ToolHandlerResult<O extends z.ZodType | undefined> = O extends z.ZodType
  ? Awaitable<z.output<O> | ToolResult<z.output<O>> | RawToolResult>
  : unknown;

export interface ToolDefinition<I extends z.ZodType = z.ZodType, O extends z.ZodType | undefined = undefined> {
  /** 1–128 characters of [A-Za-z0-9_.-]. */
  name: string;
  title?: string;
  description: string;
  /** Arguments schema; must describe an object. Use z.strictObject for a closed request. */
  input: I;
  /**
   * The JSON Schema tools/list shows instead of the one derived from `input` (kept as given: a
   * `$schema`, `$defs`, `$ref`). Calls are still checked against `input`, which must admit what it
   * describes.
   */
  inputJsonSchema?: Record<string, unknown>;
  /**
   * Output schema of the tool's result (the `data` of an envelope). Enforced on every call, for
   * every protocol version; announced and attached as structuredContent from 2025-06-18 on.
   */
  output?: O;
  annotations?: ToolAnnotations;
  /** Callable but not listed by tools/list. */
  hidden?: boolean;
  /**
   * Accept arguments the input schema does not name (default false: a call with an unknown
   * argument is an error result naming it and the known ones, so a misspelt option is never
   * silently ignored). A `z.looseObject` input opts out as well.
   */
  allowExtraArguments?: boolean;
  /**
   * Whether a 2026-07-28 call may run as a task (the Tasks extension, when the server enables it):
   * 'optional' for clients that declare the extension, 'required' refuses clients that do not.
   */
  taskSupport?: 'optional' | 'required';
  /**
   * Return a JSON object (the tool's result), a ToolResult (toolResult()), or a RawToolResult
   * (rawResult()); throw ToolError for an error result.
   */
  handler: (args: z.output<I>, ctx: ServerRequestContext) => ToolHandlerResult<O>;
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
  readonly def: {
    readonly name: string;
    readonly title?: string;
    readonly description: string;
    readonly input: z.ZodType;
    readonly output?: z.ZodType;
    readonly annotations?: ToolAnnotations;
    readonly hidden?: boolean;
    readonly taskSupport?: 'optional' | 'required';
    readonly handler: (args: unknown, ctx: ToolContext) => unknown;
  };
  /** The argument names, when unknown ones are refused. */
  readonly knownArguments?: readonly string[];
  /** The envelope of the registry the tool was defined in; it travels with the tool when mounted. */
  readonly envelope: ResultEnvelope;
  /** What every success is checked against: the envelope's schema around the tool's own. */
  readonly wireOutput?: z.ZodType;
  readonly inputSchema: Record<string, unknown>;
  readonly outputSchema?: Record<string, unknown>;
}

/**
 * How a registry's schemas are shown in tools/list, from the JSON Schema zod emits. Each function
 * must admit every value the schema it is given admits (remove constraints, never add one:
 * `outlineJsonSchema` does): calls are still checked against the full zod schemas.
 */
export interface SchemaAdvertiser {
  input?(schema: Record<string, unknown>): Record<string, unknown>;
  output?(schema: Record<string, unknown>): Record<string, unknown>;
}

export interface ToolRegistryOptions {
  /** How results and failures are shaped; default `plainEnvelope`. */
  envelope?: ResultEnvelope;
  /** Shorter schemas for tools/list (a model pays for them on every connection); default: as emitted. */
  advertise?: SchemaAdvertiser;
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * JSON Schema for the wire. `$schema` is dropped: clients of every version apply their default;
 * what zod emits that constrains nothing (safe-integer bounds, `additionalProperties: {}`) is
 * dropped too (json-schema-trim.ts), since every tools/list costs a model context.
 */
function toJsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return compactJsonSchema(rest);
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
  private readonly listeners = new Set<() => void>();
  private readonly envelope: ResultEnvelope;
  private readonly advertise: SchemaAdvertiser;

  constructor(options: ToolRegistryOptions = {}) {
    this.envelope = options.envelope ?? plainEnvelope;
    this.advertise = options.advertise ?? {};
  }

  define<I extends z.ZodType, O extends z.ZodType | undefined = undefined>(def: ToolDefinition<I, O>): this {
    if (!TOOL_NAME.test(def.name)) {
      throw new Error(`invalid tool name ${JSON.stringify(def.name)}: expected 1-128 characters of [A-Za-z0-9_.-]`);
    }
    assertZod4Schema(def.input, `tool ${def.name}: input`);
    if (def.output !== undefined) assertZod4Schema(def.output, `tool ${def.name}: output`);
    const fullInput = def.inputJsonSchema ?? toJsonSchema(def.input, 'input');
    const inputSchema = this.advertise.input && !def.inputJsonSchema ? this.advertise.input(fullInput) : fullInput;
    if (inputSchema.type !== 'object') {
      throw new Error(`tool ${def.name}: the input schema must describe an object, got ${JSON.stringify(inputSchema.type)}`);
    }
    const wireOutput = this.envelope.outputSchema(def.output);
    const fullOutput = wireOutput ? toJsonSchema(wireOutput, 'output') : undefined;
    const outputSchema = fullOutput && this.advertise.output ? this.advertise.output(fullOutput) : fullOutput;
    if (outputSchema && outputSchema.type !== 'object') {
      throw new Error(`tool ${def.name}: the output schema must describe an object`);
    }
    const knownArguments = def.allowExtraArguments ? undefined : closedArgumentNames(def.input);
    this.add({
      def: def as unknown as RegisteredTool['def'],
      ...(knownArguments ? { knownArguments } : {}),
      envelope: this.envelope,
      ...(wireOutput ? { wireOutput } : {}),
      inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
    });
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
    for (const l of this.listeners) l();
    for (const parent of this.parents) parent.add(tool);
  }

  /** Called whenever the list gains a tool (here or in a mounted registry); returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** Whether a tool may run as a task (see ToolDefinition.taskSupport). */
  taskSupport(name: string): 'optional' | 'required' | undefined {
    return this.tools.get(name)?.def.taskSupport;
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
      // The title goes into annotations only for versions without Tool.title (2025-03-26), which
      // is where clients of that version look for it; later versions would get it twice.
      const annotationTitle = def.title && !withTitleAndOutput ? { title: def.title } : {};
      if (withAnnotations && (def.annotations || annotationTitle.title)) d.annotations = { ...annotationTitle, ...def.annotations };
      list.push(d);
    }
    this.listCache.set(protocolVersion, list);
    return list;
  }

  /**
   * Run a tool. Unknown names are the caller's concern (the server answers -32602); everything
   * else — bad arguments, a ToolError, an unexpected exception — becomes an isError result shaped
   * by the tool's envelope.
   */
  async call(name: string, rawArgs: unknown, ctx: ToolContext): Promise<CallToolResult> {
    const tool = this.tools.get(name);
    if (!tool) throw new Error(`unknown tool ${name}`);
    const { def } = tool;
    const unknown = tool.knownArguments && unknownArguments(rawArgs, tool.knownArguments);
    if (unknown?.length) {
      const known = tool.knownArguments!.length ? tool.knownArguments!.join(', ') : '(none)';
      // zod's own wording for a strict object ("Unrecognized key"), plus what the tool does accept.
      const message = `Unrecognized key${unknown.length > 1 ? 's' : ''}: ${unknown.map((k) => JSON.stringify(k)).join(', ')}; known arguments: ${known}`;
      const issues = unknown.map((k) => ({ code: 'unrecognized_keys', keys: [k], path: [], message: `unknown argument ${k}` }));
      return failureResult(tool, { kind: 'invalid-arguments', message, issues: issues as unknown as z.core.$ZodIssue[] }, ctx);
    }
    const parsed = def.input.safeParse(rawArgs ?? {});
    if (!parsed.success) {
      const failure = { kind: 'invalid-arguments', message: describeZodError(parsed.error), issues: parsed.error.issues } as const;
      return failureResult(tool, failure, ctx);
    }
    let value: unknown;
    try {
      value = await def.handler(parsed.data, ctx);
    } catch (err) {
      // Not failures of the tool: the end of an MRTR round, or a protocol error (a missing
      // client capability) that the server answers as a JSON-RPC error.
      if (err instanceof InputRequiredSignal || err instanceof RpcError) throw err;
      // A ToolError, or an engine's EngineError mapped in one place (src/engine-errors.ts).
      const toolError = asToolError(err);
      if (toolError) return failureResult(tool, { kind: 'tool-error', error: toolError }, ctx);
      if (ctx.signal.aborted) return failureResult(tool, { kind: 'cancelled' }, ctx);
      ctx.log.error(`tool ${name} failed: ${(err as Error)?.stack ?? String(err)}`);
      return failureResult(tool, { kind: 'internal' }, ctx);
    }
    if (value instanceof RawToolResult) return value.result;
    let data = value;
    let extraContent: readonly ContentBlock[] = [];
    if (value instanceof ToolResult) {
      if (value.isError) return failureResult(tool, { kind: 'error-result', payload: value.payload }, ctx, value.extraContent);
      data = value.payload;
      extraContent = value.extraContent;
    }
    const wire = tool.envelope.success(name, data);
    if (tool.wireOutput) {
      const checked = tool.wireOutput.safeParse(wire);
      if (!checked.success) {
        ctx.log.error(`tool ${name} returned a result outside its output schema: ${describeZodError(checked.error)}`);
        return failureResult(tool, { kind: 'invalid-output', message: describeZodError(checked.error) }, ctx);
      }
    }
    const text = JSON.stringify(wire ?? {});
    const structured = tool.wireOutput !== undefined && atLeast(ctx.protocolVersion, '2025-06-18');
    const result: CallToolResult = {
      content: [{ type: 'text', text: structured ? textCopy(text) : text }, ...extraContent],
      isError: false,
    };
    if (structured) result.structuredContent = wire as Record<string, unknown>;
    return result;
  }
}

/**
 * Above this many UTF-8 bytes, a result that goes out as structuredContent is not repeated in full
 * as text. The MCP spec asks for the text copy "for backwards compatibility" (SHOULD); a client
 * that reads structuredContent gets everything there, and a full copy of a large result — its
 * escapes escaped again inside the JSON-RPC string — can more than double the message: a 4 MiB
 * comparison result became an ~12 MB line, past the official SDK client's 10 MiB stdio read
 * buffer, which then drops the connection. Clients of older protocol versions still get the
 * whole JSON as text (it is their only copy).
 */
export const TEXT_COPY_MAX_BYTES = 1_048_576;

function textCopy(json: string): string {
  // A UTF-16 unit is at least one UTF-8 byte: the cheap check first.
  if (json.length <= TEXT_COPY_MAX_BYTES / 3) return json;
  const bytes = Buffer.byteLength(json, 'utf8');
  if (bytes <= TEXT_COPY_MAX_BYTES) return json;
  return JSON.stringify({
    text_copy: 'omitted',
    structured_content_bytes: bytes,
    reason: `the result is ${bytes} bytes of JSON, over the ${TEXT_COPY_MAX_BYTES}-byte text copy limit: it is in structuredContent only`,
  });
}

function failureResult(
  tool: RegisteredTool,
  failure: ToolFailure,
  ctx: ToolContext,
  extraContent: readonly ContentBlock[] = [],
): CallToolResult {
  const payload = tool.envelope.failure(tool.def.name, failure);
  const result: CallToolResult = { content: [{ type: 'text', text: JSON.stringify(payload ?? {}) }, ...extraContent], isError: true };
  if (tool.envelope.structuredFailures && tool.wireOutput && atLeast(ctx.protocolVersion, '2025-06-18')) {
    result.structuredContent = payload;
  }
  return result;
}

/**
 * The argument names of an object input whose unknown keys are to be refused; undefined for an
 * input that admits extra keys by design (a z.looseObject / catchall) or is not an object.
 */
function closedArgumentNames(input: z.ZodType): string[] | undefined {
  if (!(input instanceof z.ZodObject)) return undefined;
  const catchall = input._zod.def.catchall;
  if (catchall && !(catchall instanceof z.ZodNever)) return undefined;
  return Object.keys(input.shape);
}

function unknownArguments(args: unknown, known: readonly string[]): string[] {
  if (args === null || typeof args !== 'object') return [];
  return Object.keys(args).filter((k) => !known.includes(k));
}
