// A node:test reporter that collects the failed tests and writes them, once, when the run ends.
// run-tests.mjs prints what it wrote after the TAP stream, so the last lines of a long CI log
// (often all that is kept of it) name every failed test, its file and its error.
import { relative } from 'node:path';
import { inspect } from 'node:util';

function errorText(error) {
  // A failed test's error is wrapped (ERR_TEST_FAILURE); its cause is the assertion itself.
  const cause = error?.cause ?? error;
  const text = cause instanceof Error ? (cause.stack ?? cause.message) : inspect(cause);
  const lines = text.split('\n');
  return lines.slice(0, 12).join('\n') + (lines.length > 12 ? '\n…' : '');
}

export default async function* failureSummary(source) {
  const failed = [];
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, nesting, details } = event.data;
    // A suite or a parent test fails because a child did: the child's own entry says why.
    if (details.error?.failureType === 'subtestsFailed') continue;
    failed.push({ name, file, nesting, error: errorText(details.error) });
  }
  if (failed.length === 0) return;
  yield `\n# ${failed.length} failed test${failed.length === 1 ? '' : 's'}:\n`;
  for (const f of failed) {
    const where = f.file ? relative(process.cwd(), f.file) : '(unknown file)';
    yield `\n## ${f.name}\n   in ${where}\n${f.error.replace(/^/gm, '   ')}\n`;
  }
}
