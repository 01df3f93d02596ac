/* The example project's native program for the Ultimate 64 Elite II (the trusted-native flow,
 * docs/ultimate/NATIVE.md): reads this invocation's UTR2 token from the C64 mailbox at $0340 that
 * the service writes just before Run Update, prints `UTR2 <token> OK` on the UART (the lab's serial
 * console; the service checks the line to attribute the output to the invocation), writes the reply
 * mailbox at $0390 and turns the border green. Exits 0, or 2 when no token is there. Adapted from
 * examples/riscv/c64-touch.c. */
#include "ultimate.h"

int main(void) {
    char token[65];
    volatile u8 *box = C64_MEM + UTR2_MAILBOX;
    if (box[0] != 'U' || box[1] != 'T' || box[2] != 'R' || box[3] != '2' || box[4] == 0 || box[4] > 64) {
        uart_puts("UTR2 - NO-TOKEN\n");
        return 2;
    }
    u32 n = box[4];
    for (u32 i = 0; i < n; i++) token[i] = (char)box[5 + i];
    token[n] = 0;

    volatile u8 *reply = C64_MEM + UTR2_REPLY;
    for (u32 i = 0; i < 5 + n; i++) reply[i] = box[i];
    reply[5 + n] = 1; /* status: done */
    C64_MEM[0xd020] = 5; /* border green */

    uart_puts("UTR2 ");
    uart_puts(token);
    uart_puts(" OK\n");
    return 0;
}
