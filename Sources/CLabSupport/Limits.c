#define _GNU_SOURCE
#include "CLabLimits.h"
#include "ReadSmallFile.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

static long long own_limit(int resource) {
    struct rlimit limit;
    if (getrlimit(resource, &limit) != 0) return CLAB_LIMIT_UNKNOWN;
    if (limit.rlim_cur == RLIM_INFINITY) return CLAB_LIMIT_UNLIMITED;
    return (long long)limit.rlim_cur;
}

/// The number after `key` in `text` (spaces and tabs skipped), or -1.
static long long number_after(const char *text, const char *key) {
    const char *p = strstr(text, key);
    if (!p) return -1;
    p += strlen(key);
    while (*p == ' ' || *p == '\t') p++;
    if (*p < '0' || *p > '9') return -1;
    return strtoll(p, NULL, 10);
}

#if defined(__linux__)
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>

static atomic_llong thread_create_failures;

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

// A sanitizer runtime linked into the program (`swift build --sanitize=thread` or `=address`)
// defines its own pthread_create as a weak alias of this, which the definition below
// overrides; calls then go through this name, or the sanitizer would never see the thread
// start and ThreadSanitizer crashes at its first access (measured: exp-dance under
// --sanitize=thread died with a SEGV in the runtime before the forwarding went through here).
extern int __interceptor_pthread_create(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *)
    __attribute__((weak));

// Stands in front of the C library's pthread_create for the whole process, forwarding every
// call unchanged (to a sanitizer's interceptor when one is linked in): the only way to learn
// that libdispatch or Foundation failed to create a thread, since neither says so.
int pthread_create(pthread_t *thread, const pthread_attr_t *attributes, void *(*start)(void *), void *argument) {
    static _Atomic(pthread_create_fn) real;
    pthread_create_fn next = atomic_load(&real);
    if (!next) {
        next = __interceptor_pthread_create ? __interceptor_pthread_create
                                            : (pthread_create_fn)dlsym(RTLD_NEXT, "pthread_create");
        if (!next) return EAGAIN;
        atomic_store(&real, next);
    }
    int result = next(thread, attributes, start, argument);
    if (result == EAGAIN) atomic_fetch_add(&thread_create_failures, 1);
    return result;
}

long long clab_thread_create_failures(void) {
    return atomic_load(&thread_create_failures);
}

/// A soft limit from `/proc/PID/limits`, whose rows read `Max processes  12  12  processes`.
static long long proc_limit(int pid, const char *row) {
    char path[64], text[4096];
    snprintf(path, sizeof path, "/proc/%d/limits", pid);
    if (clab_read_small_file(path, text, sizeof text) <= 0) return CLAB_LIMIT_UNKNOWN;
    const char *p = strstr(text, row);
    if (!p) return CLAB_LIMIT_UNKNOWN;
    p += strlen(row);
    while (*p == ' ') p++;
    if (strncmp(p, "unlimited", 9) == 0) return CLAB_LIMIT_UNLIMITED;
    if (*p < '0' || *p > '9') return CLAB_LIMIT_UNKNOWN;
    return strtoll(p, NULL, 10);
}

long long clab_limit_nproc(int pid) {
    return pid == 0 ? own_limit(RLIMIT_NPROC) : proc_limit(pid, "Max processes");
}

long long clab_limit_address_space(int pid) {
    return pid == 0 ? own_limit(RLIMIT_AS) : proc_limit(pid, "Max address space");
}

long long clab_process_real_uid(int pid) {
    if (pid == 0) return (long long)getuid();
    char path[64], text[4096];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    if (clab_read_small_file(path, text, sizeof text) <= 0) return -1;
    return number_after(text, "\nUid:");
}

long long clab_user_task_count(long long uid) {
    DIR *proc = opendir("/proc");
    if (!proc) return -1;
    long long tasks = 0;
    struct dirent *entry;
    char path[300], text[4096];
    while ((entry = readdir(proc)) != NULL) {
        if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
        // The directory's owner is the process's effective user; the real one is read only
        // for those that match, so a scan of a few hundred processes stays cheap.
        struct stat info;
        snprintf(path, sizeof path, "/proc/%s", entry->d_name);
        if (stat(path, &info) != 0) continue;
        snprintf(path, sizeof path, "/proc/%s/status", entry->d_name);
        if ((long long)info.st_uid != uid) {
            // A process that changed only its effective user still counts for its real one.
            if (info.st_uid != 0) continue;
        }
        if (clab_read_small_file(path, text, sizeof text) <= 0) continue;
        if (number_after(text, "\nUid:") != uid) continue;
        long long threads = number_after(text, "\nThreads:");
        tasks += threads > 0 ? threads : 1;
    }
    closedir(proc);
    return tasks;
}

