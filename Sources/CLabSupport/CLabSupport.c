// Linux wants _GNU_SOURCE for pthread_getname_np/setname_np, gettid and pipe2. Darwin wants no
// feature macro at all: its <pthread.h> declares the naming calls only when _XOPEN_SOURCE is
// undefined or _DARWIN_C_SOURCE is defined (libpthread's pthread.h), so none is set there.
#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include "CLabSupport.h"
#include <fcntl.h>
#include <unistd.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>

long clab_task_dir_thread_count(int fd) {
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_nlink < 2) return -1;
    return (long)st.st_nlink - 2;
}

long clab_status_thread_count(int fd) {
    char buffer[4096];
    ssize_t n = pread(fd, buffer, sizeof buffer - 1, 0);
    if (n <= 0) return -1;
    buffer[n] = 0;
    const char *p = strstr(buffer, "\nThreads:");
    if (!p) return -1;
    p += 9;
    while (*p == ' ' || *p == '\t') p++;
    if (*p < '0' || *p > '9') return -1;
    long value = 0;
    while (*p >= '0' && *p <= '9') value = value * 10 + (*p++ - '0');
    return value;
}

int clab_open_pseudo_terminal(int *primary, int *secondary) {
    int p = posix_openpt(O_RDWR | O_NOCTTY);
    if (p < 0) return -1;
    if (grantpt(p) != 0 || unlockpt(p) != 0) { close(p); return -1; }
    const char *name = ptsname(p);
    int s = name ? open(name, O_RDWR | O_NOCTTY) : -1;
    if (s < 0) { close(p); return -1; }
    *primary = p;
    *secondary = s;
    return 0;
}
#if defined(__linux__)
#include <sys/prctl.h>
#include <signal.h>

int clab_set_parent_death_signal(int signal) {
    return prctl(PR_SET_PDEATHSIG, (unsigned long)signal, 0UL, 0UL, 0UL);
}

int clab_pipe_cloexec(int fds[2]) {
    return pipe2(fds, O_CLOEXEC);
}

int clab_current_thread_name(char *buffer, unsigned long size) {
    return pthread_getname_np(pthread_self(), buffer, size);
}

long clab_current_thread_id(void) {
    return (long)gettid();
}

int clab_set_current_thread_name(const char *name) {
    return pthread_setname_np(pthread_self(), name);
}
#else
int clab_current_thread_name(char *buffer, unsigned long size) {
    return pthread_getname_np(pthread_self(), buffer, size);
}

long clab_current_thread_id(void) {
    // The 64-bit id the kernel never reuses, the one THREAD_IDENTIFIER_INFO lists.
    uint64_t id = 0;
    return pthread_threadid_np(NULL, &id) == 0 ? (long)id : 0;
}

int clab_set_current_thread_name(const char *name) {
    return pthread_setname_np(name);
}

int clab_set_parent_death_signal(int signal) {
    (void)signal;
    return -1;
}

int clab_pipe_cloexec(int fds[2]) {
    if (pipe(fds) != 0) return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 0;
}
#endif
