#!/usr/bin/env node
// Generate Lispex's Unicode tables from the Unicode Character Database of the language contract's
// Unicode version (15.0.0, docs/lispex/VALUES.md), into BOTH languages from one reading of the UCD:
//   engines/lispex/unicode-tables.ts           (built-in tree and VM routes)
//   products/topaz-vm/src/unicode_tables.rs    (Topaz VM and the fresh AOT runtime)
// so no route asks its host (JS regex \p{…}, toUpperCase, Rust char::to_lowercase) whose Unicode
// version is whatever the host ships. Both outputs are committed; this script is only needed to
// regenerate or check them.
//
//   node scripts/generate-unicode-tables.mjs            write both files
//   node scripts/generate-unicode-tables.mjs --check    exit 1 if a committed file differs
//
// The UCD is read from $LISPEX_UCD_DIR or /usr/share/unicode (Debian package `unicode-data`,
// which is 15.0.0 on bookworm); any other version is refused.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const UNICODE_VERSION = '15.0.0';
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ucdDir = process.env.LISPEX_UCD_DIR ?? '/usr/share/unicode';
const TS_OUT = join(root, 'engines', 'lispex', 'unicode-tables.ts');
const RS_OUT = join(root, 'products', 'topaz-vm', 'src', 'unicode_tables.rs');

function ucd(name) {
  let text;
  try {
    text = readFileSync(join(ucdDir, name), 'utf8');
  } catch (e) {
    console.error(
      `generate-unicode-tables: cannot read ${join(ucdDir, name)} (${e.code}); install Debian's unicode-data or set LISPEX_UCD_DIR`,
    );
    process.exit(2);
  }
  return text;
}

function requireVersion(name, text) {
  const want = `# ${name.replace(/\.txt$/, '')}-${UNICODE_VERSION}.txt`;
  if (!text.startsWith(want)) {
    console.error(`generate-unicode-tables: ${name} is not Unicode ${UNICODE_VERSION} (first line: ${text.split('\n')[0]})`);
    process.exit(2);
  }
}

