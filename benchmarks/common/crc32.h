/* crc32: the IEEE 802.3 CRC-32 (reflected, as zlib's crc32): zlib's crc32() where the
 * build has zlib (Makefile ZLIB), else slicing by 8
 * (eight table lookups per 8 bytes: the byte-wise loop ran at tens of MB/s
 * and was a data reader's bottleneck).  Shards (common/shard) and
 * checkpoints (train/ckpt) check their bytes with it.
 *
 * defines: crc32_ieee */
#ifndef EXADL_CRC32_H
#define EXADL_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* The CRC-32 of n bytes at p, continuing from crc (0 to start). */
uint32_t crc32_ieee(uint32_t crc, const void *p, size_t n);

#endif
