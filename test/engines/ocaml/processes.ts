// What the process-lifetime tests need: a topup bin driven over its raw stdio wire (so the test
// holds the server's pid and can SIGKILL it), and /proc readings of processes and groups.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { binCommand } from '../../helpers/bin.js';
import type { TopupVariant } from './helpers.js';

/** Fields 3 (state) and 5 (process group) of /proc/<pid>/stat, or null when there is no such process. */
function stat(pid: number): { state: string; pgrp: number } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name (field 2) is in parentheses and may hold spaces: read after its last ')'.
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: rest[0]!, pgrp: Number(rest[2]) };
}

/** Running, sleeping or stopped — a zombie is dead, only not yet reaped (PID 1 may never reap it). */
export function isLive(pid: number): boolean {
  const s = stat(pid);
  return s !== null && s.state !== 'Z' && s.state !== 'X';
}

export function processGroupOf(pid: number): number | null {
  return stat(pid)?.pgrp ?? null;
}

/** Live processes whose process group is `pgrp`. */
export function liveMembers(pgrp: number): number[] {
  return readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .filter((pid) => stat(pid)?.pgrp === pgrp && isLive(pid));
}

/** Waits until none of `pids` is live and group `pgrp` has no live member; the wait is bounded. */
export async function waitAllGone(pids: number[], pgrp: number, boundMs = 20_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  for (;;) {
    const left = [...new Set([...pids.filter(isLive), ...liveMembers(pgrp)])];
    if (left.length === 0) return;
    if (Date.now() > deadline) throw new Error(`still alive after ${boundMs} ms: ${left.join(', ')} (group ${pgrp})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface RawTopup {
  readonly child: ChildProcessWithoutNullStreams;
  /** tools/call of a toplevel tool; the parsed JSON payload of its result. */
  call(name: string, args: Record<string, unknown>): Promise<any>;
}

/** A topup bin on stdio, initialized, spoken to one JSON line at a time. */
export async function startRawTopup(variant: TopupVariant, env: Record<string, string>): Promise<RawTopup> {
  const { command, args } = binCommand(variant.bin);
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  child.stderr.resume();
  const answers = new Map<number, (m: any) => void>();
  let buf = '';
  child.stdout.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i).trim();
      buf = buf.slice(i + 1);
      if (!line) continue;
      const m = JSON.parse(line);
      answers.get(m.id)?.(m);
    }
  });
  let nextId = 1;
  const request = (method: string, params: Record<string, unknown>) =>
    new Promise<any>((resolve, reject) => {
      const id = nextId++;
      answers.set(id, resolve);
      child.once('exit', () => reject(new Error(`the server exited before answering ${method}`)));
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  await request('initialize', { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 'processes', version: '1' } });
  child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return {
    child,
    call: async (name, args) => {
      const m = await request('tools/call', { name, arguments: args });
      if (m.error) throw new Error(`tools/call ${name}: ${JSON.stringify(m.error)}`);
      return JSON.parse(m.result.content[0].text);
    },
  };
}
