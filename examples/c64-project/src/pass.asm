; Passing test: sums 1..10 into RESULT ($C000) and checks it is 55.
!source "src/harness.asm"

RESULT = $c000

test_main
        lda #0
        ldx #10
-       stx scratch
        clc
        adc scratch
        dex
        bne -
        sta RESULT
        cmp #55
        bne +
        lda #RESULT_PASS
        rts
+       lda #RESULT_FAIL
        rts

scratch !byte 0
