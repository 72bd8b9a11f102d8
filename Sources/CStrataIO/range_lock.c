// F_OFD_SETLK and F_OFD_SETLKW are Linux's: declared by <fcntl.h> only with _GNU_SOURCE.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include "strata_io.h"

int strata_lock_first_byte(int fd, int exclusive, int wait) {
#if defined(F_OFD_SETLK)
    struct flock lock;
    memset(&lock, 0, sizeof lock);
    lock.l_type = exclusive ? F_WRLCK : F_RDLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = 0;
    lock.l_len = 1;
    return fcntl(fd, wait ? F_OFD_SETLKW : F_OFD_SETLK, &lock);
#else
    (void)fd; (void)exclusive; (void)wait;
    errno = ENOTSUP;
    return -1;
#endif
}
