// ~/.topup/sessions.json: the named local sessions a user has registered (prewarm path, pool size),
// so a later server knows them and restart_local_session re-applies the stored settings.
import { join } from 'node:path';
import { z } from 'zod';
import { JsonStore } from './json-store.js';

export const SessionConfig = z.object({
  prewarm: z.string().optional(),
  pool: z.number().int().min(1).optional(),
});
export type SessionConfig = z.infer<typeof SessionConfig>;

const SessionsFile = z.object({
  version: z.literal(1),
  sessions: z.record(z.string(), SessionConfig),
});
type SessionsFile = z.infer<typeof SessionsFile>;

export class SessionStore {
  private readonly store: JsonStore<SessionsFile>;

  constructor(topupDir: string) {
    this.store = new JsonStore(join(topupDir, 'sessions.json'), SessionsFile, () => ({ version: 1, sessions: {} }));
  }

  get path(): string {
    return this.store.path;
  }

  async all(): Promise<Record<string, SessionConfig>> {
    return (await this.store.read()).sessions;
  }

  /** Synchronous read, for the initialize instructions. */
  allSync(): Record<string, SessionConfig> {
    return this.store.readSync().sessions;
  }

  async get(name: string): Promise<SessionConfig | undefined> {
    return (await this.all())[name];
  }

  /** Replace only the fields given (undefined leaves a field as it is). */
  async set(name: string, fields: SessionConfig): Promise<SessionConfig> {
    const next = await this.store.update((file) => {
      const merged: SessionConfig = { ...file.sessions[name] };
      if (fields.prewarm !== undefined) merged.prewarm = fields.prewarm;
      if (fields.pool !== undefined) merged.pool = fields.pool;
      return { version: 1, sessions: { ...file.sessions, [name]: merged } };
    });
    return next.sessions[name]!;
  }
}
