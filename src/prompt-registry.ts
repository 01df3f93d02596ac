// Prompts: named message templates with string arguments (prompts/list, prompts/get), and
// completions for those arguments (completion/complete with ref/prompt).
import { ErrorCode, RpcError } from './jsonrpc/errors.js';
import type { ServerRequestContext } from './mcp/server-context.js';
import type { Completer, Icon } from './resource-registry.js';
import type { ContentBlock } from './tool-result.js';

type Awaitable<T> = T | Promise<T>;

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

export interface PromptDescriptor {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
}

export interface PromptMessage {
  role: 'user' | 'assistant';
  content: ContentBlock;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
  [key: string]: unknown;
}

export interface PromptDefinition extends PromptDescriptor {
  arguments?: (PromptArgument & { complete?: Completer })[];
  get: (args: Record<string, string>, ctx: ServerRequestContext) => Awaitable<GetPromptResult | PromptMessage[]>;
}

export class PromptRegistry {
  private readonly prompts = new Map<string, PromptDefinition>();
  private readonly listeners = new Set<() => void>();

  define(def: PromptDefinition): this {
    if (this.prompts.has(def.name)) throw new Error(`duplicate prompt name: ${def.name}`);
    this.prompts.set(def.name, def);
    for (const l of this.listeners) l();
    return this;
  }

  get isEmpty(): boolean {
    return this.prompts.size === 0;
  }

  get hasCompletions(): boolean {
    return [...this.prompts.values()].some((p) => p.arguments?.some((a) => a.complete));
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  list(): PromptDescriptor[] {
    return [...this.prompts.values()].map(({ get: _get, arguments: args, ...d }) => ({
      ...d,
      ...(args ? { arguments: args.map(({ complete: _c, ...a }) => a) } : {}),
    }));
  }

  /** prompts/get: unknown prompts and missing or non-string arguments are -32602, naming what was expected. */
  async get(name: string, rawArgs: unknown, ctx: ServerRequestContext): Promise<GetPromptResult> {
    const prompt = this.prompts.get(name);
    if (!prompt) {
      throw new RpcError(
        ErrorCode.InvalidParams,
        `Unknown prompt: ${name}; known prompts: ${[...this.prompts.keys()].join(', ') || '(none)'}`,
      );
    }
    const args: Record<string, string> = {};
    const given = (rawArgs ?? {}) as Record<string, unknown>;
    const declared = prompt.arguments ?? [];
    for (const [k, v] of Object.entries(given)) {
      if (!declared.some((a) => a.name === k)) {
        throw new RpcError(
          ErrorCode.InvalidParams,
          `Invalid params: prompt ${name} has no argument "${k}"; its arguments: ${declared.map((a) => a.name).join(', ') || '(none)'}`,
        );
      }
      if (typeof v !== 'string')
        throw new RpcError(ErrorCode.InvalidParams, `Invalid params: argument "${k}" of prompt ${name} must be a string`);
      args[k] = v;
    }
    const missing = declared.filter((a) => a.required && args[a.name] === undefined).map((a) => a.name);
    if (missing.length) throw new RpcError(ErrorCode.InvalidParams, `Invalid params: prompt ${name} requires ${missing.join(', ')}`);
    const result = await prompt.get(args, ctx);
    return Array.isArray(result) ? { messages: result } : result;
  }

  /** Candidates for a prompt argument; undefined when the prompt or argument is unknown. */
  async complete(name: string, argument: string, value: string, context: Record<string, string>): Promise<string[] | undefined> {
    const arg = this.prompts.get(name)?.arguments?.find((a) => a.name === argument);
    if (!arg) return undefined;
    return arg.complete ? arg.complete(value, { arguments: context }) : [];
  }
}
