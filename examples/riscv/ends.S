/* The program that ends: writes "BYE\n" to the UART and exits with code 42 (ECALL a7 = 93). */
    .section .text.start
    .globl _start
_start:
    li t0, 0x10000000
    li t1, 'B'
    sb t1, 0x10(t0)
    li t1, 'Y'
    sb t1, 0x10(t0)
    li t1, 'E'
    sb t1, 0x10(t0)
    li t1, '\n'
    sb t1, 0x10(t0)
    li a0, 42
    li a7, 93
    ecall
1:  j 1b
