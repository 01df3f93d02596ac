; The passing test again, written for ca65 (cc65 suite), so the project also carries ld65 label
; (-Ln) and map (-m) files: sections, objects and symbols for comparisons between runs.
; Built with the C64 assembler config and its BASIC header (10 SYS 2061), so it is a PRG at $0801.
; Same hand-off as src/harness.asm: result in $03FF and $D7FF ($80 pass, $81 fail).

DEBUG_REGISTER = $d7ff
RESULT_MIRROR  = $03ff
RESULT         = $c000

.export sum_main

.segment "CODE"
sum_main:
        cld
        lda #0
        ldx #10
@loop:  stx scratch
        clc
        adc scratch
        dex
        bne @loop
        sta RESULT
        cmp #55
        bne @fail
        lda #$80
        bne report
@fail:  lda #$81
report: sta RESULT_MIRROR
        sta DEBUG_REGISTER
@stay:  jmp @stay

.segment "BSS"
scratch: .res 1
