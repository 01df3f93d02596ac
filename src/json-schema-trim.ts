// Smaller JSON Schemas for tools/list, which a model pays for in context on every connection.
// Both functions only ever REMOVE constraints, so the result admits every value the input schema
// admits: what is advertised stays true while the zod schema behind it keeps enforcing everything.
// (Removing a keyword never narrows a schema built of type, properties, required, items, anyOf,
// allOf, enum, const, bounds, pattern and format; `not`, `oneOf` and `if` are kept or dropped
// whole, never edited inside, since editing inside them could narrow.)

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const SAFE = Number.MAX_SAFE_INTEGER;

/**
 * What zod emits that says nothing a client can use: JavaScript's safe-integer bounds on every
 * `.int()`, `additionalProperties: {}` (the default) and `propertyNames: {type: "string"}` (true of
 * every JSON object key). Applied to every tool's schemas.
 */
export function compactJsonSchema<T>(schema: T): T {
  if (Array.isArray(schema)) return schema.map(compactJsonSchema) as T;
  if (!isObject(schema)) return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'minimum' && value === -SAFE) continue;
    if (key === 'maximum' && value === SAFE) continue;
    if (key === 'additionalProperties' && isObject(value) && Object.keys(value).length === 0) continue;
    if (key === 'propertyNames' && isObject(value) && Object.keys(value).length === 1 && value.type === 'string') continue;
    // Values, not subschemas: left exactly as they are.
    out[key] = key === 'const' || key === 'enum' || key === 'default' || key === 'examples' ? value : compactJsonSchema(value);
  }
  return out as T;
}

/** What a schema keeps once it is below the outline's depth: what kind of value, and fixed values. */
const SURFACE = ['type', 'const', 'enum'] as const;

/**
 * The schema's outline: the schema itself and `depth` levels of properties below it keep their
 * full schemas; the level after that keeps only each value's type, const or enum (a nullable
 * value: both types). anyOf/allOf branches stay at their parent's level, array items and
 * additionalProperties count as one level down.
 */
export function outlineJsonSchema(schema: Json, depth: number): Json {
  const out: Json = {};
  // A const or an enum fixes the values, so their type says nothing more.
  const fixed = 'const' in schema || 'enum' in schema;
  if (depth < 0) {
    for (const key of SURFACE) if (key in schema && !(key === 'type' && fixed)) out[key] = schema[key];
    if (Array.isArray(schema.anyOf)) {
      const branches = schema.anyOf.map((s) => (isObject(s) ? outlineJsonSchema(s, depth) : s));
      // anyOf of bare types is one type list: {"type": ["object", "null"]} says the same.
      const bare = branches.every((b) => isObject(b) && Object.keys(b).length === 1 && typeof b.type === 'string');
      if (bare && !('type' in out)) out.type = branches.map((b) => (b as Json).type);
      else out.anyOf = branches;
    }
    return out;
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties' && isObject(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, isObject(sub) ? outlineJsonSchema(sub, depth - 1) : sub]),
      );
    } else if ((key === 'items' || key === 'additionalProperties') && isObject(value)) {
      out[key] = outlineJsonSchema(value, depth - 1);
    } else if ((key === 'anyOf' || key === 'allOf') && Array.isArray(value)) {
      out[key] = value.map((s) => (isObject(s) ? outlineJsonSchema(s, depth) : s));
    } else if (!(key === 'type' && fixed)) {
      out[key] = value;
    }
  }
  return out;
}
