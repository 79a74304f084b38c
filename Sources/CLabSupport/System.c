// The system-wide calls of the seam: clock, sleep, CPU and memory, terminal, stdout, dlsym's
// default handle, the executable's path, the global queue's limits, sockets.
#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include "CLabPlatform.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#if defined(__APPLE__)
#include <TargetConditionals.h>
#include <libproc.h>
#include <mach/mach.h>
#include <sys/sysctl.h>
#endif

const char *clab_os_name(void) {
#if defined(__linux__)
    return "linux";
#elif defined(__APPLE__) && TARGET_OS_OSX
    return "macos";
#elif defined(__APPLE__) && TARGET_OS_IPHONE
    return "ios";
#else
    return "unknown";
#endif
}

double clab_monotonic_now(void) {
    struct timespec ts;
#if defined(__APPLE__)
    // Darwin's CLOCK_MONOTONIC is gettimeofday minus the boot time, to the microsecond (Libc
    // gen/clock_gettime.c); CLOCK_MONOTONIC_RAW is mach_continuous_time, to the nanosecond,
    // system-wide like Linux's CLOCK_MONOTONIC, and counts sleep as that does not.
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static struct timespec clab_timespec(double seconds) {
    struct timespec ts;
    ts.tv_sec = (time_t)seconds;
    ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec < 0) ts.tv_nsec = 0;
    if (ts.tv_nsec > 999999999L) ts.tv_nsec = 999999999L;
    return ts;
}

void clab_sleep_until_monotonic(double deadline) {
#if defined(__linux__)
    struct timespec ts = clab_timespec(deadline);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {}
#else
    for (;;) {
        double left = deadline - clab_monotonic_now();
        if (left <= 0) return;
        struct timespec ts = clab_timespec(left);
        if (nanosleep(&ts, NULL) == 0) return;
        if (errno != EINTR) return;
    }
#endif
}

void clab_sleep_for(double seconds) {
    if (seconds <= 0) return;
    clab_sleep_until_monotonic(clab_monotonic_now() + seconds);
}

double clab_process_cpu_seconds(void) {
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
    return (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6
         + (double)usage.ru_stime.tv_sec + (double)usage.ru_stime.tv_usec / 1e6;
}

#if defined(__linux__)
/// The number after `key` on its line of /proc/self/status (a size in kB); -1 when absent.
static double clab_status_kilobytes(const char *key) {
    FILE *file = fopen("/proc/self/status", "re");
    if (!file) return -1;
    char line[256];
    double value = -1;
    size_t length = strlen(key);
    while (fgets(line, sizeof line, file)) {
        if (strncmp(line, key, length) != 0) continue;
        const char *p = line + length;
        while (*p == ' ' || *p == '\t') p++;
        if (*p >= '0' && *p <= '9') value = strtod(p, NULL);
        break;
    }
    fclose(file);
    return value;
}
#endif

double clab_peak_resident_bytes(void) {
#if defined(__linux__)
    double kilobytes = clab_status_kilobytes("VmHWM:");
    if (kilobytes >= 0) return kilobytes * 1024;
#endif
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0 || usage.ru_maxrss <= 0) return -1;
#if defined(__APPLE__)
    return (double)usage.ru_maxrss;          // bytes on Darwin
#else
    return (double)usage.ru_maxrss * 1024;   // kilobytes on Linux
#endif
}

double clab_current_resident_bytes(void) {
#if defined(__linux__)
    double kilobytes = clab_status_kilobytes("VmRSS:");
    return kilobytes >= 0 ? kilobytes * 1024 : -1;
#elif defined(__APPLE__)
    mach_task_basic_info_data_t info;
    mach_msg_type_number_t count = MACH_TASK_BASIC_INFO_COUNT;
    if (task_info(mach_task_self(), MACH_TASK_BASIC_INFO, (task_info_t)&info, &count) != KERN_SUCCESS) return -1;
    return (double)info.resident_size;
#else
    return -1;
#endif
}

int clab_thread_run_times(double *on_cpu, double *waiting) {
#if defined(__linux__)
    FILE *file = fopen("/proc/thread-self/schedstat", "re");
    if (!file) return -1;
    unsigned long long running = 0, queued = 0;
    int fields = fscanf(file, "%llu %llu", &running, &queued);
    fclose(file);
    if (fields != 2) return -1;
    *on_cpu = (double)running / 1e9;
    *waiting = (double)queued / 1e9;
    return 0;
#else
    (void)on_cpu; (void)waiting;
    return -1;
#endif
}

int clab_terminal_columns(int fd) {
    struct winsize size;
    memset(&size, 0, sizeof size);
    if (ioctl(fd, TIOCGWINSZ, &size) != 0 || size.ws_col == 0) return -1;
    return size.ws_col;
}

