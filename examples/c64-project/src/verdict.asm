; sum-verdict-00: the passing sum again, written WITHOUT the harness, as most C64 test programs
; are: it writes $00 to $D7FF when the sum of 1..10 is 55 and $FF when it is not. The manifest's
; `verdict` ({"pass": [0], "fail": [255]}) tells the service what those values mean
; (docs/ultimate/SERVICE.md, "Two conventions").

DEBUG_REGISTER = $d7ff
RESULT         = $c000

* = $0801
        !word basic_end, 10             ; 10 SYS 2061
        !byte $9e
        !text "2061"
        !byte 0
basic_end
        !word 0

start   lda #0
        ldx #10
-       stx scratch
        clc
        adc scratch
        dex
        bne -
        sta RESULT
        cmp #55
        bne fail
        lda #$00                        ; pass
        !byte $2c                       ; BIT abs: skips the LDA #$FF
fail    lda #$ff                        ; fail
        sta DEBUG_REGISTER
stay    jmp stay

scratch !byte 0
