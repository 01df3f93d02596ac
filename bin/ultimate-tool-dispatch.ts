// The `ultimate-tool` subcommands, shared by bin/ultimate-tool.ts and `mcp-engines ultimate-tool`.
// This is the edge where the environment is read (C64U_HOST, C64U_PASSWORD, MCP_ENGINES_LOG);
// `serve`, `mcp` (the MCP adapter, also installed as ultimate-tool-mcp), `capture` (the two-step debug-stream capture over the service's HTTP API) and `virtual-vice` are dispatched here, everything else goes to engines/ultimate/cli.ts.
import { logLevelFromEnv } from '../common/index.js';

export async function runUltimateTool(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === 'serve') {
    const { runServeCli } = await import('../engines/ultimate/service/cli.js');
    return runServeCli(rest, {
      host: process.env.C64U_HOST || undefined,
      password: process.env.C64U_PASSWORD || undefined,
      logLevel: logLevelFromEnv(),
    });
  }
  if (command === 'mcp') return (await import('../adapters/ultimate/cli.js')).runUltimateToolMcpCli(rest);
  if (command === 'capture') return (await import('../adapters/ultimate/capture-cli.js')).runCaptureCli(rest);
  if (command === 'virtual-vice') return (await import('../engines/ultimate/service/virtual-vice.js')).runVirtualViceCli(rest);
  return (await import('../engines/ultimate/cli.js')).runUltimateToolCli(argv);
}
