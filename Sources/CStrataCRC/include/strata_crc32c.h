#ifndef STRATA_CRC32C_H
#define STRATA_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/// 1 when this CPU has a CRC-32C instruction (SSE 4.2 on x86-64, the CRC extension
/// on AArch64), 0 otherwise; the Swift side then keeps its table-driven code.
int strata_crc32c_hardware_available(void);

/// Updates a CRC-32C register (already inverted by the caller) over `count` bytes
/// with the CPU's instruction. Only call when strata_crc32c_hardware_available().
uint32_t strata_crc32c_hardware_update(uint32_t crc, const void *bytes, size_t count);

#endif