int clab_thread_schedstat(int pid, long tid, unsigned long long *on_cpu_ns, unsigned long long *waiting_ns) {
    char path[96], text[256];
    const char *who = pid == 0 ? "self" : NULL;
    char number[24];
    if (!who) { snprintf(number, sizeof number, "%d", pid); who = number; }
    if (tid == 0) snprintf(path, sizeof path, "/proc/%s/schedstat", who);
    else snprintf(path, sizeof path, "/proc/%s/task/%ld/schedstat", who, tid);
    if (clab_read_small_file(path, text, sizeof text) <= 0) return -1;
    unsigned long long run = 0, wait = 0;
    if (sscanf(text, "%llu %llu", &run, &wait) != 2) return -1;
    *on_cpu_ns = run;
    *waiting_ns = wait;
    return 0;
}

int clab_low_cpu_class(int pid) {
    int policy = sched_getscheduler(pid);
    if (policy < 0) return -1;
    if (policy == SCHED_IDLE) return 1;
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, (id_t)pid);
    if (nice == -1 && errno != 0) return -1;
    return nice >= 15 ? 1 : 0;
}

long long clab_process_vm_peak(int pid) {
    char path[64], text[4096];
    if (pid == 0) snprintf(path, sizeof path, "/proc/self/status");
    else snprintf(path, sizeof path, "/proc/%d/status", pid);
    if (clab_read_small_file(path, text, sizeof text) <= 0) return -1;
    long long kib = number_after(text, "\nVmPeak:");
    return kib < 0 ? -1 : kib * 1024;
}

/// This process's cgroup v2 directory under /sys/fs/cgroup, into `path`; 0 or -1.
static int own_cgroup(char *path, size_t size) {
    char text[1024];
    if (clab_read_small_file("/proc/self/cgroup", text, sizeof text) <= 0) return -1;
    const char *p = strstr(text, "0::");
    if (!p) return -1;
    p += 3;
    size_t length = strcspn(p, "\n");
    if (length == 0 || length > size - 32) return -1;
    snprintf(path, size, "/sys/fs/cgroup%.*s", (int)length, p);
    return 0;
}

long long clab_cgroup_oom_kills(void) {
    char directory[600], path[700], text[1024];
    if (own_cgroup(directory, sizeof directory) != 0) return -1;
    snprintf(path, sizeof path, "%s/memory.events", directory);
    if (clab_read_small_file(path, text, sizeof text) <= 0) return -1;
    const char *p = strstr(text, "oom_kill ");
    if (!p) return -1;
    return strtoll(p + 9, NULL, 10);
}

long long clab_cgroup_memory_limit(void) {
    char directory[600], path[700], text[64];
    if (own_cgroup(directory, sizeof directory) != 0) return CLAB_LIMIT_UNKNOWN;
    snprintf(path, sizeof path, "%s/memory.max", directory);
    if (clab_read_small_file(path, text, sizeof text) <= 0) return CLAB_LIMIT_UNKNOWN;
    if (strncmp(text, "max", 3) == 0) return CLAB_LIMIT_UNLIMITED;
    if (text[0] < '0' || text[0] > '9') return CLAB_LIMIT_UNKNOWN;
    return strtoll(text, NULL, 10);
}

#else

// Darwin: this process's own limits through getrlimit; nothing about other processes, no
// per-user task count (that would need libproc's proc_listallpids and PROC_PIDTASKINFO for
// each), no run-queue time, no cgroup. Each answers "unknown", and the lab then names no
// machine outcome from that figure.

long long clab_limit_nproc(int pid) { return pid == 0 ? own_limit(RLIMIT_NPROC) : CLAB_LIMIT_UNKNOWN; }
long long clab_limit_address_space(int pid) { return pid == 0 ? own_limit(RLIMIT_AS) : CLAB_LIMIT_UNKNOWN; }
long long clab_process_real_uid(int pid) { return pid == 0 ? (long long)getuid() : -1; }
long long clab_user_task_count(long long uid) { (void)uid; return -1; }
int clab_thread_schedstat(int pid, long tid, unsigned long long *on_cpu_ns, unsigned long long *waiting_ns) {
    (void)pid; (void)tid; (void)on_cpu_ns; (void)waiting_ns;
    return -1;
}
int clab_low_cpu_class(int pid) {
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, (id_t)pid);
    if (nice == -1 && errno != 0) return -1;
    return nice >= 15 ? 1 : 0;
}
long long clab_process_vm_peak(int pid) { (void)pid; (void)number_after; return -1; }
long long clab_cgroup_oom_kills(void) { return -1; }
long long clab_thread_create_failures(void) { return -1; }
long long clab_cgroup_memory_limit(void) { return CLAB_LIMIT_UNKNOWN; }

#endif
