#include "benchmarks/common/crc32.h"

#include <pthread.h>

/* crc_t[0] is the classic table; crc_t[k] advances it by k more zero bytes */
static uint32_t crc_t[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int k = 1; k < 8; k++) crc_t[k][i] = crc_t[0][crc_t[k - 1][i] & 0xFF] ^ (crc_t[k - 1][i] >> 8);
}

uint32_t crc32_ieee(uint32_t crc, const void *p, size_t n)
{
    pthread_once(&crc_once, crc_init);
    const unsigned char *b = p;
    crc = ~crc;
    for (; n >= 8; n -= 8, b += 8) { /* little endian: the first 4 bytes fold into crc */
        uint32_t lo = crc ^ ((uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 |
                             (uint32_t)b[3] << 24);
        crc = crc_t[7][lo & 0xFF] ^ crc_t[6][(lo >> 8) & 0xFF] ^ crc_t[5][(lo >> 16) & 0xFF] ^
              crc_t[4][lo >> 24] ^ crc_t[3][b[4]] ^ crc_t[2][b[5]] ^ crc_t[1][b[6]] ^
              crc_t[0][b[7]];
    }
    while (n--) crc = crc_t[0][(crc ^ *b++) & 0xFF] ^ (crc >> 8);
    return ~crc;
}
