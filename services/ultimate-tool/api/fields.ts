// The request fields of API schema 13 that more than one route or more than one side uses, each
// written once with its limits. The service's request schemas (schemas.ts, native-schemas.ts) are
// built from them and the adapter's tool inputs extend them, so a limit cannot differ between the
// adapter and the service. Where the two once disagreed, the service's value was kept (the
// contract states none of these numbers): repeat ≤ 100, test names ≤ 64, runs cursor ≤ 200,
// context ≤ 200, probe and job ids ≤ 100, UUID version 4.
import { z } from 'zod';

/** A lower-case UUID version 4, as the service writes every id it issues (crypto.randomUUID). */
export const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** The same pattern in either case (clients may send upper case; they send it lower-cased). */
export const UUID_V4_ANY_CASE = new RegExp(UUID_V4.source.replace(/a-f/g, 'a-fA-F').replace('[89ab]', '[89abAB]'));

export const ApiId = z.string().regex(UUID_V4, 'expected a lower-case UUID v4');

export const TEST_NAME_MAX = 64;
export const TestName = z.string().min(1).max(TEST_NAME_MAX);

export const REPEAT_MAX = 100;
export const Repeat = z.number().int().min(1).max(REPEAT_MAX);

/** A confirmed count (resets, REU writes, stream starts/stops): what the caller says it allowed. */
export const ConfirmedCount = z.number().int().min(0).max(1000);

export const ID_MAX = 100;
/** A probe id as probe_ultimate returned it. */
export const ProbeId = z.string().min(1).max(ID_MAX);
/** A job id (the service issues UUIDs; older stores may hold other ids). */
export const JobId = z.string().min(1).max(ID_MAX);

/** An exact context name (a label scope, segment or file name of the run's symbol files). */
export const Context = z.string().min(1).max(200);

/** The opaque next_cursor of GET /v13/runs. */
export const RunsCursor = z.string().min(1).max(200);
export const RUNS_LIMIT_MAX = 100;
export const JOBS_LIMIT_MAX = 100;
export const CHECKPOINT_COMPARISONS_LIMIT_MAX = 200;

/** The timeline's cursor DATAGRAM_ORDINAL:ENTRY_INDEX and page bound (docs/ultimate/TIMELINE.md). */
export const TimelineCursor = z.string().max(40);
export const TIMELINE_LIMIT_MAX = 4096;

/** The diagnostic report's sections (the adapter offers them as an enum; the service names them in its error). */
export const DIAGNOSTIC_SECTIONS = [
  'checkpoints',
  'budget',
  'comparison_sections',
  'comparison_objects',
  'comparison_symbols',
  'assertions',
] as const;
export const DiagnosticSection = z.string().min(1).max(64);
export const DiagnosticCursor = z.string().min(1).max(512);
export const DIAGNOSTIC_LIMIT_MAX = 100;

/** An address as people write it: decimal, $ABCD or 0xABCD (parsed by address.ts). */
export const AddressText = z.string().min(1).max(12);

/** A registered evidence file name: one path segment, never empty (the route refuses anything unregistered). */
export const EvidenceName = z.string().min(1).max(255);

/** A dotted IPv4 address (each part 0-255, no leading zeros). */
export const IPV4 = /^(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])){3}$/;
export const Ipv4 = z.string().regex(IPV4, 'expected a dotted IPv4 address');

/** The device host of a native run, exactly as the intent's identity names it. */
export const HOST = /^[A-Za-z0-9.:_-]+$/;
export const DeviceHost = z.string().min(1).max(253).regex(HOST, 'expected a host name or address');

export const NativeProgramName = z.string().min(1).max(64);
export const MAX_RUNS_MAX = 1_000_000;

/**
 * A count in a query string (`limit`): decimal digits only, as the contract writes its ranges
 * ("limit (1–200, default 50)"). `Number()` alone would also take "0x10", "1e1", " 16", "+16" and
 * "" (as 0), and one route took "0x10" while another refused it; now every route decides the same
 * way, naming the parameter and what was expected. A number (an in-process caller) passes as is.
 * The published JSON Schema stays `integer` with the bounds (what the adapter's tools take).
 */
export function queryCount(max: number, fallback: number, description?: string) {
  const expected = `an integer 1..${max} in decimal digits`;
  return z.preprocess(
    (v, ctx) => {
      if (typeof v !== 'string') return v;
      if (/^[0-9]+$/.test(v)) return Number(v);
      ctx.addIssue({ code: 'custom', message: `expected ${expected}, got ${JSON.stringify(v)}`, input: v });
      return z.NEVER;
    },
    // The default inside the pipe: the published schema then reads exactly as before.
    (() => {
      const count = z.number().int().min(1, `expected ${expected}`).max(max, `expected ${expected}`).default(fallback);
      return description === undefined ? count : count.describe(description);
    })(),
  );
}
