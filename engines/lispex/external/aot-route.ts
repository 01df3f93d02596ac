// The fresh AOT member of all-four: a private request workspace (mkdtemp, mode 0700), one build
// by the compiler product (`--compile WORKSPACE --rustc RUSTC`, its own process group: rustc and
// the linker die with it on cancellation or timeout), one run of the built program through the
// same strict product boundary as the Topaz VM, and the workspace removed before answering —
// checked gone; a workspace that cannot be removed is reported so the tool result fails closed.

import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ExternalRequest } from './derivation.js';
import { runProduct } from './product-process.js';
import { toMemberOutcome, type MemberOutcome } from './topaz-route.js';

/** Build wall clock of one fresh AOT product (inside the 660,000 ms comparison wall clock). */
export const AOT_BUILD_WALL_CLOCK_MS = 120_000;
const BUILD_OUTPUT_BYTES = 64 * 1024;

export interface AotRunOptions {
  readonly compiler: string;
  readonly rustc: string;
  readonly request: ExternalRequest;
  readonly wallClockMs: number;
  readonly maxOutputBytes: number;
  readonly signal?: AbortSignal;
  /** Observers for tests: the workspace once made, each product's process group once started. */
  readonly onWorkspace?: (path: string) => void;
  readonly onProcessGroup?: (phase: 'build' | 'run', pgid: number) => void;
  /** Called once the product is built, before it runs (the tool reports it as progress). */
  readonly onBuilt?: (buildMs: number) => void;
  /** How the workspace is removed (tests substitute a failing remover to reach the closed path). */
  readonly removeWorkspace?: (path: string) => Promise<void>;
}

const removeTree = (path: string): Promise<void> => rm(path, { recursive: true, force: true });

export interface AotMemberResult {
  readonly outcome: MemberOutcome;
  readonly workspaceCreated: boolean;
  /** False only when the workspace could not be removed (the caller fails closed). */
  readonly workspaceRemoved: boolean;
  readonly buildMs: number | null;
}

export async function runFreshAotMember(options: AotRunOptions): Promise<AotMemberResult> {
  const workspace = await mkdtemp(join(tmpdir(), 'lispex-aot-'));
  options.onWorkspace?.(workspace);
  let outcome: MemberOutcome;
  let buildMs: number | null = null;
  try {
    const stdin = JSON.stringify(options.request);
    const started = performance.now();
    const build = await runProduct({
      executable: options.compiler,
      args: ['--compile', workspace, '--rustc', options.rustc],
      stdin,
      wallClockMs: AOT_BUILD_WALL_CLOCK_MS,
      maxOutputBytes: BUILD_OUTPUT_BYTES,
      cwd: workspace,
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
      onStart: (pgid) => options.onProcessGroup?.('build', pgid),
    });
    buildMs = performance.now() - started;
    if (build.kind !== 'exited') {
      const failed = toMemberOutcome(build, options.request, buildMs, 'fresh-aot');
      outcome = failed.kind === 'failed' ? { ...failed, message: `build: ${failed.message}` } : failed;
    } else {
      options.onBuilt?.(buildMs);
      const runStarted = performance.now();
      const run = await runProduct({
        executable: join(workspace, 'program'),
        args: ['--run'],
        stdin,
        wallClockMs: options.wallClockMs,
        maxOutputBytes: options.maxOutputBytes,
        cwd: workspace,
        ...(options.signal !== undefined ? { signal: options.signal } : {}),
        onStart: (pgid) => options.onProcessGroup?.('run', pgid),
      });
      const member = toMemberOutcome(run, options.request, performance.now() - runStarted, 'fresh-aot');
      outcome = { ...member, processesStarted: member.processesStarted + 1 };
    }
  } finally {
    await (options.removeWorkspace ?? removeTree)(workspace).catch(() => undefined);
  }
  return { outcome: outcome!, workspaceCreated: true, workspaceRemoved: !existsSync(workspace), buildMs };
}
