; timeline-probe: writes the progress markers 1..16 to $D7FF with a short busy wait between them,
; then passes. The debug-stream timeline (next issue) decodes these writes.
!source "src/harness.asm"

test_main
        lda #1
--      pha
        jsr progress
        ldy #8
-       dex
        bne -
        dey
        bne -
        pla
        clc
        adc #1
        cmp #17
        bne --
        lda #RESULT_PASS
        rts
