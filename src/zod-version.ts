// mcp-engines builds JSON Schema with zod 4's z.toJSONSchema and reads zod 4 internals; a zod 3
// schema (from a project still on zod 3, or from 'zod/v3') would fail later in confusing ways.
// Refuse it where it is passed in, saying what to do instead.

/** True for a zod 4 schema (classic or mini): those carry their internals under `_zod`. */
export function isZod4Schema(value: unknown): boolean {
  return typeof value === 'object' && value !== null && '_zod' in value;
}

export function assertZod4Schema(value: unknown, where: string): void {
  if (isZod4Schema(value)) return;
  const looksZod3 = typeof value === 'object' && value !== null && '_def' in value && 'safeParse' in value;
  throw new TypeError(
    looksZod3
      ? `${where}: this is a zod 3 schema; mcp-engines needs zod 4 (install zod@^4 and import { z } from 'zod', not 'zod/v3')`
      : `${where}: expected a zod 4 schema (e.g. z.strictObject({...})), got ${value === null ? 'null' : typeof value}`,
  );
}
