; Screen-observation test: prints a greeting with the KERNAL and never touches $D7FF after it.
; It is judged only by screen_match (text expected in screen RAM).
!source "src/harness.asm"

test_main
        lda #$93                        ; clear screen
        jsr CHROUT
        ldx #0
-       lda greeting,x
        beq +
        jsr CHROUT
        inx
        bne -
+
-       jmp -                           ; stay, so the screen stays as it is

greeting
        !text "HELLO FROM THE C64 PROJECT", 13, 0
