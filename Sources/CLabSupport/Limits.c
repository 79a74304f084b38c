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
#include <sys/socket.h>

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

// File descriptors. Foundation's URLSession (libcurl) and libdispatch trap on a descriptor they
// could not create, often with no message, so a trial at its RLIMIT_NOFILE dies by SIGILL like
// a program's own bug. The calls that create descriptors below stand in front of the C
// library's (as pthread_create does), forward every call unchanged, count the EMFILE/ENFILE
// failures, and, in a trial child that asked for it, say so on stderr at once with write(2)
// (the trap that follows leaves no time for anything later), in the line the parent reads
// (MachineCheck.fromChildStderr).
static atomic_llong descriptor_failures;
static atomic_int descriptor_telling;
static atomic_int descriptor_told;

void clab_tell_descriptor_failures(void) { atomic_store(&descriptor_telling, 1); }
long long clab_descriptor_failures(void) { return atomic_load(&descriptor_failures); }

static void descriptor_failed(const char *call) {
    int saved = errno;
    atomic_fetch_add(&descriptor_failures, 1);
    if (atomic_load(&descriptor_telling) && !atomic_exchange(&descriptor_told, 1)) {
        char line[256];
        long long limit = own_limit(RLIMIT_NOFILE);
        int length = limit > 0
            ? snprintf(line, sizeof line, "lab: the machine: no file descriptor could be opened (%s: %s; RLIMIT_NOFILE %lld)\n",
                       call, saved == EMFILE ? "EMFILE" : "ENFILE", limit)
            : snprintf(line, sizeof line, "lab: the machine: no file descriptor could be opened (%s: %s)\n",
                       call, saved == EMFILE ? "EMFILE" : "ENFILE");
        if (length > 0) { ssize_t ignored = write(2, line, (size_t)length); (void)ignored; }
    }
    errno = saved;
}

