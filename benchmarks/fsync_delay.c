/* A slow disk for benchmarks and tests: loaded with LD_PRELOAD, it makes every fsync and
   fdatasync FSYNC_DELAY_MS milliseconds slower (it sleeps, then syncs), as a busy disk, an
   SD card or a spinning disk would; and while the file FSYNC_FAIL_FLAG names exists, each
   fails with EIO, syncing nothing, as a failing disk's would. benchmarks/slow_disk.py builds
   it with the system's cc. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

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

static int failing(void) {
    const char *flag = getenv("FSYNC_FAIL_FLAG");
    int saved = errno;
    int fails = flag != NULL && access(flag, F_OK) == 0;
    errno = saved;
    return fails;
}

int fsync(int fd) {
    static int (*real)(int);
    if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    take_time();
    if (failing()) {
        errno = EIO;
        return -1;
    }
    return real(fd);
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (real == NULL) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    take_time();
    if (failing()) {
        errno = EIO;
        return -1;
    }
    return real(fd);
}

__attribute__((constructor)) static void announce(void) {
    if (delay_ns() > 0) {
        fprintf(stderr, "fsync delay: every fsync %s ms slower\n", getenv("FSYNC_DELAY_MS"));
    }
}
