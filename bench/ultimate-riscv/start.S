    .section .text.start
    .globl _start
_start:
    la sp, __stack_top
    call run_workload
    ecall
1:  j 1b
