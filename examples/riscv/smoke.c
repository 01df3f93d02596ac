/* The bounded RISC-V smoke program: exercises arithmetic, memory, calls and libgcc's multiply and
 * divide, prints a checksum line on the UART, and exits 0 when every check passed (1 otherwise). */
#include "ultimate.h"

static u32 table[256];

static u32 crc32(const u8 *p, u32 n) {
    u32 c = 0xffffffffu;
    while (n--) c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

static u32 primes_below(u32 n) {
    static u8 sieve[4096];
    u32 count = 0;
    for (u32 i = 2; i < n; i++) {
        if (sieve[i]) continue;
        count++;
        for (u32 j = i * i; j < n; j += i) sieve[j] = 1;
    }
    return count;
}

int main(void) {
    for (u32 i = 0; i < 256; i++) {
        u32 c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
    const char *text = "123456789";
    u32 crc = crc32((const u8 *)text, 9);
    u32 primes = primes_below(4096);
    volatile u32 a = 1234567, b = 89;
    u32 q = a / b, r = a % b, m = a * b;
    int ok = crc == 0xcbf43926u && primes == 564 && q == 13871 && r == 48 && m == 109876463u;
    uart_puts("SMOKE crc=");
    uart_hex(crc);
    uart_puts(" primes=");
    uart_hex(primes);
    uart_puts(ok ? " OK\n" : " FAIL\n");
    return ok ? 0 : 1;
}
