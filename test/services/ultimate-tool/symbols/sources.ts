// Small programs whose labels the tests know by heart.
export const ACME_SOURCE = `* = $0801
!byte $0b,$08,$0a,$00,$9e,$32,$30,$36,$31,$00,$00,$00
* = $080d
start   lda #0
        sta $d020
loop    inc counter
        jmp loop
counter !byte 0
table   !fill 16, 0
border = $d020
`;

export const TASS_SOURCE = `        * = $0801
        .word (+), 10
        .null $9e, format("%d", start)
+       .word 0
start   lda #0
        sta $d020
loop    inc counter
        jmp loop
counter .byte 0
scope   .block
deep    lda #1
        rts
        .bend
`;

/** ca65 main module; \`extra\` adds instructions to helper (a bigger candidate build). */
export function ca65Main(extra = 0): string {
  return `.segment "STARTUP"
.export start
.import other
start:  lda #0
        sta $d020
loop:   jsr helper
        jsr other
        jmp loop
.proc helper
        ldx #1
${'        nop\n'.repeat(extra)}@inner: dex
        bne @inner
        rts
.endproc
.segment "RODATA"
msg:    .byte "HELLO",0
.segment "DATA"
counter: .byte 0
table:  .res 16
`;
}

export const CA65_OTHER = `.segment "CODE"
.export other
other:  inc $d021
        rts
`;
