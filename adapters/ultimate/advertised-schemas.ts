// What the adapter's tools/list shows of its schemas (issue 22: a model pays for the whole list on
// every connection; it was ~70 KB for the 30 tools, the bound is 35 KB). Every change here only
// widens what is shown — the zod schemas behind it enforce exactly what they did, on every call:
//
// - Outputs: the envelope (schema_version, operation, data, error) with data's fields named with
//   their kinds and fixed values (api_schema_version: 13, resolver_schema_version: 2, result enums,
//   …) and error's contract fields (code, layer, message, http_status), not the service's full
//   response schemas (those are published whole in its OpenAPI document, GET /v13/openapi.json).
// - Inputs: every field, bound and enum as enforced, except three patterns shown as the format
//   they implement: UUIDs (`format: uuid`; the adapter takes version 4 only), IPv4 addresses
//   (`format: ipv4`, the same set) and RFC 3339 times (zod's regex next to `format: date-time`).
import { UUID_V4_ANY_CASE, IPV4 } from '../../services/ultimate-tool/api/fields.js';
import { type SchemaAdvertiser, outlineJsonSchema } from '../../src/index.js';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The envelope's own properties keep their schemas; theirs are reduced to type, const or enum. */
const OUTLINE_DEPTH = 1;

const FORMAT_OF_PATTERN = new Map([
  [UUID_V4_ANY_CASE.source, 'uuid'],
  [IPV4.source, 'ipv4'],
]);

function showFormats(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(showFormats);
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'pattern' && typeof value === 'string' && FORMAT_OF_PATTERN.has(value)) out.format = FORMAT_OF_PATTERN.get(value);
    else if (key === 'pattern' && schema.format === 'date-time') continue;
    else out[key] = key === 'enum' || key === 'const' ? value : showFormats(value);
  }
  return out;
}

function outlineEnvelope(schema: Json): Json {
  const out = outlineJsonSchema(schema, OUTLINE_DEPTH);
  const props = out.properties as Record<string, Json>;
  // Which fields are always there is visible in every answer; naming them again per tool is not worth its bytes.
  const { required: _dataRequired, ...data } = props.data!;
  // error: the contract's fields; `details` (the service's own, any shape) stays out of the list.
  const { additionalProperties: _closed, properties: errorFields, ...error } = props.error!;
  const { details: _details, ...contractFields } = errorFields as Json;
  // The envelope is closed (nothing beside these four) in the enforced schema; the list leaves that out.
  const { additionalProperties: _envelopeClosed, ...envelope } = out;
  return { ...envelope, properties: { ...props, data, error: { ...error, properties: contractFields } } };
}

export const ultimateSchemaAdvertiser: SchemaAdvertiser = {
  input: (schema) => showFormats(schema) as Json,
  output: outlineEnvelope,
};
