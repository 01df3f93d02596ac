/* Start of every example: a stack at the top of the application region, then main(); its return
 * value becomes the exit code (ECALL a7 = 93), and the program parks if the ECALL returns. */
    .section .text.start
    .globl _start
_start:
    la sp, __stack_top
    call main
    .globl native_exit
native_exit:
    li a7, 93
    ecall
1:  j 1b
