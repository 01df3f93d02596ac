; timeline-probe, written for ca65 (cc65 suite) so its build carries its own analysis: ld65 writes
; a debug info file (--dbgfile) with the source line and symbol of every byte, plus label (-Ln)
; and map (-m) files. A source-linked debug-stream capture of this test resolves each bus access
; of the program to the line that produced it.
;
; It writes the progress markers 1..16 to $D7FF with a short busy wait between them, then passes
; ($80). Same hand-off as src/harness.asm: the result also goes to RESULT_MIRROR ($03FF).
; Built with the C64 assembler config and its BASIC header (10 SYS 2061), so it is a PRG at $0801.

DEBUG_REGISTER = $d7ff
RESULT_MIRROR  = $03ff
RESULT_PASS    = $80
LAST_MARKER    = 16

.segment "CODE"
harness_start:
        cld
        lda #0
        sta RESULT_MIRROR
        jsr test_main                   ; the test answers with A = result code
report:
        sta RESULT_MIRROR
        sta DEBUG_REGISTER
@stay:  jmp @stay

; progress marker A ($01-$7F), returns
progress:
        sta RESULT_MIRROR
        sta DEBUG_REGISTER
        rts

test_main:
        lda #1
@marker:
        pha
        jsr progress
        ldy #8
@wait:  dex
        bne @wait
        dey
        bne @wait
        pla
        clc
        adc #1
        cmp #LAST_MARKER + 1
        bne @marker
        lda #RESULT_PASS
        rts