int clab_terminal_set_size(int fd, unsigned short rows, unsigned short columns) {
    struct winsize size;
    memset(&size, 0, sizeof size);
    size.ws_row = rows;
    size.ws_col = columns;
    return ioctl(fd, TIOCSWINSZ, &size) == 0 ? 0 : -1;
}

void clab_stdout_unbuffered(void) {
    setvbuf(stdout, NULL, _IONBF, 0);
}

void *clab_search_all_libraries(void) {
    return RTLD_DEFAULT;
}

int clab_image_path(const void *address, char *buffer, unsigned long size) {
    if (size < 2 || address == NULL) return -1;
    // dladdr names the image (executable, shared library or loaded bundle) holding an address:
    // glibc's <dlfcn.h> with _GNU_SOURCE, Darwin's <dlfcn.h> (dyld's dladdr). dli_fname is the
    // path the image was loaded from, which may be relative on Linux (argv[0] for the executable).
    Dl_info info;
    if (dladdr(address, &info) == 0 || info.dli_fname == NULL || info.dli_fname[0] == 0) return -1;
    size_t n = strlen(info.dli_fname);
    if (n + 1 > size) return -1;
    memcpy(buffer, info.dli_fname, n + 1);
    return 0;
}

int clab_executable_path(char *buffer, unsigned long size) {
    if (size < 2) return -1;
#if defined(__linux__)
    ssize_t n = readlink("/proc/self/exe", buffer, size - 1);
    if (n <= 0) return -1;
    buffer[n] = 0;
    return 0;
#elif defined(__APPLE__)
    return proc_pidpath(getpid(), buffer, (uint32_t)size) > 0 ? 0 : -1;
#else
    return -1;
#endif
}

int clab_dispatch_pool_limits(int *constrained, int *total) {
#if defined(__APPLE__)
    int value = 0;
    size_t length = sizeof value;
    if (sysctlbyname("kern.wq_max_constrained_threads", &value, &length, NULL, 0) != 0 || value <= 0) return -1;
    *constrained = value;
    length = sizeof value;
    if (sysctlbyname("kern.wq_max_threads", &value, &length, NULL, 0) != 0 || value <= 0) return -1;
    *total = value;
    return 0;
#else
    (void)constrained; (void)total;
    return -1;
#endif
}

// MARK: - Sockets

#if defined(__APPLE__)
static void clab_prepare_socket(int fd, int non_blocking) {
    (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    if (non_blocking) (void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    int one = 1;
    (void)setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &one, sizeof one);
}
#endif

int clab_tcp_socket(int non_blocking) {
#if defined(__linux__)
    return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (non_blocking ? SOCK_NONBLOCK : 0), 0);
#else
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0) clab_prepare_socket(fd, non_blocking);
    return fd;
#endif
}

int clab_accept(int fd) {
#if defined(__linux__)
    return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
#else
    // Darwin has no accept4: a child spawned by another thread in the instant between accept
    // and fcntl could inherit the connection (never the listening socket, set up at birth).
    int connection = accept(fd, NULL, NULL);
    if (connection >= 0) clab_prepare_socket(connection, 1);
    return connection;
#endif
}

long clab_send(int fd, const void *bytes, unsigned long count) {
#if defined(__linux__)
    return (long)send(fd, bytes, count, MSG_NOSIGNAL);
#else
    return (long)send(fd, bytes, count, 0);
#endif
}

int clab_ipv4_address(void *storage, unsigned long size, uint32_t address, uint16_t port) {
    if (size != sizeof(struct sockaddr_in)) return -1;
    struct sockaddr_in *socket_address = storage;
    memset(socket_address, 0, sizeof *socket_address);
#if defined(__APPLE__)
    socket_address->sin_len = (uint8_t)sizeof *socket_address;
#endif
    socket_address->sin_family = AF_INET;
    socket_address->sin_port = htons(port);
    socket_address->sin_addr.s_addr = address;
    return 0;
}

long clab_read_own_memory(const void *address, void *buffer, unsigned long length) {
#if defined(__linux__)
    struct iovec local = {buffer, length};
    struct iovec remote = {(void *)address, length};
    ssize_t copied = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    return copied < 0 ? -1 : (long)copied;
#elif defined(__APPLE__)
    vm_size_t copied = 0;
    kern_return_t kr = vm_read_overwrite(mach_task_self(), (vm_address_t)(uintptr_t)address, (vm_size_t)length,
                                         (vm_address_t)(uintptr_t)buffer, &copied);
    return kr == KERN_SUCCESS ? (long)copied : -1;
#else
    (void)address; (void)buffer; (void)length;
    return -1;
#endif
}
