/* The benchmark's CPU-bound RV32I program: a mix of table-driven CRC32 (loads, xor, shifts),
 * a sieve (byte stores, nested loops), an insertion sort of pseudo-random words (word loads and
 * stores, compares) and a multiply-accumulate through libgcc (calls, shifts, adds), repeated
 * ROUNDS times. Returns a checksum so both interpreters can be compared. */
typedef unsigned int u32;
typedef unsigned char u8;

#ifndef ROUNDS
#define ROUNDS 40
#endif

static u32 table[256];
static u8 buf[2048];
static u8 sieve[8192];
static u32 arr[256];

static void crc_init(void) {
    for (u32 i = 0; i < 256; i++) {
        u32 c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? 0xedb88320u ^ (c >> 1) : c >> 1;
        table[i] = c;
    }
}

static u32 crc32(const u8 *p, u32 n) {
    u32 c = 0xffffffffu;
    while (n--) c = table[(c ^ *p++) & 0xff] ^ (c >> 8);
    return ~c;
}

static u32 primes(u32 n) {
    for (u32 i = 0; i < n; i++) sieve[i] = 0;
    u32 count = 0;
    for (u32 i = 2; i < n; i++) {
        if (sieve[i]) continue;
        count++;
        for (u32 j = i + i; j < n; j += i) sieve[j] = 1;
    }
    return count;
}

static u32 sort_check(u32 seed) {
    for (u32 i = 0; i < 256; i++) {
        seed = seed * 1103515245u + 12345u;
        arr[i] = seed >> 8;
    }
    for (u32 i = 1; i < 256; i++) {
        u32 v = arr[i];
        int j = (int)i - 1;
        while (j >= 0 && arr[j] > v) {
            arr[j + 1] = arr[j];
            j--;
        }
        arr[j + 1] = v;
    }
    return arr[0] ^ arr[128] ^ arr[255];
}

u32 run_workload(void) {
    crc_init();
    u32 sum = 0;
    for (u32 r = 0; r < ROUNDS; r++) {
        for (u32 i = 0; i < sizeof buf; i++) buf[i] = (u8)(i * 7 + r);
        sum += crc32(buf, sizeof buf);
        sum ^= primes(8192);
        sum += sort_check(r);
    }
    return sum;
}
