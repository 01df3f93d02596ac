// The stand-in BASIC/KERNAL (kernal-standin.asm, our own code) behaves as the C64's ROMs do where
// programs rely on it: BASIC's entry points that machine code calls (STROUT, LINPRT, the RUN
// sequence packers use), statements run line by line, and the I/O state after reset.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { C64Machine } from '../../../../../engines/ultimate/virtual/c64/machine.js';
import { acmePrg } from './helpers.js';

function runUntilReady(m: C64Machine, maxCycles = 5_000_000): void {
  m.run(maxCycles, (mm) => mm.isReady());
  assert.ok(m.isReady(), 'back at READY');
}

/** A BASIC line: link (filled in by LINKPRG or the caller), line number, tokenized text, 0. */
function basicLine(number: number, ...text: (string | number)[]): number[] {
  const bytes = text.flatMap((t) => (typeof t === 'number' ? [t] : [...t].map((c) => c.charCodeAt(0))));
  return [0xff, 0xff, number & 0xff, number >> 8, ...bytes, 0];
}

/** A program at $0801 with correct links, the two-zero end marker and its load address. */
function basicPrg(lines: number[][]): Uint8Array {
  const out: number[] = [];
  let addr = 0x0801;
  for (const line of lines) {
    const next = addr + line.length;
    out.push(next & 0xff, next >> 8, ...line.slice(2));
    addr = next;
  }
  return Uint8Array.from([0x01, 0x08, ...out, 0, 0]);
}

const SYS = 0x9e;
const REM = 0x8f;
const END = 0x80;

