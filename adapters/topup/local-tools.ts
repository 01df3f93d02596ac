// The ten tools that act on a toplevel: eval, eval_batch, env, lookup, reset, cancel, load,
// checkpoint, restore, compile_to_binary. Each runs on the local OcamlToplevel, or — when the call
// names a host or session — is forwarded through the router and its result returned unchanged.
import { z } from 'zod';
import { ToolRegistry, rawResult } from '../../src/index.js';
import type { ToolContext } from '../../src/index.js';
import { MAX_TIMEOUT_SEC, type OcamlToplevel } from '../../engines/ocaml/index.js';
import type { TopupRouter } from './router.js';
import { routeOf, routingFields, withoutRouting } from './routing-fields.js';

const timeoutField = z
  .number()
  .positive()
  .max(MAX_TIMEOUT_SEC)
  .optional()
  .describe('seconds before the evaluation is interrupted (default 30)');

export interface LocalToolsOptions {
  engine: OcamlToplevel;
  router: TopupRouter;
  /** Called around every routable call, so notifications/cancelled can tell live requests apart. */
  track?: <T>(ctx: ToolContext, run: () => Promise<T>) => Promise<T>;
}

/** How often a long eval reports its elapsed time (MCP progress, when the caller asked for it). */
export const EVAL_PROGRESS_INTERVAL_MS = 1000;

/**
 * Run `work`, reporting the elapsed whole seconds as progress every second while it runs (an eval
 * that ends within a second reports nothing). The total is unknown, so none is sent.
 */
async function withElapsedProgress<T>(ctx: ToolContext, work: () => Promise<T>): Promise<T> {
  let seconds = 0;
  const timer = setInterval(() => {
    seconds += 1;
    ctx.progress(seconds, undefined, `eval running for ${seconds} s`);
  }, EVAL_PROGRESS_INTERVAL_MS);
  timer.unref();
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}

