// A private header of the shim (outside include/, so Swift never sees it).
#ifndef CLAB_READ_SMALL_FILE_H
#define CLAB_READ_SMALL_FILE_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <unistd.h>

/// Reads a small file whole into `buffer` (at most `size - 1` bytes, then a NUL), through short
/// reads and EINTR: procfs and sysfs files report size 0, so there is nothing to stat first.
/// Returns the byte count (0 for an empty file, as a kernel thread's `cmdline` is), or -1 when
/// the file cannot be opened or its first read fails (a process or thread that ended meanwhile).
static inline long clab_read_small_file(const char *path, char *buffer, size_t size) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t total = 0;
    long result = 0;
    while (total < size - 1) {
        ssize_t n = read(fd, buffer + total, size - 1 - total);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && total == 0) result = -1;
        if (n <= 0) break;
        total += (size_t)n;
    }
    close(fd);
    buffer[total] = 0;
    return result < 0 ? -1 : (long)total;
}

#endif