#define CLAB_FORWARD(name, ret, params, args)                                                  \
    extern ret __interceptor_##name params __attribute__((weak));                              \
    ret name params {                                                                          \
        static ret (*_Atomic real) params;                                                     \
        ret (*next) params = atomic_load(&real);                                               \
        if (!next) {                                                                           \
            next = __interceptor_##name ? __interceptor_##name : (ret (*) params)dlsym(RTLD_NEXT, #name); \
            if (!next) { errno = ENOSYS; return -1; }                                          \
            atomic_store(&real, next);                                                         \
        }                                                                                      \
        ret result = next args;                                                                \
        if (result < 0 && (errno == EMFILE || errno == ENFILE)) descriptor_failed(#name);     \
        return result;                                                                         \
    }

CLAB_FORWARD(socket, int, (int domain, int type, int protocol), (domain, type, protocol))
CLAB_FORWARD(socketpair, int, (int domain, int type, int protocol, int fds[2]), (domain, type, protocol, fds))
CLAB_FORWARD(pipe, int, (int fds[2]), (fds))
CLAB_FORWARD(pipe2, int, (int fds[2], int flags), (fds, flags))
CLAB_FORWARD(eventfd, int, (unsigned int initval, int flags), (initval, flags))
CLAB_FORWARD(epoll_create1, int, (int flags), (flags))
CLAB_FORWARD(dup, int, (int fd), (fd))
CLAB_FORWARD(accept, int, (int fd, struct sockaddr *address, socklen_t *length), (fd, address, length))
CLAB_FORWARD(accept4, int, (int fd, struct sockaddr *address, socklen_t *length, int flags), (fd, address, length, flags))

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

int clab_thread_uninterruptible(int pid, long tid) {
    char path[96], text[512], number[24];
    const char *who = pid == 0 ? "self" : NULL;
    if (!who) { snprintf(number, sizeof number, "%d", pid); who = number; }
    snprintf(path, sizeof path, "/proc/%s/task/%ld/stat", who, tid);
    if (clab_read_small_file(path, text, sizeof text) <= 0) return -1;
    // "tid (comm) S ...": the name may hold spaces and parentheses, so the state is the first
    // field after the last ')'.
    const char *close = strrchr(text, ')');
    if (!close || close[1] != ' ' || close[2] == '\0') return -1;
    return close[2] == 'D' ? 1 : 0;
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

// cgroups. A process's groups are listed in /proc/PID/cgroup, one "ID:CONTROLLERS:PATH" line
// per hierarchy: cgroup v1 names its controllers ("4:memory:/lab"), v2 is the line "0::/path".
// A v1 controller is mounted at /sys/fs/cgroup/CONTROLLERS (or /sys/fs/cgroup/NAME when
// several share a mount, "cpu,cpuacct"); inside a container without its own cgroup namespace
// the path names the host's group while the mount shows the container's own, so the mount's
// root is tried when the path is not there.

/// Whether `file` is readable in `group` under one of the two candidate `mounts`, or at the
/// mount's root (a container that sees the host's path); the first found goes to `out`, its
/// mount to `root`.
static int cgroup_probe(const char *const mounts[2], const char *group, const char *file,
                        char *out, size_t size, char *root, size_t rootSize) {
    char probe[1400];
    for (int m = 0; m < 2; m++) {
        for (int atRoot = 0; atRoot < 2; atRoot++) {
            snprintf(probe, sizeof probe, "%s%s/%s", mounts[m], atRoot ? "" : group, file);
            if (access(probe, R_OK) == 0) {
                snprintf(out, size, "%s%s", mounts[m], atRoot ? "" : group);
                snprintf(root, rootSize, "%s", mounts[m]);
                return 1;
            }
        }
    }
    return 0;
}

/// The directory of `pid`'s cgroup that holds `file` for `controller` (v1) or in the unified
/// hierarchy (v2), into `out`. Returns 1 (v1), 2 (v2) or 0 (none found). `root` gets the
/// mount point, so ancestors can be walked up to it.
static int cgroup_dir(int pid, const char *controller, const char *v1file, const char *v2file,
                      char *out, size_t size, char *root, size_t rootSize) {
    char path[64], text[4096];
    if (pid == 0) snprintf(path, sizeof path, "/proc/self/cgroup");
    else snprintf(path, sizeof path, "/proc/%d/cgroup", pid);
    if (clab_read_small_file(path, text, sizeof text) <= 0) return 0;
    char *v2path = NULL;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *first = strchr(line, ':');
        if (!first) continue;
        char *second = strchr(first + 1, ':');
        if (!second) continue;
        *second = 0;
        const char *controllers = first + 1, *group = second + 1;
        if (*controllers == 0 && strncmp(line, "0:", 2) == 0) { v2path = (char *)group; continue; }
        // Is `controller` one of this line's comma-separated controllers?
        size_t n = strlen(controller);
        const char *c = controllers;
        int found = 0;
        while (*c) {
            size_t length = strcspn(c, ",");
            if (length == n && strncmp(c, controller, n) == 0) { found = 1; break; }
            c += length;
            if (*c == ',') c++;
        }
        if (!found || !v1file) continue;
        char byControllers[300], byController[300];
        snprintf(byControllers, sizeof byControllers, "/sys/fs/cgroup/%s", controllers);
        snprintf(byController, sizeof byController, "/sys/fs/cgroup/%s", controller);
        const char *mounts[2] = {byControllers, byController};
        if (cgroup_probe(mounts, group, v1file, out, size, root, rootSize)) return 1;
    }
    const char *mounts[2] = {"/sys/fs/cgroup", "/sys/fs/cgroup/unified"};
    if (v2path && v2file && cgroup_probe(mounts, v2path, v2file, out, size, root, rootSize)) return 2;
    return 0;
}

/// The number in `file` of `directory` (or the number after `key` in it when `key` is set);
/// -1 for "max" or a v1 "unlimited" (a value of 2^62 or more), -2 when unreadable.
static long long cgroup_number(const char *directory, const char *file, const char *key) {
    char path[1500], text[4096];
    snprintf(path, sizeof path, "%s/%s", directory, file);
    if (clab_read_small_file(path, text, sizeof text) <= 0) return CLAB_LIMIT_UNKNOWN;
    if (key) {
        // Keys start a line: "oom_kill 3", "max 0".
        char pattern[64];
        snprintf(pattern, sizeof pattern, "\n%s", key);
        long long value = strncmp(text, key, strlen(key)) == 0 ? number_after(text, key) : number_after(text, pattern);
        return value < 0 ? CLAB_LIMIT_UNKNOWN : value;
    }
    if (strncmp(text, "max", 3) == 0) return CLAB_LIMIT_UNLIMITED;
    if (text[0] == '-' ) return CLAB_LIMIT_UNLIMITED;
    if (text[0] < '0' || text[0] > '9') return CLAB_LIMIT_UNKNOWN;
    long long value = strtoll(text, NULL, 10);
    return value >= (1LL << 62) ? CLAB_LIMIT_UNLIMITED : value;
}

/// The smallest limit in `file` from `directory` up to `root` (a parent's limit binds its
/// children); -1 when none is set, -2 when the group's own file is unreadable.
static long long cgroup_smallest(const char *directory, const char *root, const char *file) {
    char here[1400];
    snprintf(here, sizeof here, "%s", directory);
    long long smallest = CLAB_LIMIT_UNLIMITED;
    int first = 1;
    size_t rootLength = strlen(root);
    for (;;) {
        long long value = cgroup_number(here, file, NULL);
        if (first && value == CLAB_LIMIT_UNKNOWN) return CLAB_LIMIT_UNKNOWN;
        first = 0;
        if (value >= 0 && (smallest < 0 || value < smallest)) smallest = value;
        if (strlen(here) <= rootLength) break;
        char *slash = strrchr(here, '/');
        if (!slash || (size_t)(slash - here) < rootLength) break;
        *slash = 0;
    }
    return smallest;
}

int clab_cgroup_memory_version(int pid) {
    char directory[1400], root[600];
    return cgroup_dir(pid, "memory", "memory.oom_control", "memory.events", directory, sizeof directory, root, sizeof root);
}

long long clab_cgroup_oom_kills(int pid) {
    char directory[1400], root[600];
    int version = cgroup_dir(pid, "memory", "memory.oom_control", "memory.events", directory, sizeof directory, root, sizeof root);
    if (version == 0) return -1;
    long long kills = cgroup_number(directory, version == 1 ? "memory.oom_control" : "memory.events", "oom_kill ");
    return kills < 0 ? -1 : kills;
}

long long clab_cgroup_memory_limit(int pid) {
    char directory[1400], root[600];
    int version = cgroup_dir(pid, "memory", "memory.limit_in_bytes", "memory.max", directory, sizeof directory, root, sizeof root);
    if (version == 0) return CLAB_LIMIT_UNKNOWN;
    return cgroup_smallest(directory, root, version == 1 ? "memory.limit_in_bytes" : "memory.max");
}

long long clab_cgroup_memory_failcnt(int pid) {
    char directory[1400], root[600];
    int version = cgroup_dir(pid, "memory", "memory.failcnt", "memory.events", directory, sizeof directory, root, sizeof root);
    if (version == 0) return -1;
    long long count = version == 1 ? cgroup_number(directory, "memory.failcnt", NULL) : cgroup_number(directory, "memory.events", "max ");
    return count < 0 ? -1 : count;
}

long long clab_cgroup_pids_limit(int pid) {
    char directory[1400], root[600];
    if (cgroup_dir(pid, "pids", "pids.max", "pids.max", directory, sizeof directory, root, sizeof root) == 0) return CLAB_LIMIT_UNKNOWN;
    return cgroup_smallest(directory, root, "pids.max");
}

long long clab_cgroup_pids_current(int pid) {
    char directory[1400], root[600];
    if (cgroup_dir(pid, "pids", "pids.current", "pids.current", directory, sizeof directory, root, sizeof root) == 0) return -1;
    long long value = cgroup_number(directory, "pids.current", NULL);
    return value < 0 ? -1 : value;
}

long long clab_cgroup_pids_refused(int pid) {
    char directory[1400], root[600];
    if (cgroup_dir(pid, "pids", "pids.events", "pids.events", directory, sizeof directory, root, sizeof root) == 0) return -1;
    long long value = cgroup_number(directory, "pids.events", "max ");
    return value < 0 ? -1 : value;
}

int clab_cpu_affinity_count(void) {
    // Up to 4096 CPUs: a fixed cpu_set_t holds 1024, and sched_getaffinity fails with EINVAL
    // when the kernel's mask is larger than the buffer.
    for (int cpus = 1024; cpus <= 4096; cpus *= 2) {
        cpu_set_t *set = CPU_ALLOC(cpus);
        if (!set) return -1;
        size_t size = CPU_ALLOC_SIZE(cpus);
        CPU_ZERO_S(size, set);
        if (sched_getaffinity(0, size, set) == 0) {
            int count = CPU_COUNT_S(size, set);
            CPU_FREE(set);
            return count;
        }
        CPU_FREE(set);
        if (errno != EINVAL) return -1;
    }
    return -1;
}

double clab_cgroup_cpu_quota(void) {
    char directory[1400], root[600];
    int version = cgroup_dir(0, "cpu", "cpu.cfs_quota_us", "cpu.max", directory, sizeof directory, root, sizeof root);
    if (version == 0) return (double)CLAB_LIMIT_UNKNOWN;
    double smallest = -1;
    size_t rootLength = strlen(root);
    char here[1400];
    snprintf(here, sizeof here, "%s", directory);
    for (;;) {
        char path[1500], text[128];
        double cpus = -1;
        if (version == 1) {
            long long quota = -1, period = -1;
            snprintf(path, sizeof path, "%s/cpu.cfs_quota_us", here);
            if (clab_read_small_file(path, text, sizeof text) > 0) quota = strtoll(text, NULL, 10);
            snprintf(path, sizeof path, "%s/cpu.cfs_period_us", here);
            if (clab_read_small_file(path, text, sizeof text) > 0) period = strtoll(text, NULL, 10);
            if (quota > 0 && period > 0) cpus = (double)quota / (double)period;
        } else {
            snprintf(path, sizeof path, "%s/cpu.max", here);
            if (clab_read_small_file(path, text, sizeof text) > 0 && strncmp(text, "max", 3) != 0) {
                long long quota = 0, period = 0;
                if (sscanf(text, "%lld %lld", &quota, &period) == 2 && quota > 0 && period > 0) cpus = (double)quota / (double)period;
            }
        }
        if (cpus > 0 && (smallest < 0 || cpus < smallest)) smallest = cpus;
        if (strlen(here) <= rootLength) break;
        char *slash = strrchr(here, '/');
        if (!slash || (size_t)(slash - here) < rootLength) break;
        *slash = 0;
    }
    return smallest;
}

long long clab_cgroup_cpu_throttled_ns(int pid) {
    char directory[1400], root[600];
    int version = cgroup_dir(pid, "cpu", "cpu.stat", "cpu.stat", directory, sizeof directory, root, sizeof root);
    if (version == 0) return -1;
    if (version == 1) {
        long long ns = cgroup_number(directory, "cpu.stat", "throttled_time ");
        return ns < 0 ? -1 : ns;
    }
    long long us = cgroup_number(directory, "cpu.stat", "throttled_usec ");
    return us < 0 ? -1 : us * 1000;
}

long long clab_limit_cpu_seconds(int pid) {
    return pid == 0 ? own_limit(RLIMIT_CPU) : proc_limit(pid, "Max cpu time");
}

long long clab_limit_file_size(int pid) {
    return pid == 0 ? own_limit(RLIMIT_FSIZE) : proc_limit(pid, "Max file size");
}

long long clab_limit_open_files(int pid) {
    return pid == 0 ? own_limit(RLIMIT_NOFILE) : proc_limit(pid, "Max open files");
}

long long clab_process_open_files(int pid) {
    char path[64];
    if (pid == 0) snprintf(path, sizeof path, "/proc/self/fd");
    else snprintf(path, sizeof path, "/proc/%d/fd", pid);
    DIR *directory = opendir(path);
    if (!directory) return -1;
    long long count = 0;
    struct dirent *entry;
    while ((entry = readdir(directory)) != NULL) if (entry->d_name[0] != '.') count++;
    closedir(directory);
    // The directory stream's own descriptor is listed while it is read.
    return pid == 0 && count > 0 ? count - 1 : count;
}

int clab_process_state(int pid) {
    char path[64], text[1024];
    if (pid == 0) snprintf(path, sizeof path, "/proc/self/stat");
    else snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if (clab_read_small_file(path, text, sizeof text) <= 0) return -1;
    // "PID (COMM) S ...": the name may hold spaces and parentheses, so the state follows the last ')'.
    const char *close = strrchr(text, ')');
    if (!close || close[1] != ' ' || close[2] == 0) return -1;
    return (unsigned char)close[2];
}

int clab_cpu_online_count(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : -1;
}

int clab_prefer_oom_kill(int adjustment) {
    char text[32];
    if (clab_read_small_file("/proc/self/oom_score_adj", text, sizeof text) <= 0) return -1;
    if (strtol(text, NULL, 10) >= adjustment) return 0;
    int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    int length = snprintf(text, sizeof text, "%d", adjustment);
    ssize_t written = write(fd, text, (size_t)length);
    close(fd);
    return written == length ? 0 : -1;
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
int clab_thread_uninterruptible(int pid, long tid) {
    (void)pid; (void)tid;
    return -1;
}
int clab_low_cpu_class(int pid) {
    errno = 0;
    int nice = getpriority(PRIO_PROCESS, (id_t)pid);
    if (nice == -1 && errno != 0) return -1;
    return nice >= 15 ? 1 : 0;
}
long long clab_process_vm_peak(int pid) { (void)pid; (void)number_after; return -1; }
long long clab_cgroup_oom_kills(int pid) { (void)pid; return -1; }
long long clab_thread_create_failures(void) { return -1; }
// Darwin's two-level namespace: a definition here would not stand in front of libSystem's.
void clab_tell_descriptor_failures(void) {}
long long clab_descriptor_failures(void) { return -1; }
long long clab_cgroup_memory_limit(int pid) { (void)pid; return CLAB_LIMIT_UNKNOWN; }
long long clab_cgroup_memory_failcnt(int pid) { (void)pid; return -1; }
int clab_cgroup_memory_version(int pid) { (void)pid; return 0; }
long long clab_cgroup_pids_limit(int pid) { (void)pid; return CLAB_LIMIT_UNKNOWN; }
long long clab_cgroup_pids_current(int pid) { (void)pid; return -1; }
long long clab_cgroup_pids_refused(int pid) { (void)pid; return -1; }
// No affinity mask on Darwin (thread_policy_set's affinity tags are hints, not a mask): the
// caller falls back to the online count and says so.
int clab_cpu_affinity_count(void) { return -1; }
int clab_cpu_online_count(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : -1;
}
double clab_cgroup_cpu_quota(void) { return (double)CLAB_LIMIT_UNKNOWN; }
long long clab_cgroup_cpu_throttled_ns(int pid) { (void)pid; return -1; }
long long clab_limit_cpu_seconds(int pid) { return pid == 0 ? own_limit(RLIMIT_CPU) : CLAB_LIMIT_UNKNOWN; }
long long clab_limit_file_size(int pid) { return pid == 0 ? own_limit(RLIMIT_FSIZE) : CLAB_LIMIT_UNKNOWN; }
long long clab_limit_open_files(int pid) { return pid == 0 ? own_limit(RLIMIT_NOFILE) : CLAB_LIMIT_UNKNOWN; }
long long clab_process_open_files(int pid) { (void)pid; return -1; }
int clab_process_state(int pid) { (void)pid; return -1; }
// Darwin's jetsam is not steered from user space this way.
int clab_prefer_oom_kill(int adjustment) { (void)adjustment; return -1; }

#endif
