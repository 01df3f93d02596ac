; Crashing test: walks into a BRK in the middle of its work. The harness's BRK handler saves the
; registers to CRASH_AREA and reports $C0 through $D7FF.
!source "src/harness.asm"

COUNTER = $fb

test_main
        lda #$2a
        sta COUNTER
        lda #$11
        ldx #$22
        ldy #$33
        jsr broken
        lda #RESULT_PASS
        rts

broken
        pha
        brk                             ; the crash site
        !byte 0
        pla
        rts
