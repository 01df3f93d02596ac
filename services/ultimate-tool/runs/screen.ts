// What the service reads back from a C64 screen: 1000 bytes of screen RAM ($0400) and colour RAM
// ($D800), the border and background colours, turned into text lines, a screen_match verdict and
// a PNG rendered with the project's own character set (font.ts).
import { PNG } from 'pngjs';
import { projectCharset, screenCodeToText } from './font.js';

export const SCREEN_RAM = 0x0400;
export const COLOUR_RAM = 0xd800;
export const SCREEN_BYTES = 1000;
const COLUMNS = 40;
const ROWS = 25;
const BORDER = 32;

/** A commonly used measured C64 palette (RGB). */
const PALETTE: ReadonlyArray<readonly [number, number, number]> = [
  [0x00, 0x00, 0x00],
  [0xff, 0xff, 0xff],
  [0x68, 0x37, 0x2b],
  [0x70, 0xa4, 0xb2],
  [0x6f, 0x3d, 0x86],
  [0x58, 0x8d, 0x43],
  [0x35, 0x28, 0x79],
  [0xb8, 0xc7, 0x6f],
  [0x6f, 0x4f, 0x25],
  [0x43, 0x39, 0x00],
  [0x9a, 0x67, 0x59],
  [0x44, 0x44, 0x44],
  [0x6c, 0x6c, 0x6c],
  [0x9a, 0xd2, 0x84],
  [0x6c, 0x5e, 0xb5],
  [0x95, 0x95, 0x95],
];

export interface ScreenSnapshot {
  screen: Uint8Array;
  colour: Uint8Array;
  border: number;
  background: number;
}

export function screenLines(screen: Uint8Array): string[] {
  const lines: string[] = [];
  for (let r = 0; r < ROWS; r++) {
    let s = '';
    for (let c = 0; c < COLUMNS; c++) s += screenCodeToText(screen[r * COLUMNS + c] ?? 32);
    lines.push(s.replace(/\s+$/, ''));
  }
  return lines;
}

export function matchScreen(lines: string[], text: string, row?: number): { row: number; column: number } | null {
  const rows = row === undefined ? lines.map((_, i) => i) : [row];
  for (const r of rows) {
    const c = (lines[r] ?? '').indexOf(text);
    if (c >= 0) return { row: r, column: c };
  }
  return null;
}

let charset: Uint8Array | undefined;

export function renderScreenPng(s: ScreenSnapshot): Buffer {
  charset ??= projectCharset();
  const width = COLUMNS * 8 + 2 * BORDER;
  const height = ROWS * 8 + 2 * BORDER;
  const png = new PNG({ width, height, colorType: 2, inputColorType: 2, inputHasAlpha: false });
  // Border everywhere (one fill with a 3-byte pattern), then the 40x25 cells row by row.
  const rgb = (c: number) => Buffer.from(PALETTE[c & 15] ?? [0, 0, 0]);
  const data = Buffer.alloc(width * height * 3);
  data.fill(rgb(s.border));
  const bg = rgb(s.background);
  for (let r = 0; r < ROWS; r++) {
    for (let c = 0; c < COLUMNS; c++) {
      const code = s.screen[r * COLUMNS + c] ?? 32;
      const fg = rgb(s.colour[r * COLUMNS + c] ?? 14);
      for (let py = 0; py < 8; py++) {
        const bits = charset[code * 8 + py] ?? 0;
        let o = ((BORDER + r * 8 + py) * width + BORDER + c * 8) * 3;
        for (let px = 0; px < 8; px++, o += 3) {
          const col = bits & (0x80 >> px) ? fg : bg;
          data[o] = col[0]!;
          data[o + 1] = col[1]!;
          data[o + 2] = col[2]!;
        }
      }
    }
  }
  png.data = data;
  // No per-row filter search and fast deflate: a screen is large flat areas, and the default
  // (try all five filters on every row, level 9) costs ten times as much for a few percent.
  return PNG.sync.write(png, { colorType: 2, inputColorType: 2, inputHasAlpha: false, filterType: 0, deflateLevel: 1 });
}
