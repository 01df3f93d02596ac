; Failing test: expects 2 + 2 = 5 and reports fail code 3 ($83) with the wrong sum in RESULT.
!source "src/harness.asm"

RESULT = $c000

test_main
        lda #2
        clc
        adc #2
        sta RESULT
        cmp #5
        beq +
        lda #RESULT_FAIL+2                ; $83: fail code 3
        rts
+       lda #RESULT_PASS
        rts