describe('stand-in BASIC', () => {
  test('STROUT ($AB1E) prints a 0-terminated string, LINPRT ($BDCD) A/X as an unsigned decimal without leading zeros', () => {
    const prg = acmePrg(`
* = $c000
        lda #$93
        jsr $ffd2
        lda #<text
        ldy #>text
        jsr $ab1e
        ldx #0
-       lda numbers+1,x     ; high byte
        pha
        lda numbers,x
        sta save
        pla
        stx xsave
        ldx save
        jsr $bdcd
        lda #' '
        jsr $ffd2
        ldx xsave
        inx
        inx
        cpx #10
        bne -
        jmp $a474           ; READY
text    !text "NUMBERS:", 13, 0
numbers !word 0, 7, 10000, 4096, 65535
save    !byte 0
xsave   !byte 0
`);
    const m = new C64Machine();
    m.bootLoad(prg, 0xc000);
    runUntilReady(m);
    const lines = m.screenLines();
    assert.equal(lines[0], 'NUMBERS:');
    assert.equal(lines[1], '0 7 10000 4096 65535');
  });

  test('RUN goes through the program line by line: REM skipped, SYS returns into its line, END stops', () => {
    // c000: inc $c100 : rts ; c004: lda #$5a : sta $d7ff : rts
    const code = [0xee, 0x00, 0xc1, 0x60, 0xa9, 0x5a, 0x8d, 0xff, 0xd7, 0x60];
    const prg = basicPrg([
      basicLine(10, REM, ' ANYTHING: SYS 1'),
      basicLine(20, SYS, '49152:', SYS, ' (49152) : ', SYS, '49156'),
      basicLine(30, END),
      basicLine(40, SYS, '49152'),
    ]);
    const m = new C64Machine();
    m.writeMem(0xc000, Uint8Array.from(code));
    m.runPrg(prg);
    runUntilReady(m);
    assert.equal(m.ram[0xc100], 2, 'both SYS 49152 of line 20 ran, line 40 did not');
    assert.equal(m.debugRegister, 0x5a, 'the third statement of line 20 ran');
    assert.equal(m.ram[0x39]! | (m.ram[0x3a]! << 8), 0xff00 | 30, 'CURLIN: END in line 30 (low byte), direct mode again ($FF)');
  });

  test('SYS takes an expression: numbers, PEEK, unary minus, * before + and -, comparisons as -1/0, AND, OR, NOT', () => {
    // the stubs of some test programs: SYS PEEK(43)+256*PEEK(44)+26
    const [PEEK, PLUS, MINUS, TIMES, AND, OR, GT, EQ, LT, NOT] = [0xc2, 0xaa, 0xab, 0xac, 0xaf, 0xb0, 0xb1, 0xb2, 0xb3, 0xa8];
    // c000: inc $c100 : rts ; c004: lda #$5a : sta $d7ff : rts
    const code = [0xee, 0x00, 0xc1, 0x60, 0xa9, 0x5a, 0x8d, 0xff, 0xd7, 0x60];
    const prg = basicPrg([
      basicLine(10, SYS, '49152', MINUS, '2', TIMES, MINUS, '1', MINUS, '2'), // 49152
      basicLine(20, SYS, PEEK, '(43)', PLUS, '256', TIMES, PEEK, '(44)', PLUS, '47103'), // 2049 + 47103
      basicLine(30, SYS, '49152', PLUS, '((', PEEK, '(43)', EQ, '1)', AND, '(', PEEK, '(44)', EQ, '8)', AND, '4)'), // 49156
      basicLine(40, SYS, '49153', PLUS, '(3', LT, '2', OR, NOT, MINUS, '1)', TIMES, '9', PLUS, '(2', GT, EQ, '2)'), // 49152
      basicLine(50, SYS, '49152', PLUS, '(1', LT, GT, '1)', TIMES, '4'), // 49152
    ]);
    const m = new C64Machine();
    m.writeMem(0xc000, Uint8Array.from(code));
    m.runPrg(prg);
    runUntilReady(m);
    assert.equal(m.ram[0xc100], 4, 'lines 10, 20, 40 and 50 called $C000');
    assert.equal(m.debugRegister, 0x5a, 'line 30 called $C004');
  });

  test('an unknown statement in a program stops it with the line number', () => {
    const prg = basicPrg([basicLine(10, REM), basicLine(20, 0x9b /* LIST */)]);
    const m = new C64Machine();
    m.runPrg(prg);
    runUntilReady(m);
    assert.match(m.screenText(), /\?NOT IN THE STAND-IN BASIC IN 20\n\nREADY\.$/);
  });

  test('a small BASIC program: variables, POKE, PEEK, PRINT with ; and , zones, IF/THEN with a statement or a line, GOTO', () => {
    const [PRINT, POKE, IF, THEN, GOTO, PEEK, PLUS, MINUS, TIMES, EQ, LT, GT, OR] = [
      0x99, 0x97, 0x8b, 0xa7, 0x89, 0xc2, 0xaa, 0xab, 0xac, 0xb2, 0xb3, 0xb1, 0xb0,
    ];
    const prg = basicPrg([
      basicLine(10, 'A', EQ, PEEK, '(43):B', EQ, PEEK, '(44):AB', EQ, 'A', PLUS, '256', TIMES, 'B'),
      basicLine(20, PRINT, 'A,B;"=";AB'),
      basicLine(30, PRINT, MINUS, '5;'),
      basicLine(40, IF, ' AB ', LT, GT, ' 2049 ', OR, ' A', GT, '1 ', THEN, POKE, ' 49408,1:', GOTO, '90'),
      basicLine(50, POKE, '49409,AB', EQ, '2049'),
      basicLine(60, IF, ' AB', EQ, '2049 ', THEN, '80'),
      basicLine(70, POKE, '49410,1'),
      basicLine(80, POKE, '55295,7:', END),
      basicLine(90, POKE, '49411,1'),
    ]);
    const m = new C64Machine();
    m.runPrg(prg);
    runUntilReady(m);
    const lines = m.screenLines();
    const run = lines.indexOf('RUN');
    assert.equal(lines[run + 1], ' 1         8 = 2049', 'numbers with a sign place, "," to column 10, ";" joined');
    assert.equal(lines[run + 2], '-5', 'a statement ending in ";" keeps the line; -5 printed with its sign');
    assert.deepEqual(
      [...m.ram.subarray(0xc100, 0xc104)],
      [0, 0xff, 0, 0],
      'the false IF skipped its line, the comparison gave -1, THEN 80 jumped over line 70',
    );
    assert.equal(m.debugRegister, 7, 'POKE 55295 reaches the debug register through I/O');
    const vartab = m.ram[0x2d]! | (m.ram[0x2e]! << 8);
    assert.equal((m.ram[0x2f]! | (m.ram[0x30]! << 8)) - vartab, 3 * 7, 'three variables of 7 bytes below ARYTAB');
  });

  test("a packer's restart: LINKPRG ($A533) relinks, $A659 resets TXTPTR and the variables, NEWSTT ($A7AE) runs line 1", () => {
    // What an exomizer-packed BASIC program does after unpacking: the lines are in place but their
    // links are stale; VARTAB is set to the program's end, then CLR, relink and run.
    const prg = acmePrg(`
* = $c000
        ldx #0
-       lda prog,x
        sta $0801,x
        inx
        cpx #progend-prog
        bne -
        lda #<($0801+progend-prog)
        sta $2d
        lda #>($0801+progend-prog)
        sta $2e
        lda #$77            ; a variable pointer that CLR must reset
        sta $2f
        jsr $a659
        jsr $a533
        jmp $a7ae
prog    !word $dead, 10     ; a stale link
        !byte $9e
        !text "49408", 0
        !word $beef, 20
        !byte $9e
        !text "49424", 0
        !word 0
progend
* = 49408
        inc $c200
        rts
* = 49424
        lda #$33
        sta $d7ff
        rts
`);
    const m = new C64Machine();
    m.bootLoad(prg, 0xc000);
    runUntilReady(m);
    assert.equal(m.ram[0xc200], 1, 'line 10 ran');
    assert.equal(m.debugRegister, 0x33, 'line 20 ran');
    const link1 = m.ram[0x0801]! | (m.ram[0x0802]! << 8);
    assert.equal(link1, 0x0801 + 4 + 6 + 1, 'LINKPRG rewrote the first link');
    assert.equal(m.ram[0x2f]! | (m.ram[0x30]! << 8), m.ram[0x2d]! | (m.ram[0x2e]! << 8), 'ARYTAB = VARTAB after CLR');
  });
});

