/* A slow disk for benchmarks and tests: loaded with LD_PRELOAD, it makes every fsync and
   fdatasync FSYNC_DELAY_MS milliseconds slower (it sleeps, then syncs), as a busy disk, an
   SD card or a spinning disk would. benchmarks/slow_disk.py builds it with the system's cc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long delay_ns(void) {
    const char *text = getenv("FSYNC_DELAY_MS");
    return text == NULL ? 0 : (long)(atof(text) * 1e6);
}

static void take_time(void) {
    long ns = delay_ns();
    struct timespec left = {ns / 1000000000L, ns % 1000000000L};
    int saved = errno;
    while (ns > 0 && nanosleep(&left, &left) == -1 && errno == EINTR) {
    }
    errno = saved;
}

int fsync(int fd) {
    static int (*real)(int);
    if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    take_time();
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    take_time();
    return real(fd);
}

__attribute__((constructor)) static void announce(void) {
    if (delay_ns() > 0) {
        fprintf(stderr, "fsync delay: every fsync %s ms slower\n", getenv("FSYNC_DELAY_MS"));
    }
}
