// The R7RS-derived case corpus (test/fixtures/lispex-r7rs/*.cases): reading the case files and
// checking one court observation against a case's expected outcome. The corpus and its format
// are described in test/fixtures/lispex-r7rs/README.md.
//
// A case file is a sequence of cases. Each case starts with a header line
//   == §6.2.6 short description
// (the R7RS-small section its expectation comes from), then the program (one or more lines), then
// one or more expectation lines:
//   => TEXT        status ok; the last form's values, each written, joined by one space, are TEXT
//                  (`=>` alone: the last form returns zero values)
//   out: "JSON"    the stdout text is exactly this (a JSON string literal)
//   error: CODE [STATUS]
//                  the first diagnostic has CODE; the status is STATUS when given (E314 comes from
//                  the reader or the runtime), else source-error for E1xx, runtime-error for
//                  E3xx, resource for recursion-limit
//   warn: CODES    the warnings' codes, in order, separated by spaces
// Lines starting with `#` outside a program are comments.

import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CORPUS_DIR = fileURLToPath(new URL('../../../fixtures/lispex-r7rs/', import.meta.url));

export interface Expectation {
  /** Printed values of the last form joined by a space; undefined when the case expects an error. */
  readonly values?: string;
  readonly stdout?: string;
  readonly error?: string;
  /** The expected status when the code alone does not say it. */
  readonly errorStatus?: string;
  readonly warnings?: readonly string[];
}

export interface R7rsCase {
  /** `<file stem>/<1-based index in the file>`, stable as long as cases are only appended. */
  readonly id: string;
  readonly file: string;
  readonly line: number;
  /** The R7RS-small section the expectation comes from, e.g. `6.2.6`. */
  readonly section: string;
  readonly title: string;
  readonly program: string;
  readonly expect: Expectation;
}

const STATUSES = ['source-error', 'runtime-error', 'resource'];
const HEADER = /^== §(\S+)\s+(.*)$/;

export class CorpusFormatError extends Error {
  override readonly name = 'CorpusFormatError';
}

/** Parse one case file's text. */
export function parseCases(stem: string, text: string): R7rsCase[] {
  const lines = text.split('\n');
  const cases: R7rsCase[] = [];
  let i = 0;
  const fail = (line: number, what: string): never => {
    throw new CorpusFormatError(`${stem}.cases:${line}: ${what}`);
  };
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.trim() === '' || line.startsWith('#')) {
      i++;
      continue;
    }
    const header = HEADER.exec(line);
    if (!header) fail(i + 1, `expected a case header "== §<section> <title>", found ${JSON.stringify(line)}`);
    const headerLine = i + 1;
    i++;
    const program: string[] = [];
    while (i < lines.length && !isExpectation(lines[i]!) && !HEADER.test(lines[i]!)) program.push(lines[i++]!);
    const expect: { values?: string; stdout?: string; error?: string; errorStatus?: string; warnings?: string[] } = {};
    let seen = 0;
    while (i < lines.length && isExpectation(lines[i]!)) {
      const e = lines[i]!;
      if (e === '=>' || e.startsWith('=> ')) expect.values = e.slice(3);
      else if (e.startsWith('out: ')) {
        try {
          expect.stdout = JSON.parse(e.slice(5)) as string;
        } catch {
          fail(i + 1, 'out: needs a JSON string literal');
        }
      } else if (e.startsWith('error: ')) {
        const [code, status, ...rest] = e.slice(7).trim().split(/\s+/);
        if (rest.length > 0 || (status !== undefined && !STATUSES.includes(status))) {
          fail(i + 1, `error: needs a code and optionally one of ${STATUSES.join(', ')}`);
        }
        expect.error = code!;
        if (status !== undefined) expect.errorStatus = status;
      } else if (e.startsWith('warn: ')) expect.warnings = e.slice(6).trim().split(/\s+/);
      seen++;
      i++;
    }
    const source = program.join('\n').trim();
    if (source === '') fail(headerLine, 'case has no program');
    if (seen === 0) fail(headerLine, 'case has no expectation line (=>, out:, error:, warn:)');
    if (expect.values !== undefined && expect.error !== undefined) fail(headerLine, 'a case expects either values or an error');
    cases.push({
      id: `${stem}/${cases.length + 1}`,
      file: `${stem}.cases`,
      line: headerLine,
      section: header![1]!,
      title: header![2]!,
      program: source,
      expect,
    });
  }
  return cases;
}

function isExpectation(line: string): boolean {
  return line === '=>' || line.startsWith('=> ') || line.startsWith('out: ') || line.startsWith('error: ') || line.startsWith('warn: ');
}

/** Every case of the corpus, files in name order. */
export function loadCorpus(dir = CORPUS_DIR): R7rsCase[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.cases'))
    .sort()
    .flatMap((f) => parseCases(f.slice(0, -'.cases'.length), readFileSync(join(dir, f), 'utf8')));
}

/** The parts of a route observation a case looks at. */
export interface ObservedOutcome {
  readonly status: string;
  readonly values: ReadonlyArray<{ readonly printed: string }>;
  readonly stdout: { readonly text: string };
  readonly diagnostics: ReadonlyArray<{ readonly code: string }>;
  readonly warnings: ReadonlyArray<{ readonly code: string }>;
}

function expectedStatus(code: string): string {
  if (code === 'recursion-limit' || code.endsWith('-limit')) return 'resource';
  return code.startsWith('E1') ? 'source-error' : 'runtime-error';
}

/** What differs between one observation and the case's expectation (empty: it matches). */
export function expectationDiffs(c: R7rsCase, o: ObservedOutcome): string[] {
  const diffs: string[] = [];
  const { expect } = c;
  if (expect.error !== undefined) {
    const status = expect.errorStatus ?? expectedStatus(expect.error);
    const code = o.diagnostics[0]?.code ?? '(none)';
    if (o.status !== status || code !== expect.error) diffs.push(`expected ${status} ${expect.error}, got ${o.status} ${code}`);
  } else if (o.status !== 'ok') {
    diffs.push(`expected ok, got ${o.status} ${o.diagnostics.map((d) => d.code).join(' ')}`);
  }
  if (expect.values !== undefined && o.status === 'ok') {
    const printed = o.values.map((v) => v.printed).join(' ');
    if (printed !== expect.values) diffs.push(`expected => ${expect.values}, got => ${printed}`);
  }
  if (expect.stdout !== undefined && o.stdout.text !== expect.stdout) {
    diffs.push(`expected stdout ${JSON.stringify(expect.stdout)}, got ${JSON.stringify(o.stdout.text)}`);
  }
  const warnings = o.warnings.map((w) => w.code);
  const wanted = expect.warnings ?? [];
  if (warnings.join(' ') !== wanted.join(' ')) diffs.push(`expected warnings [${wanted.join(' ')}], got [${warnings.join(' ')}]`);
  return diffs;
}
