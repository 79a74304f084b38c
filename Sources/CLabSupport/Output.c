#define _GNU_SOURCE
#include "CLabOutput.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int clab_write_whole(int fd, const void *bytes, unsigned long length) {
    struct stat info;
    off_t start = -1;
    if (fstat(fd, &info) != 0) return errno;
    if (S_ISREG(info.st_mode)) start = lseek(fd, 0, SEEK_CUR);
    const char *p = bytes;
    unsigned long done = 0;
    while (done < length) {
        ssize_t n = write(fd, p + done, length - done);
        if (n > 0) { done += (unsigned long)n; continue; }
        if (n < 0 && errno == EINTR) continue;
        int failure = n < 0 ? errno : EIO;
        // A regular file (a shell's `> file`) keeps no half report: cut it back to where this
        // write began. O_APPEND files and pipes cannot be cut back; they keep what went out.
        if (start >= 0 && done > 0 && ftruncate(fd, start) == 0) (void)lseek(fd, start, SEEK_SET);
        return failure;
    }
    return 0;
}

void clab_ignore_broken_pipe(void) {
    signal(SIGPIPE, SIG_IGN);
}

int clab_stop_self(void) {
    return kill(getpid(), SIGSTOP);
}

int clab_hold_closed_stream(int fd) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) return 0;
    int held = open("/dev/null", O_RDWR);
    if (held < 0) return -1;
    if (held == fd) return 1;
    int result = dup2(held, fd) == fd ? 1 : -1;
    close(held);
    return result;
}

int clab_exchange_paths(const char *first, const char *second) {
#if defined(__linux__)
    return renameat2(AT_FDCWD, first, AT_FDCWD, second, RENAME_EXCHANGE) == 0 ? 0 : errno;
#elif defined(__APPLE__)
    return renamex_np(first, second, RENAME_SWAP) == 0 ? 0 : errno;
#else
    (void)first; (void)second;
    return ENOSYS;
#endif
}
