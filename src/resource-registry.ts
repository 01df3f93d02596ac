// Resources: fixed URIs and URI templates (RFC 6570 level 1–2 `{var}` / `{+var}`), each with a
// reader; completions for template variables; change events the server turns into
// notifications/resources/list_changed and notifications/resources/updated.
import type { ServerRequestContext } from './mcp/server-context.js';

type Awaitable<T> = T | Promise<T>;

export interface Annotations {
  audience?: ('user' | 'assistant')[];
  priority?: number;
  lastModified?: string;
}

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: 'light' | 'dark';
}

export type TextResourceContents = { uri: string; mimeType?: string; text: string; _meta?: Record<string, unknown> };
export type BlobResourceContents = { uri: string; mimeType?: string; blob: string; _meta?: Record<string, unknown> };
export type ResourceContents = TextResourceContents | BlobResourceContents;

/** A resource as resources/list shows it. */
export interface ResourceDescriptor {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

export interface ResourceTemplateDescriptor {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  annotations?: Annotations;
  icons?: Icon[];
}

/** What a reader returns: one contents object, several, or a string (text under the resource's URI). */
export type ReadResult = string | ResourceContents | ResourceContents[];

export interface ResourceDefinition extends ResourceDescriptor {
  read: (uri: string, ctx: ServerRequestContext) => Awaitable<ReadResult>;
}

/** Completes one argument value: the candidates for what the user typed so far. */
export type Completer = (value: string, context: { arguments: Record<string, string> }) => Awaitable<string[]>;

export interface ResourceTemplateDefinition extends ResourceTemplateDescriptor {
  read: (uri: string, variables: Record<string, string>, ctx: ServerRequestContext) => Awaitable<ReadResult>;
  /** Completions for the template's variables, by name (completion/complete with ref/resource). */
  complete?: Record<string, Completer>;
}

interface CompiledTemplate {
  readonly def: ResourceTemplateDefinition;
  readonly pattern: RegExp;
  readonly names: string[];
}

/** `{var}` matches one path segment, `{+var}` anything (reserved expansion). */
function compileTemplate(template: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  let source = '';
  let last = 0;
  for (const m of template.matchAll(/\{(\+?)([A-Za-z0-9_.]+)\}/g)) {
    source += escapeRegExp(template.slice(last, m.index));
    names.push(m[2]!);
    source += m[1] ? '(.+)' : '([^/?#]+)';
    last = m.index! + m[0].length;
  }
  source += escapeRegExp(template.slice(last));
  return { pattern: new RegExp(`^${source}$`), names };
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

export type ResourceChange = { kind: 'list' } | { kind: 'updated'; uri: string };

/** A resource or template not found, as the server reports it (its code depends on the era). */
export class ResourceNotFound extends Error {
  override readonly name = 'ResourceNotFound';
  constructor(readonly uri: string) {
    super(`Resource not found: ${uri}`);
  }
}

export class ResourceRegistry {
  private readonly resources = new Map<string, ResourceDefinition>();
  private readonly templates = new Map<string, CompiledTemplate>();
  private readonly listeners = new Set<(change: ResourceChange) => void>();

  /** Add a resource with a fixed URI. */
  resource(def: ResourceDefinition): this {
    if (this.resources.has(def.uri)) throw new Error(`duplicate resource URI: ${def.uri}`);
    this.resources.set(def.uri, def);
    this.emit({ kind: 'list' });
    return this;
  }

  /** Add a URI template; reading a URI it matches calls its reader with the variables. */
  template(def: ResourceTemplateDefinition): this {
    if ([...this.templates.values()].some((t) => t.def.name === def.name)) throw new Error(`duplicate resource template name: ${def.name}`);
    const { pattern, names } = compileTemplate(def.uriTemplate);
    if (names.length === 0) throw new Error(`resource template ${def.uriTemplate} has no {variable}: define it as a resource`);
    for (const name of Object.keys(def.complete ?? {})) {
      if (!names.includes(name)) throw new Error(`resource template ${def.uriTemplate}: completion for unknown variable ${name}`);
    }
    this.templates.set(def.uriTemplate, { def, pattern, names });
    this.emit({ kind: 'list' });
    return this;
  }

  remove(uri: string): boolean {
    const removed = this.resources.delete(uri);
    if (removed) this.emit({ kind: 'list' });
    return removed;
  }

  /** Tell subscribers that a resource's contents changed. */
  notifyUpdated(uri: string): void {
    this.emit({ kind: 'updated', uri });
  }

  get isEmpty(): boolean {
    return this.resources.size === 0 && this.templates.size === 0;
  }

  get hasCompletions(): boolean {
    return [...this.templates.values()].some((t) => t.def.complete && Object.keys(t.def.complete).length > 0);
  }

  onChange(listener: (change: ResourceChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private emit(change: ResourceChange): void {
    for (const l of this.listeners) l(change);
  }

  list(): ResourceDescriptor[] {
    return [...this.resources.values()].map(({ read: _read, ...d }) => d);
  }

  listTemplates(): ResourceTemplateDescriptor[] {
    return [...this.templates.values()].map(({ def: { read: _read, complete: _complete, ...d } }) => d);
  }

  /** Whether a URI names a resource here (directly or through a template). */
  has(uri: string): boolean {
    return this.resources.has(uri) || [...this.templates.values()].some((t) => t.pattern.test(uri));
  }

  async read(uri: string, ctx: ServerRequestContext): Promise<ResourceContents[]> {
    const fixed = this.resources.get(uri);
    if (fixed) return normalise(uri, fixed.mimeType, await fixed.read(uri, ctx));
    for (const t of this.templates.values()) {
      const m = t.pattern.exec(uri);
      if (!m) continue;
      const vars: Record<string, string> = {};
      t.names.forEach((name, i) => {
        vars[name] = decode(m[i + 1]!);
      });
      return normalise(uri, t.def.mimeType, await t.def.read(uri, vars, ctx));
    }
    throw new ResourceNotFound(uri);
  }

  /** Candidates for a template variable; undefined when the template or variable is unknown. */
  async complete(uriTemplate: string, variable: string, value: string, context: Record<string, string>): Promise<string[] | undefined> {
    const completer = this.templates.get(uriTemplate)?.def.complete?.[variable];
    if (!this.templates.has(uriTemplate)) return undefined;
    return completer ? completer(value, { arguments: context }) : [];
  }
}

function normalise(uri: string, mimeType: string | undefined, r: ReadResult): ResourceContents[] {
  if (typeof r === 'string') return [{ uri, ...(mimeType ? { mimeType } : {}), text: r }];
  return Array.isArray(r) ? r : [r];
}
