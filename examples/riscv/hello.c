/* UART hello: one line on the serial console, then the program parks (the device stays native). */
#include "ultimate.h"

int main(void) {
    ITU_IRQ_GLOBAL = 0;
    uart_puts("Hello from the Ultimate 64 Elite II RISC-V core\n");
    for (;;) {
    }
}
