/* Touches C64 memory: reads the invocation's UTR2 token from the mailbox at $0340, echoes it on the
 * UART and on the C64 screen, writes a reply mailbox at $0390 (token + status 1), turns the border
 * green, and exits 0 — or exits 2 without a token. */
#include "ultimate.h"

static u8 screen_code(char c) {
    if (c >= 'a' && c <= 'z') return (u8)(c - 'a' + 1);
    if (c >= 'A' && c <= 'Z') return (u8)(c - 'A' + 1);
    return (u8)c; /* digits and . - are the same in screen codes; _ is close enough */
}

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

    volatile u8 *screen = C64_MEM + 0x0400;
    for (u32 i = 0; i < n; i++) screen[i] = screen_code(token[i]);
    C64_MEM[0xd020] = 5; /* border green */

    uart_puts("UTR2 ");
    uart_puts(token);
    uart_puts(" OK\n");
    return 0;
}
