// sync_file_range is a GNU extension: declared by <fcntl.h> only with _GNU_SOURCE.
#define _GNU_SOURCE
#include <fcntl.h>
#include "strata_io.h"

int strata_write_back(int fd, int64_t offset, int64_t count) {
#if defined(__linux__)
    return sync_file_range(fd, (off_t)offset, (off_t)count,
                           SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
#else
    (void)fd; (void)offset; (void)count;
    return 0;
#endif
}
