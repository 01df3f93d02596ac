// Whether each target can serve now, and why not: what list_targets shows and what a job that
// names an unavailable target is refused with.
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { TargetInfo } from '../api/schemas.js';
import type { JobContext } from '../jobs/job-context.js';

function onPath(cmd: string): boolean {
  if (cmd.includes('/')) {
    try {
      accessSync(cmd, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  }
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    try {
      accessSync(join(dir, cmd), constants.X_OK);
      return true;
    } catch {
      /* next */
    }
  }
  return false;
}

export function targetInfo(ctx: Pick<JobContext, 'vice' | 'ultimate'>, target: 'vice' | 'ultimate'): TargetInfo {
  return target === 'vice' ? viceInfo(ctx) : ultimateInfo(ctx);
}

function viceInfo(ctx: Pick<JobContext, 'vice'>): TargetInfo {
  const v = ctx.vice;
  if (!v)
    return {
      target: 'vice',
      available: false,
      reason: 'the vice target is disabled in this service',
      emulation: true,
      description: 'VICE binary monitor',
    };
  const cmd = v.command[0] ?? '';
  const found = onPath(cmd);
  return {
    target: 'vice',
    available: found,
    reason: found ? null : `the emulator command ${JSON.stringify(cmd)} was not found on PATH; start the service with --vice-command`,
    emulation: true,
    description: `an emulator driven through the VICE binary monitor: ${v.command.join(' ')}`,
  };
}

function ultimateInfo(ctx: Pick<JobContext, 'ultimate'>): TargetInfo {
  const u = ctx.ultimate;
  if (!u)
    return {
      target: 'ultimate',
      available: false,
      reason: 'no device configured: set C64U_HOST (and C64U_PASSWORD) or start the service with --virtual-device',
      emulation: false,
      description: 'Ultimate 64 / Ultimate-II+',
    };
  const where = u.device.baseUrl ?? u.device.host ?? '';
  return {
    target: 'ultimate',
    available: true,
    reason: null,
    emulation: u.virtualDevice,
    description: u.virtualDevice
      ? `a virtual Ultimate 64 started by this service (an EMULATION, not hardware) at ${where}`
      : `Ultimate 64 / Ultimate-II+ at ${where}`,
  };
}
