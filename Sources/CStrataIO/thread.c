// pthread_setname_np is a GNU extension: declared by <pthread.h> only with _GNU_SOURCE.
#define _GNU_SOURCE
#include <pthread.h>
#include "strata_io.h"

void strata_name_thread(const char *name) {
#if defined(__linux__)
    (void)pthread_setname_np(pthread_self(), name);
#elif defined(__APPLE__)
    (void)pthread_setname_np(name);
#else
    (void)name;
#endif
}
