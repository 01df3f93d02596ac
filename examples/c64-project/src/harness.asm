; The test harness every program of this project includes first (acme syntax).
; It is the C64 half of the hand-off with `ultimate-tool serve` (see docs/ultimate/SERVICE.md):
;
;   $D7FF  the Ultimate 64 debug register. $01-$7F: progress markers, $80: pass,
;          $81-$BF: fail (code = value - $80), $C0: crashed (crash context saved below).
;   $03FF  RESULT_MIRROR: the same byte in RAM, so an emulator whose $D7FF is a SID mirror
;          (VICE) can still be observed through a store checkpoint on $D7FF.
;   $03FE  CHECKPOINT_ACK: a memory checkpoint (docs/ultimate/CHECKPOINT_COMPARISON.md) is a
;          progress marker written through `checkpoint`, which then spins until the host,
;          having paused the machine and read the point's ranges, writes the marker here.
;   $0340  CRASH_AREA (16 bytes): "CR", kind (1 = BRK, 2 = NMI), A, X, Y, P, SP, PC lo, PC hi
;          of the moment the crash was taken (PC as pushed by the CPU).
;
; The program is a PRG at $0801 with a BASIC stub, so it starts with RUN on every target.

DEBUG_REGISTER = $d7ff
RESULT_MIRROR  = $03ff
CHECKPOINT_ACK = $03fe
CRASH_AREA     = $0340
RESULT_PASS    = $80
RESULT_FAIL    = $81
RESULT_CRASH   = $c0
CHROUT         = $ffd2

* = $0801
        !word basic_end, 10             ; 10 SYS 2061
        !byte $9e
        !text "2061"
        !byte 0
basic_end
        !word 0

harness_start                           ; $080d
        cld
        lda #0
        sta RESULT_MIRROR
        sta CHECKPOINT_ACK
        sta CRASH_AREA
        sei
        lda #<crash_brk                 ; BRK arrives through the KERNAL at ($0316)
        sta $0316
        lda #>crash_brk
        sta $0317
        lda #<crash_nmi                 ; NMI arrives through the KERNAL at ($0318)
        sta $0318
        lda #>crash_nmi
        sta $0319
        cli
        jsr test_main                   ; the test answers with A = result code
        ; fall through

; report: A = result code ($80 pass, $81.. fail); never returns
report
        sta RESULT_MIRROR
        sta DEBUG_REGISTER
-       jmp -

; progress marker A ($01-$7F), returns
progress
        sta RESULT_MIRROR
        sta DEBUG_REGISTER
        rts

; memory checkpoint A ($01-$7F): announces the point like a progress marker, then waits until
; the host acknowledges it (CHECKPOINT_ACK = A); returns with A, X, Y unchanged
checkpoint
        sta RESULT_MIRROR
        sta DEBUG_REGISTER
-       cmp CHECKPOINT_ACK
        bne -
        rts

; BRK: the KERNAL pushed A, X, Y after the CPU pushed PC hi, PC lo, P.
crash_brk
        tsx
        lda $0103,x
        sta CRASH_AREA+3                ; A
        lda $0102,x
        sta CRASH_AREA+4                ; X
        lda $0101,x
        sta CRASH_AREA+5                ; Y
        lda $0104,x
        sta CRASH_AREA+6                ; P
        lda $0105,x
        sta CRASH_AREA+8                ; PC lo
        lda $0106,x
        sta CRASH_AREA+9                ; PC hi
        txa
        clc
        adc #6
        sta CRASH_AREA+7                ; SP before the interrupt
        lda #1
        jmp crash_marker

; NMI: only the CPU pushed PC hi, PC lo, P; A, X, Y are still live.
crash_nmi
        sta CRASH_AREA+3
        stx CRASH_AREA+4
        sty CRASH_AREA+5
        tsx
        lda $0101,x
        sta CRASH_AREA+6
        lda $0102,x
        sta CRASH_AREA+8
        lda $0103,x
        sta CRASH_AREA+9
        txa
        clc
        adc #3
        sta CRASH_AREA+7
        lda #2
crash_marker
        sta CRASH_AREA+2
        lda #"C"
        sta CRASH_AREA
        lda #"R"
        sta CRASH_AREA+1
        lda #RESULT_CRASH
        sta RESULT_MIRROR
        sta DEBUG_REGISTER
-       jmp -
