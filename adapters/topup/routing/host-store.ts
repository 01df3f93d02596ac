// ~/.topup/hosts.json: remote hosts a user has brought up, with the metadata update_host sets
// (description, os) and the remote socket last used, shown in the initialize instructions.
import { join } from 'node:path';
import { z } from 'zod';
import { JsonStore } from './json-store.js';

export const HostRecord = z.object({
  description: z.string().optional(),
  os: z.string().optional(),
  remote_socket: z.string().optional(),
});
export type HostRecord = z.infer<typeof HostRecord>;

const HostsFile = z.object({
  version: z.literal(1),
  hosts: z.record(z.string(), HostRecord),
});
type HostsFile = z.infer<typeof HostsFile>;

export class HostStore {
  private readonly store: JsonStore<HostsFile>;

  constructor(topupDir: string) {
    this.store = new JsonStore(join(topupDir, 'hosts.json'), HostsFile, () => ({ version: 1, hosts: {} }));
  }

  get path(): string {
    return this.store.path;
  }

  async all(): Promise<Record<string, HostRecord>> {
    return (await this.store.read()).hosts;
  }

  /** Synchronous read, for the initialize instructions. */
  allSync(): Record<string, HostRecord> {
    return this.store.readSync().hosts;
  }

  async get(name: string): Promise<HostRecord | undefined> {
    return (await this.all())[name];
  }

  /** Replace only the fields given (undefined leaves a field as it is). */
  async set(name: string, fields: HostRecord): Promise<HostRecord> {
    const next = await this.store.update((file) => {
      const merged: HostRecord = { ...file.hosts[name] };
      for (const key of ['description', 'os', 'remote_socket'] as const) {
        if (fields[key] !== undefined) merged[key] = fields[key];
      }
      return { version: 1, hosts: { ...file.hosts, [name]: merged } };
    });
    return next.hosts[name]!;
  }
}
