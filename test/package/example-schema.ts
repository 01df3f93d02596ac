// Validates a C64 project's ultimate-tool.json against the schema its "$schema" names, resolved
// relative to the file as an editor resolves it (Ajv, JSON Schema 2020-12, the schema's dialect).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';

export function validateAgainstOwnSchema(projectDir: string): { schemaPath: string; errors: string[] } {
  const file = join(projectDir, 'ultimate-tool.json');
  const manifest = JSON.parse(readFileSync(file, 'utf8')) as { $schema?: unknown };
  const ref = manifest.$schema;
  assert.ok(typeof ref === 'string', 'ultimate-tool.json has no "$schema"');
  assert.ok(!/^[a-z][a-z0-9+.-]*:/i.test(ref) && !ref.startsWith('/'), `"$schema" ${ref} is not a relative reference`);
  const schemaPath = resolve(dirname(file), ref);
  assert.ok(schemaPath.startsWith(resolve(projectDir) + sep), `"$schema" ${ref} points outside the project`);
  const validate = new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(schemaPath, 'utf8')));
  return { schemaPath, errors: validate(manifest) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`) };
}
