// How tests launch the package's bins: from source through tsx, so a test never depends on a
// stale build. (test/package/dist.test.ts separately checks the built dist/ bins.)
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** [command, args] that run bin/<name>.ts with the given arguments. */
export function binCommand(name: string, args: string[] = []): { command: string; args: string[] } {
  return { command: process.execPath, args: ['--import', 'tsx', join(repoRoot, 'bin', `${name}.ts`), ...args] };
}
