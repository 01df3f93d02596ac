/* The I/O a native program has on the Ultimate 64 Elite II (and on the virtual one), from the
 * firmware's software/system/iomap.h and itu.h; see docs/ultimate/NATIVE.md. Freestanding: no libc. */
#ifndef ULTIMATE_H
#define ULTIMATE_H

typedef unsigned char u8;
typedef unsigned int u32;

#define IOBASE 0x10000000u
#define UART_DATA (*(volatile u8 *)(IOBASE + 0x10))
#define UART_FLAGS (*(volatile u8 *)(IOBASE + 0x12))
#define UART_TX_READY 0x40
#define ITU_IRQ_GLOBAL (*(volatile u8 *)(IOBASE + 0x07))
/* The C64's 64 KiB as the firmware sees it. */
#define C64_MEM ((volatile u8 *)(IOBASE + 0x50000))

/* The UTR2 token mailbox (engines/ultimate/riscv-apps/utr2-mailbox.ts): "UTR2", length, token. */
#define UTR2_MAILBOX 0x0340
#define UTR2_REPLY 0x0390

void uart_putc(char c);
void uart_puts(const char *s);
void uart_hex(u32 v);
/* Ends the program on the virtual device (ECALL a7 = 93); parks (j .) where nothing handles it. */
void native_exit(int code) __attribute__((noreturn));

#endif