describe('stand-in KERNAL: the state after reset', () => {
  test('IOINIT: keyboard columns out (all but column 7 high), rows in; CIA 2 port A as the serial bus and VIC bank; 6510 port', () => {
    const m = new C64Machine();
    assert.equal(m.peek(0xdc02), 0xff, 'CIA 1 DDRA');
    assert.equal(m.peek(0xdc03), 0x00, 'CIA 1 DDRB');
    assert.equal(m.peek(0xdc00), 0x7f, 'CIA 1 port A');
    assert.equal(m.peek(0xdd02), 0x3f, 'CIA 2 DDRA');
    assert.equal(m.peek(0xdd00) & 0x3f, 0x17, 'CIA 2 port A: VIC bank 0, TXD, CLK out');
    assert.equal(m.peek(0x00), 0x2f, '6510 port direction');
  });

  test('CINT: VIC registers as after a real reset, the screen line table, $02A6 and a 60 Hz timer for PAL and NTSC', () => {
    for (const [video, pal, latch] of [
      ['pal', 1, 0x4025], // the CPU clock (985 248 Hz) / 60, rounded
      ['ntsc', 0, 0x4295], // 1 022 727 Hz / 60
    ] as const) {
      const m = new C64Machine({ video });
      assert.equal(m.ram[0x02a6], pal, `${video}: $02A6`);
      assert.deepEqual(
        [...m.readMem(0xd020, 15)].map((v) => v & 0x0f),
        [14, 6, 1, 2, 3, 4, 0, 1, 2, 3, 4, 5, 6, 7, 12],
      );
      assert.equal(m.peek(0xd015), 0, 'no sprites');
      assert.equal(m.peek(0xd018), 0x15, 'screen $0400, upper-case characters');
      assert.equal(m.ram[0xd9], 0x84, 'row 0 starts a logical line at $04xx');
      assert.equal(m.ram[0xd9 + 24], 0x87, 'row 24 at $07xx');
      // the latch: stop the timer and force-load it, then read the counter
      m.poke(0xdc0e, 0x10);
      m.run(20);
      assert.equal(m.peek(0xdc04) | (m.peek(0xdc05) << 8), latch, `${video}: timer A latch`);
    }
  });

  test("the KERNAL's routine addresses: IOINIT at $FDA3 restores CIA 1's ports, $E518 clears the screen, $E536 in the colour in A", () => {
    const prg = acmePrg(`
* = $c000
        lda #0
        sta $dc02
        lda #$ff
        sta $dc03
        lda #'X'
        sta $0400
        jsr $fda3
        jsr $e518
        lda #$58
        sta $0401
        lda #5              ; clear in green
        jsr $e536
        lda #$42
        sta $d7ff
        rts
`);
    const m = new C64Machine();
    m.bootLoad(prg, 0xc000);
    m.run(200_000, () => m.debugRegister === 0x42);
    assert.equal(m.peek(0xdc02), 0xff);
    assert.equal(m.peek(0xdc03), 0x00);
    assert.equal(m.ram[0x0400], 0x20, 'the screen was cleared');
    assert.equal(m.ram[0x0401], 0x20, 'and again by $E536');
    assert.equal(m.ram[0x0286], 5, '$E536: the text colour from A');
    assert.equal(m.peek(0xdbe7) & 0x0f, 5, 'the colour RAM in that colour');
  });
});
