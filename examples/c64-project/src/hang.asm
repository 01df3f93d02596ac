; Hanging test: never reports, so the run ends when its time budget runs out (timed_out).
!source "src/harness.asm"

test_main
        lda #1
        jsr progress
-       jmp -
