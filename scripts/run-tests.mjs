#!/usr/bin/env node
// Runs every test/**/*.test.ts with node's own test runner (TypeScript through tsx).
// Node 20's --test does not expand globs, so the files are collected here.
// Usage: node scripts/run-tests.mjs [folder-or-file ...]   (default: test/)
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';

function collect(path, out) {
  const st = statSync(path);
  if (st.isDirectory()) {
    for (const name of readdirSync(path).sort()) {
      if (name === 'node_modules' || name === 'fixtures') continue;
      collect(join(path, name), out);
    }
  } else if (/\.test\.(ts|mts|js|mjs)$/.test(path)) {
    out.push(path);
  }
  return out;
}

const roots = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const flags = process.argv.slice(2).filter((a) => a.startsWith('-'));
const files = (roots.length ? roots : ['test']).flatMap((r) => collect(resolve(r), []));
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}
const concurrency = process.env.TEST_CONCURRENCY ?? '2';
// Every test gets a timeout, so a broken test fails instead of hanging the run. A test that
// legitimately needs longer says so itself with { timeout }.
const timeout = process.env.TEST_TIMEOUT_MS ?? '300000';
// TAP on stdout as before, and a second reporter that lists the failures once more at the end:
// a long log is often read (or kept) only from its tail.
const summaryDir = mkdtempSync(join(tmpdir(), 'mcp-engines-tests-'));
const summaryFile = join(summaryDir, 'failures.txt');
const reporters = flags.some((f) => f.startsWith('--test-reporter'))
  ? []
  : [
      '--test-reporter=tap',
      '--test-reporter-destination=stdout',
      `--test-reporter=${new URL('./failure-summary-reporter.mjs', import.meta.url).href}`,
      `--test-reporter-destination=${summaryFile}`,
    ];
const res = spawnSync(
  process.execPath,
  ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, `--test-timeout=${timeout}`, ...reporters, ...flags, ...files],
  { stdio: 'inherit' },
);
try {
  const summary = readFileSync(summaryFile, 'utf8');
  if (summary) process.stdout.write(summary);
} catch {
  // No summary file: the run ended before the reporter wrote one (or it had nothing to say).
}
rmSync(summaryDir, { recursive: true, force: true });
process.exit(res.status ?? 1);
