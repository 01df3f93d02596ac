// Where the shipped agent source lives at run time. The engine must work both from source (tsx)
// and from the bundled dist/, so it walks up from this module to the mcp-engines package.json.
// (Engines do not import from src/, so this small walk is repeated here on purpose.)
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | undefined;

export function mcpEnginesRoot(): string {
  if (cached) return cached;
  const here = typeof __dirname === 'string' ? __dirname : dirname(fileURLToPath(import.meta.url));
  let dir = here;
  for (;;) {
    const candidate = join(dir, 'package.json');
    if (existsSync(candidate)) {
      try {
        if (JSON.parse(readFileSync(candidate, 'utf8')).name === 'mcp-engines') return (cached = dir);
      } catch {
        // an unreadable package.json on the way up is not ours; keep climbing
      }
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find the mcp-engines package.json above ${here}`);
    dir = parent;
  }
}

/** The agent's OCaml source file, shipped in the package under engines/ocaml/agent/. */
export function agentSourcePath(): string {
  return join(mcpEnginesRoot(), 'engines', 'ocaml', 'agent', 'topup_agent.ml');
}
