// The example project stands alone: its ultimate-tool.json names a schema shipped inside the
// example ("$schema": "./ultimate-tool.schema.json"), and that copy is the schema generated from
// the one source (the zod ManifestSchema). A stale copy fails here; regenerate it with
// `node --import tsx scripts/write-manifest-schemas.ts`.
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { manifestJsonSchema } from '../../services/ultimate-tool/project/manifest.js';
import { repoRoot } from '../helpers/bin.js';
import { validateAgainstOwnSchema } from './example-schema.js';

const example = join(repoRoot, 'examples', 'c64-project');

test('the example ships the manifest schema generated from the zod source (regenerate: scripts/write-manifest-schemas.ts)', () => {
  const shipped = JSON.parse(readFileSync(join(example, 'ultimate-tool.schema.json'), 'utf8'));
  assert.deepEqual(shipped, JSON.parse(JSON.stringify(manifestJsonSchema())));
});

test('copied anywhere, the example manifest validates against the schema its $schema names', () => {
  const dir = mkdtempSync(join(tmpdir(), 'c64-project-copy-'));
  try {
    cpSync(example, dir, { recursive: true, filter: (src) => !src.startsWith(join(example, 'build')) });
    const { errors } = validateAgainstOwnSchema(dir);
    assert.deepEqual(errors, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a manifest that breaks the shipped schema is reported (the check can fail)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'c64-project-bad-'));
  try {
    cpSync(join(example, 'ultimate-tool.schema.json'), join(dir, 'ultimate-tool.schema.json'));
    const manifest = JSON.parse(readFileSync(join(example, 'ultimate-tool.json'), 'utf8'));
    manifest.manifest_schema_version = 'one';
    writeFileSync(join(dir, 'ultimate-tool.json'), JSON.stringify(manifest));
    const { errors } = validateAgainstOwnSchema(dir);
    assert.ok(
      errors.some((e) => e.includes('manifest_schema_version')),
      errors.join('\n'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
