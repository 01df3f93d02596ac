// Every command of the package follows one convention: --help (usage on stdout, exit 0),
// --version (the version, exit 0), and misuse → usage on stderr, nothing on stdout, exit 64
// (EX_USAGE) — without starting to serve. Checked on the built bins, as users run them.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../helpers/bin.js';

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };

/** Each command line to check: a bin, or a bin with a subcommand. */
const COMMANDS: string[][] = [
  ...Object.keys(pkg.bin).map((name) => [name]),
  ['mcp-engines', 'topup'],
  ['mcp-engines', 'topup-opt'],
  ['mcp-engines', 'lispex'],
  ['mcp-engines', 'ultimate-tool'],
  ['mcp-engines', 'example'],
];

/** Subcommands that take --help too (their --version is the bin's). */
const SUBCOMMANDS: string[][] = [
  ['lispex', 'run'],
  ['lispex', 'check'],
  ['lispex', 'mcp', 'serve'],
];

for (const command of SUBCOMMANDS)
  test(`${command.join(' ')} --help prints usage on stdout and exits 0`, () => {
    const r = run(command, ['--help']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /usage/i);
  });

function run(command: string[], args: string[]) {
  const [bin, ...sub] = command;
  const file = join(repoRoot, pkg.bin[bin ?? ''] ?? '');
  // stdin is empty and closed: a command that wrongly starts serving on stdio ends at once.
  return spawnSync(process.execPath, [file, ...sub, ...args], { encoding: 'utf8', input: '', timeout: 60_000 });
}

for (const command of COMMANDS) {
  const name = command.join(' ');
  test(`${name} --help prints usage on stdout and exits 0`, () => {
    const r = run(command, ['--help']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /usage/i);
  });
  test(`${name} --version prints the version and exits 0`, () => {
    const r = run(command, ['--version']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), pkg.version);
  });
  test(`${name} with an unknown option exits 64 with usage on stderr, nothing on stdout`, () => {
    const r = run(command, ['--no-such-option']);
    assert.equal(r.status, 64, `status ${r.status}; stderr: ${r.stderr}`);
    assert.equal(r.stdout, '');
    assert.match(r.stderr, /no-such-option/);
    assert.match(r.stderr, /usage/i);
  });
}
