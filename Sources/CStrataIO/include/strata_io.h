#ifndef STRATA_IO_H
#define STRATA_IO_H

#include <stdint.h>

/// Writes the dirty pages of `count` bytes at `offset` of `fd` to the disk and waits
/// for them (Linux's sync_file_range with WAIT_BEFORE, WRITE and WAIT_AFTER): data
/// only, no metadata and no journal commit. Returns 0, or -1 with errno set; on a
/// system without it, 0 and nothing done.
int strata_write_back(int fd, int64_t offset, int64_t count);

/// Names the calling thread for the kernel (what `top -H`, `perf` and gdb show). Linux
/// keeps 15 bytes and refuses a longer name: the caller cuts it.
void strata_name_thread(const char *name);

/// Takes a lock on the first byte of `fd`'s file that belongs to this open file
/// description (Linux's open-file-description locks): shared, or exclusive; waiting
/// for a conflicting one, or not. Unrelated to flock(2) locks on the same file, and
/// released when the description closes (on a local file system: NFS and CIFS emulate
/// flock with byte-range locks). Returns 0, or -1 with errno set: EAGAIN or EACCES when
/// it would wait, EINVAL on a kernel without them (before 3.15), ENOTSUP on a system
/// without them.
int strata_lock_first_byte(int fd, int exclusive, int wait);

#endif
