/* The little runtime the examples share: UART output, and the memset/memcpy gcc may call. */
#include "ultimate.h"

void uart_putc(char c) {
    while (!(UART_FLAGS & UART_TX_READY)) {
    }
    UART_DATA = (u8)c;
}

void uart_puts(const char *s) {
    while (*s) uart_putc(*s++);
}

void uart_hex(u32 v) {
    for (int i = 28; i >= 0; i -= 4) uart_putc("0123456789abcdef"[(v >> i) & 15]);
}

void *memset(void *d, int c, unsigned long n) {
    u8 *p = d;
    while (n--) *p++ = (u8)c;
    return d;
}

void *memcpy(void *d, const void *s, unsigned long n) {
    u8 *p = d;
    const u8 *q = s;
    while (n--) *p++ = *q++;
    return d;
}
