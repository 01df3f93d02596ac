; checkpoint-probe / checkpoint-skew: a program with two memory checkpoints.
;   point 1 (marker $01): TABLE ($C100, 16 bytes) holds the squares 0..15 (low bytes).
;   point 2 (marker $02): TABLE holds the squares again, each plus 1, and SUM ($C110) their sum.
; Point 2 is announced inline (not through `checkpoint`) so that AFTER_MARKER ($C120) counts the
; instructions the program could run after announcing it and before the host stopped it: the
; VICE binary monitor stops the CPU at the marker store itself (AFTER_MARKER stays 0), while the
; Ultimate's host sees the marker by polling its debug register and pauses the machine later
; (AFTER_MARKER is 1). Test checkpoint-probe leaves that byte out of its ranges and matches on
; both targets; test checkpoint-skew reads it, and the comparison reports the divergence there.
!source "src/harness.asm"

TABLE        = $c100
SUM          = $c110
AFTER_MARKER = $c120

test_main
        lda #0
        sta AFTER_MARKER
        ldx #0
-       txa                             ; square of X by repeated addition
        tay
        lda #0
        cpy #0
        beq +
--      clc
        stx scratch
        adc scratch
        dey
        bne --
+       sta TABLE,x
        inx
        cpx #16
        bne -
        lda #1
        jsr checkpoint

        lda #0
        sta SUM
        ldx #0
-       inc TABLE,x
        lda SUM
        clc
        adc TABLE,x
        sta SUM
        inx
        cpx #16
        bne -
        lda #2
        sta RESULT_MIRROR
        sta DEBUG_REGISTER
        inc AFTER_MARKER                ; the first instruction after the announcement
-       cmp CHECKPOINT_ACK
        bne -
        lda #RESULT_PASS
        rts

scratch !byte 0