/** Data lines of a UCD file as arrays of trimmed fields (comments dropped). */
function rows(text) {
  const out = [];
  for (const line of text.split('\n')) {
    const body = line.replace(/#.*/, '').trim();
    if (body.length > 0) out.push(body.split(';').map((f) => f.trim()));
  }
  return out;
}

const hex = (s) => Number.parseInt(s, 16);
const cps = (s) => (s.length === 0 ? [] : s.split(/\s+/).map(hex));

/** `XXXX` or `XXXX..YYYY` as [first, last]. */
function span(field) {
  const [a, b] = field.split('..');
  return [hex(a), hex(b ?? a)];
}

const isScalar = (cp) => cp < 0xd800 || (cp > 0xdfff && cp <= 0x10ffff);

/** Sorted half-open ranges [start, end) of the code points for which `has` is true. */
function rangesOf(has) {
  const out = [];
  let start = -1;
  for (let cp = 0; cp <= 0x110000; cp++) {
    const yes = cp < 0x110000 && has(cp);
    if (yes && start < 0) start = cp;
    if (!yes && start >= 0) {
      out.push([start, cp]);
      start = -1;
    }
  }
  return out;
}

function propertySet(text, property) {
  const set = new Set();
  for (const [range, prop] of rows(text)) {
    if (prop !== property) continue;
    const [a, b] = span(range);
    for (let cp = a; cp <= b; cp++) set.add(cp);
  }
  if (set.size === 0) throw new Error(`no code points with ${property}`);
  return set;
}

// ---- read the UCD ----------------------------------------------------------------------------

const files = {};
for (const name of ['UnicodeData.txt', 'DerivedCoreProperties.txt', 'PropList.txt', 'CaseFolding.txt', 'SpecialCasing.txt']) {
  files[name] = ucd(name);
  if (name !== 'UnicodeData.txt') requireVersion(name, files[name]);
}

// UnicodeData: general category, simple mappings; `<…, First>`/`<…, Last>` pairs cover ranges.
const category = new Map();
const simpleUpper = new Map();
const simpleLower = new Map();
let rangeFirst = null;
for (const f of rows(files['UnicodeData.txt'])) {
  const cp = hex(f[0]);
  if (f[1].endsWith(', First>')) {
    rangeFirst = cp;
    continue;
  }
  if (f[1].endsWith(', Last>')) {
    for (let c = rangeFirst; c <= cp; c++) category.set(c, f[2]);
    rangeFirst = null;
    continue;
  }
  category.set(cp, f[2]);
  if (f[12] !== '') simpleUpper.set(cp, hex(f[12]));
  if (f[13] !== '') simpleLower.set(cp, hex(f[13]));
}

const derived = files['DerivedCoreProperties.txt'];
const alphabetic = propertySet(derived, 'Alphabetic');
const uppercase = propertySet(derived, 'Uppercase');
const lowercase = propertySet(derived, 'Lowercase');
const cased = propertySet(derived, 'Cased');
const caseIgnorable = propertySet(derived, 'Case_Ignorable');
const whiteSpace = propertySet(files['PropList.txt'], 'White_Space');

// CaseFolding: C (common) + S (simple) = simple folding; C + F (full) = full folding.
const simpleFold = new Map();
const fullFold = new Map();
for (const [code, status, mapping] of rows(files['CaseFolding.txt'])) {
  const cp = hex(code);
  if (status === 'C' || status === 'S') simpleFold.set(cp, hex(mapping));
  if (status === 'C' || status === 'F') fullFold.set(cp, cps(mapping));
}

// SpecialCasing: only the unconditional entries (no condition list); the one language-independent
// condition, Final_Sigma, is applied by the string procedures themselves.
const specialUpper = new Map();
const specialLower = new Map();
for (const f of rows(files['SpecialCasing.txt'])) {
  const condition = f[4] ?? '';
  if (condition !== '') continue;
  const cp = hex(f[0]);
  specialLower.set(cp, cps(f[1]));
  specialUpper.set(cp, cps(f[3]));
}

// ---- derive the tables -----------------------------------------------------------------------

const gc = (cp) => category.get(cp) ?? 'Cn';
const INVISIBLE_CATEGORIES = new Set(['Cc', 'Cf', 'Mn', 'Mc', 'Me', 'Zl', 'Zp', 'Co', 'Cn']);
const properties = {
  ALPHABETIC: rangesOf((cp) => alphabetic.has(cp)),
  NUMERIC: rangesOf((cp) => gc(cp) === 'Nd'),
  WHITE_SPACE: rangesOf((cp) => whiteSpace.has(cp)),
  UPPERCASE: rangesOf((cp) => uppercase.has(cp)),
  LOWERCASE: rangesOf((cp) => lowercase.has(cp)),
  CASED: rangesOf((cp) => cased.has(cp)),
  CASE_IGNORABLE: rangesOf((cp) => caseIgnorable.has(cp)),
  // `write` prints these as #\xHH: blank or attaching glyphs, and unassigned/private code points.
  INVISIBLE: rangesOf((cp) => isScalar(cp) && (whiteSpace.has(cp) || INVISIBLE_CATEGORIES.has(gc(cp)))),
};

const sortedPairs = (map) => [...map].filter(([a, b]) => a !== b).sort((x, y) => x[0] - y[0]);
const simpleMaps = {
  SIMPLE_UPPER: sortedPairs(simpleUpper),
  SIMPLE_LOWER: sortedPairs(simpleLower),
  SIMPLE_FOLD: sortedPairs(simpleFold),
};

/** Full mappings that differ from the simple one: [cp, t1, t2, t3] (0 = no scalar). */
function fullOnly(full, simple) {
  const out = [];
  for (const [cp, targets] of [...full].sort((x, y) => x[0] - y[0])) {
    if (targets.length === 1 && targets[0] === (simple.get(cp) ?? cp)) continue;
    if (targets.length > 3) throw new Error(`mapping of ${cp.toString(16)} is longer than 3`);
    out.push([cp, targets[0] ?? 0, targets[1] ?? 0, targets[2] ?? 0]);
  }
  return out;
}
const fullMaps = {
  FULL_UPPER: fullOnly(specialUpper, simpleUpper),
  FULL_LOWER: fullOnly(specialLower, simpleLower),
  FULL_FOLD: fullOnly(fullFold, simpleFold),
};

// ---- write TypeScript and Rust ---------------------------------------------------------------

const HEADER = [
  `Generated by scripts/generate-unicode-tables.mjs from the Unicode Character Database ${UNICODE_VERSION}`,
  '(UnicodeData, DerivedCoreProperties, PropList, CaseFolding, SpecialCasing). Do not edit: run',
  'the script. The same tables are generated into the other language, so the routes cannot drift.',
];

/** Numbers as lowercase hex (negative with a leading -), wrapped: a template literal Biome leaves alone. */
function hexText(numbers) {
  const words = numbers.map((n) => (n < 0 ? `-${(-n).toString(16)}` : n.toString(16)));
  const lines = [];
  for (let i = 0; i < words.length; i += 24) lines.push(words.slice(i, i + 24).join(' '));
  return `\`\n${lines.join('\n')}\n\``;
}

/** Each number minus the one before it (the first minus 0). */
function deltas(numbers) {
  return numbers.map((n, i) => n - (i === 0 ? 0 : numbers[i - 1]));
}

const TS_DECODERS = `/** Whitespace-separated hex words. */
function words(text: string): number[] {
  return text
    .trim()
    .split(/\\s+/)
    .map((w) => Number.parseInt(w, 16));
}

/** Half-open ranges [start0, end0, start1, end1, …], stored as successive differences. */
function ranges(text: string): Int32Array {
  const w = words(text);
  const out = new Int32Array(w.length);
  let at = 0;
  for (let i = 0; i < w.length; i++) {
    at += w[i]!;
    out[i] = at;
  }
  return out;
}

/** Sorted pairs [from0, to0, from1, to1, …], stored as (from - previous from, to - from). */
function pairs(text: string): Int32Array {
  const w = words(text);
  const out = new Int32Array(w.length);
  let from = 0;
  for (let i = 0; i < w.length; i += 2) {
    from += w[i]!;
    out[i] = from;
    out[i + 1] = from + w[i + 1]!;
  }
  return out;
}

/** Rows [from, t1, t2, t3] (0 = no scalar), sorted by from, stored as plain hex. */
function rows(text: string): Int32Array {
  return Int32Array.from(words(text));
}
`;

function typescript() {
  let out = `${HEADER.map((l) => `// ${l}`).join('\n')}\n\n`;
  out += `export const UNICODE_VERSION = '${UNICODE_VERSION}';\n\n${TS_DECODERS}\n`;
  for (const [name, list] of Object.entries(properties)) {
    out += `export const ${name} = ranges(${hexText(deltas(list.flat()))});\n\n`;
  }
  for (const [name, list] of Object.entries(simpleMaps)) {
    const encoded = list.flatMap(([from, to], i) => [from - (i === 0 ? 0 : list[i - 1][0]), to - from]);
    out += `export const ${name} = pairs(${hexText(encoded)});\n\n`;
  }
  for (const [name, list] of Object.entries(fullMaps)) {
    out += `export const ${name} = rows(${hexText(list.flat())});\n\n`;
  }
  return out.replace(/\n\n$/, '\n');
}

function rust() {
  let out = `${HEADER.map((l) => `//! ${l}`).join('\n')}\n\n`;
  out += `pub const UNICODE_VERSION: &str = "${UNICODE_VERSION}";\n\n`;
  const rsList = (items) => {
    const lines = [];
    for (let i = 0; i < items.length; i += 8) lines.push(`    ${items.slice(i, i + 8).join(', ')},`);
    return lines.join('\n');
  };
  for (const [name, ranges] of Object.entries(properties)) {
    out += `/// Half-open ranges (start, end).\npub static ${name}: &[(u32, u32)] = &[\n${rsList(ranges.map(([a, b]) => `(${a}, ${b})`))}\n];\n\n`;
  }
  for (const [name, pairs] of Object.entries(simpleMaps)) {
    out += `/// Sorted (from, to); unlisted scalars map to themselves.\npub static ${name}: &[(u32, u32)] = &[\n${rsList(pairs.map(([a, b]) => `(${a}, ${b})`))}\n];\n\n`;
  }
  for (const [name, rowsOf] of Object.entries(fullMaps)) {
    out += `/// Full mappings that differ from the simple one: (from, [t1, t2, t3]) (0 = none).\npub static ${name}: &[(u32, [u32; 3])] = &[\n${rsList(rowsOf.map(([a, ...t]) => `(${a}, [${t.join(', ')}])`))}\n];\n\n`;
  }
  return out.replace(/\n\n$/, '\n');
}

const outputs = [
  [TS_OUT, typescript()],
  [RS_OUT, rust()],
];
if (process.argv.includes('--check')) {
  let stale = false;
  for (const [path, text] of outputs) {
    let old = '';
    try {
      old = readFileSync(path, 'utf8');
    } catch {}
    if (old !== text) {
      console.error(`generate-unicode-tables: ${path} differs from what UCD ${UNICODE_VERSION} generates`);
      stale = true;
    }
  }
  process.exit(stale ? 1 : 0);
}
for (const [path, text] of outputs) {
  writeFileSync(path, text);
  console.log(`generate-unicode-tables: ${path} (${text.length} bytes)`);
}
