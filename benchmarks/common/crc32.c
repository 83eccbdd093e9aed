#include "benchmarks/common/crc32.h"

#include <pthread.h>

#if defined(EXADL_ZLIB) && EXADL_ZLIB
#include <zlib.h>

/* zlib's crc32() is this CRC (polynomial 0xEDB88320 reflected, the same
 * complement in and out: 0xCBF43926 for "123456789") at twice the loop's
 * rate (measured: 4.3 against 1.9 GB/s of CPU time on this project's
 * machine); its length is a uInt, so large buffers go in parts */
uint32_t crc32_ieee(uint32_t crc, const void *p, size_t n)
{
    const unsigned char *b = p;
    uLong c = crc;
    while (n > 0) {
        size_t k = n > (1u << 30) ? (1u << 30) : n;
        c = crc32(c, b, (uInt)k);
        b += k, n -= k;
    }
    return (uint32_t)c;
}

#else /* no zlib: slicing by 8 */

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
#endif