export function localTools({ engine, router, track = (_ctx, run) => run() }: LocalToolsOptions): ToolRegistry {
  const tools = new ToolRegistry();

  /** Define a routable tool: local handler unless host/session names another target. */
  function routable<S extends z.ZodRawShape>(def: {
    name: string;
    title: string;
    description: string;
    shape: S;
    readOnly?: boolean;
    destructive?: boolean;
    local: (args: z.output<z.ZodObject<S>>, ctx: ToolContext) => Promise<unknown>;
  }): void {
    const input = z.object({ ...def.shape, ...routingFields });
    tools.define({
      name: def.name,
      title: def.title,
      description: def.description,
      input,
      annotations: { readOnlyHint: def.readOnly ?? false, destructiveHint: def.destructive ?? false, openWorldHint: false },
      handler: (args: Record<string, unknown>, ctx: ToolContext) =>
        track(ctx, async () => {
          const target = routeOf(args as { host?: string; session?: string });
          if (target) return rawResult(await router.forward(target, def.name, withoutRouting(args), ctx));
          // An OcamlError thrown here reaches the wire as { error, code } through the registry's
          // one EngineError mapping (src/engine-errors.ts).
          return await def.local(args as z.output<z.ZodObject<S>>, ctx);
        }),
    });
  }

  routable({
    name: 'eval',
    title: 'Evaluate OCaml',
    description:
      'Evaluate one or more OCaml phrases (";;" optional) in the persistent toplevel. Returns {value_repr, type, stdout, stderr, warnings, error}: phrases run in order and stop at the first failure; value_repr/type describe the last successful phrase; stdout/stderr are what user code printed; error (null on success) carries the compiler message with its location, the exception, or "evaluation timed out". #require "pkg" loads findlib packages. Oversized fields are cut with …[+N bytes; full at <path>] and spilled to *_overflow.',
    shape: { source: z.string().describe('OCaml phrase(s)'), timeout: timeoutField },
    local: (args, ctx) => withElapsedProgress(ctx, () => engine.eval(args.source, { timeout: args.timeout, signal: ctx.signal })),
  });

  routable({
    name: 'eval_batch',
    title: 'Evaluate a batch',
    description:
      'Evaluate a list of sources sequentially (later ones see earlier bindings); timeout is per element. Returns {results, stopped_on_error}: every element evaluated, in order, stopping after the first with a non-null error.',
    shape: { sources: z.array(z.string()).describe('OCaml sources, one eval each'), timeout: timeoutField },
    local: (args, ctx) =>
      engine.evalBatch(args.sources, {
        timeout: args.timeout,
        signal: ctx.signal,
        onElement: (done, total) => ctx.progress(done, total, `${done} of ${total} phrases evaluated`),
      }),
  });

  routable({
    name: 'env',
    title: 'List bindings',
    description:
      'List user-defined value bindings as {name, type}, oldest first. filter: substring of the name; all: include stdlib/library values.',
    shape: {
      filter: z.string().optional().describe('substring filter on binding names'),
      all: z.boolean().optional().describe('include stdlib/library bindings (hidden by default)'),
    },
    readOnly: true,
    local: (args) => engine.env({ filter: args.filter, all: args.all }),
  });

  routable({
    name: 'lookup',
    title: 'Inspect a binding',
    description:
      'Type, source location and a small bounded value preview of one binding (qualified names such as List.map work). Unbound names are an error.',
    shape: { name: z.string().min(1).describe('value name') },
    readOnly: true,
    local: (args) => engine.lookup(args.name),
  });

  routable({
    name: 'reset',
    title: 'Reset the toplevel',
    description:
      'Discard the environment and start a fresh toplevel process: drops every binding, #load-ed code and the phrase log. Prefer restore for a known-good workspace.',
    shape: {},
    destructive: true,
    local: () => engine.reset(),
  });

  routable({
    name: 'cancel',
    title: 'Interrupt the running evaluation',
    description:
      'Interrupt the evaluation currently running (SIGINT); it answers "evaluation timed out" and the session keeps its bindings. Returns {cancelled} (false when nothing was running). Does not broadcast across hosts.',
    shape: {},
    local: async () => engine.cancel(),
  });

  routable({
    name: 'load',
    title: 'Load a compiled archive',
    description:
      engine.driver === 'native'
        ? 'Load an absolute .cmxs (or a .cmx/.cmxa, linked into a .cmxs first, or an .ml source, compiled on its own into one) into the live native session; its directory joins the load path so the sibling .cmi is found. Not logged, not replayed by reset/restore.'
        : 'Load an absolute .cma/.cmo into the live session; its directory joins the load path so the sibling .cmi is found. Not logged, not replayed by reset/restore.',
    shape: {
      path: z
        .string()
        .min(1)
        .describe(engine.driver === 'native' ? 'absolute path of a .cmxs, .cmx, .cmxa or .ml' : 'absolute path of a .cma or .cmo'),
    },
    local: (args) => engine.load(args.path),
  });

  routable({
    name: 'checkpoint',
    title: 'Checkpoint the phrase log',
    description:
      'Save the phrase log (every successful phrase) as $TOPUP_CHECKPOINT_DIR/<label>.ml (default ~/.topup/checkpoints/), atomically, overwriting. label: [A-Za-z0-9._-]+, no leading dot, no "..".',
    shape: { label: z.string().describe('checkpoint name') },
    local: (args) => engine.checkpoint(args.label),
  });

  routable({
    name: 'restore',
    title: 'Restore a checkpoint',
    description:
      'Reset and replay the checkpoint <label>, which becomes the live phrase log. Returns the eval result shape; a non-null error means a phrase failed mid-replay (the log then holds the phrases that did replay). #load-ed archives must be loaded again.',
    shape: { label: z.string().describe('checkpoint name') },
    destructive: true,
    local: (args, ctx) => engine.restore(args.label, { signal: ctx.signal }),
  });

  routable({
    name: 'compile_to_binary',
    title: 'Promote the session to a native binary',
    description:
      'Dump the phrase log into a dune project under out, append `let () = ignore (<entry> ())`, build natively and copy out/main.exe. entry must have type unit -> _. out: absolute; created on demand; refused if non-empty without a .topup-promote marker. libraries: findlib packages (#require-d ones are added). Returns {ok, binary_path, build_log}.',
    shape: {
      entry: z.string().min(1).describe('a binding of type unit -> _'),
      out: z.string().min(1).describe('absolute output directory'),
      libraries: z.array(z.string()).optional().describe('findlib package names for the (libraries ...) stanza'),
    },
    local: (args, ctx) => engine.compileToBinary({ entry: args.entry, out: args.out, libraries: args.libraries, signal: ctx.signal }),
  });

  return tools;
}
