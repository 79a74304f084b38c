// Threads: listing, counting and naming them, joinable threads, and "on time" scheduling.
#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include "CLabPlatform.h"
#include "ReadSmallFile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__APPLE__)
#include <libproc.h>
#include <mach/mach.h>
#include <mach/mach_time.h>
#include <mach/thread_policy.h>
#include <pthread/qos.h>
#include <sys/proc_info.h>
#endif

static void clab_copy_name(char *to, unsigned long size, const char *from) {
    if (size == 0) return;
    size_t n = strnlen(from, size - 1);
    memcpy(to, from, n);
    to[n] = 0;
    while (n > 0 && (to[n - 1] == '\n')) to[--n] = 0;
}

static int clab_compare_entries(const void *a, const void *b) {
    int64_t x = ((const clab_thread_entry *)a)->id, y = ((const clab_thread_entry *)b)->id;
    return (x > y) - (x < y);
}

static int clab_compare_ids(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

char clab_stat_line_state(const char *line) {
    const char *close = strrchr(line, ')');
    if (!close || close[1] != ' ' || close[2] == 0) return '?';
    switch (close[2]) {
    case 'R': return 'R';
    case 'S': case 'I': return 'S';
    case 'D': return 'D';
    case 'T': case 't': return 'T';
    case 'Z': case 'X': return 'Z';
    default: return '?';
    }
}

long clab_stat_line_thread_count(const char *line) {
    // Fields after ')': 3 state, 4 ppid, ... 20 num_threads.
    const char *p = strrchr(line, ')');
    if (!p) return -1;
    p++;
    for (int field = 3; field < 20; field++) {
        p = strchr(p + 1, ' ');
        if (!p) return -1;
    }
    char *end;
    long value = strtol(p + 1, &end, 10);
    return end == p + 1 ? -1 : value;
}

#if defined(__linux__)

static int clab_compare_longs(const void *a, const void *b) {
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

/// One walk of `dir` from its start: at most `capacity` ids, sorted.
static long clab_walk_task_ids(DIR *dir, long *out, long capacity) {
    rewinddir(dir);
    long written = 0;
    struct dirent *entry;
    while (written < capacity && (entry = readdir(dir)) != NULL) {
        char *end;
        long tid = strtol(entry->d_name, &end, 10);
        if (*end == 0 && tid > 0) out[written++] = tid;
    }
    qsort(out, (size_t)written, sizeof *out, clab_compare_longs);
    return written;
}

/// The thread ids listed in a `/proc/.../task` directory, at most `capacity` of them, sorted;
/// -1 when it cannot be opened (the process is gone).
///
/// One walk of that directory can miss live threads: the kernel's `next_tid` (fs/proc/base.c)
/// ends the walk when the thread it stands on has exited meanwhile, and the rest is resumed by
/// position, which the exits have shifted, so threads later in the list, the newest ones, go
/// unlisted (`ThreadListingChurnTests`: 1 to 3 listings in 7,000 missed a live thread while
/// older threads exited). A walk cut that way lists a thread the next walk no longer finds, so
/// walks in a row that agree are whole; but two in a row can be cut alike, and agree: with
/// two, 1 listing in 2,835 still missed a live thread in a CI run (none in 39,000 here since,
/// quiet or beside three CPU hogs, so three is a margin, not a measured cure). The directory
/// is walked until three in a row agree, at most sixteen times, and under churn that never
/// settles the union of the walks is returned (it can hold a thread that has exited since;
/// never miss one that lived throughout).
static long clab_task_ids(const char *directory, long *out, long capacity) {
    DIR *dir = opendir(directory);
    if (!dir) return -1;
    long *walk = capacity > 0 ? malloc((size_t)capacity * sizeof *walk) : NULL;
    long *previous = capacity > 0 ? malloc((size_t)capacity * sizeof *previous) : NULL;
    long written = 0;
    if (!walk || !previous) {
        written = clab_walk_task_ids(dir, out, capacity);
    } else {
        long before = -1;
        int agreeing = 0;
        for (int attempt = 0; attempt < 16; attempt++) {
            long n = clab_walk_task_ids(dir, walk, capacity);
            agreeing = n == before && memcmp(walk, previous, (size_t)n * sizeof *walk) == 0 ? agreeing + 1 : 0;
            if (agreeing == 2) {
                memcpy(out, walk, (size_t)n * sizeof *walk);
                written = n;
                break;
            }
            // The union so far, kept sorted: add what this walk found that it lacked.
            long known = written;
            for (long i = 0; i < n && written < capacity; i++) {
                if (!bsearch(&walk[i], out, (size_t)known, sizeof *out, clab_compare_longs)) out[written++] = walk[i];
            }
            qsort(out, (size_t)written, sizeof *out, clab_compare_longs);
            long *swap = previous; previous = walk; walk = swap;
            before = n;
        }
    }
    free(walk);
    free(previous);
    closedir(dir);
    return written;
}

long clab_threads(pid_t pid, clab_thread_entry *out, long capacity) {
    char directory[64];
    if (pid > 0) snprintf(directory, sizeof directory, "/proc/%d/task", (int)pid);
    else snprintf(directory, sizeof directory, "/proc/self/task");
    long *tids = capacity > 0 ? malloc((size_t)capacity * sizeof *tids) : NULL;
    if (capacity > 0 && !tids) return -1;
    long listed = clab_task_ids(directory, tids, capacity);
    if (listed < 0) {
        free(tids);
        return -1;
    }
    long written = 0;
    for (long i = 0; i < listed; i++) {
        long tid = tids[i];
        char path[96], text[1024];
        snprintf(path, sizeof path, "%s/%ld/stat", directory, tid);
        if (clab_read_small_file(path, text, sizeof text) <= 0) continue;   // ended meanwhile
        clab_thread_entry *thread = &out[written++];
        thread->id = tid;
        thread->state = clab_stat_line_state(text);
        snprintf(path, sizeof path, "%s/%ld/comm", directory, tid);
        char comm[64];
        if (clab_read_small_file(path, comm, sizeof comm) > 0) {
            clab_copy_name(thread->name, sizeof thread->name, comm);
        } else {
            const char *open = strchr(text, '('), *close = strrchr(text, ')');
            size_t n = (open && close && close > open) ? (size_t)(close - open - 1) : 0;
            if (n >= sizeof thread->name) n = sizeof thread->name - 1;
            if (n > 0) memcpy(thread->name, open + 1, n);
            thread->name[n] = 0;
        }
    }
    free(tids);
    qsort(out, (size_t)written, sizeof *out, clab_compare_entries);
    return written;
}

long clab_thread_count(pid_t pid) {
    char path[64], text[1024];
    if (pid > 0) snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    else snprintf(path, sizeof path, "/proc/self/stat");
    if (clab_read_small_file(path, text, sizeof text) <= 0) return -1;
    return clab_stat_line_thread_count(text);
}

long clab_thread_ids(uint64_t *out, long capacity) {
    long *tids = capacity > 0 ? malloc((size_t)capacity * sizeof *tids) : NULL;
    if (capacity > 0 && !tids) return -1;
    long written = clab_task_ids("/proc/self/task", tids, capacity);
    for (long i = 0; i < written; i++) out[i] = (uint64_t)tids[i];
    free(tids);
    if (written < 0) return -1;
    qsort(out, (size_t)written, sizeof *out, clab_compare_ids);
    return written;
}

int clab_thread_name_of(uint64_t id, char *buffer, unsigned long size) {
    char path[64], comm[64];
    snprintf(path, sizeof path, "/proc/self/task/%llu/comm", (unsigned long long)id);
    if (clab_read_small_file(path, comm, sizeof comm) <= 0) return -1;
    clab_copy_name(buffer, size, comm);
    return 0;
}

#elif defined(__APPLE__)

static char clab_mach_state(int run_state) {
    switch (run_state) {
    case TH_STATE_RUNNING: return 'R';
    case TH_STATE_STOPPED: return 'T';
    case TH_STATE_WAITING: case TH_STATE_HALTED: return 'S';
    case TH_STATE_UNINTERRUPTIBLE: return 'D';
    default: return '?';
    }
}

/// This task's thread ports; release them with `clab_release_threads`.
static int clab_own_threads(thread_act_array_t *list, mach_msg_type_number_t *count) {
    return task_threads(mach_task_self(), list, count) == KERN_SUCCESS ? 0 : -1;
}

static void clab_release_threads(thread_act_array_t list, mach_msg_type_number_t count) {
    for (mach_msg_type_number_t i = 0; i < count; i++) mach_port_deallocate(mach_task_self(), list[i]);
    vm_deallocate(mach_task_self(), (vm_address_t)list, count * sizeof(thread_act_t));
}

/// The kernel's never-reused 64-bit id for `port` (THREAD_IDENTIFIER_INFO); 0 if it will not say.
static uint64_t clab_port_thread_id(thread_act_t port) {
    thread_identifier_info_data_t info;
    mach_msg_type_number_t count = THREAD_IDENTIFIER_INFO_COUNT;
    if (thread_info(port, THREAD_IDENTIFIER_INFO, (thread_info_t)&info, &count) != KERN_SUCCESS) return 0;
    return info.thread_id;
}

static int clab_port_extended(thread_act_t port, thread_extended_info_data_t *info) {
    mach_msg_type_number_t count = THREAD_EXTENDED_INFO_COUNT;
    return thread_info(port, THREAD_EXTENDED_INFO, (thread_info_t)info, &count) == KERN_SUCCESS ? 0 : -1;
}

long clab_threads(pid_t pid, clab_thread_entry *out, long capacity) {
    long written = 0;
    if (pid <= 0 || pid == getpid()) {
        thread_act_array_t list;
        mach_msg_type_number_t count;
        if (clab_own_threads(&list, &count) != 0) return -1;
        for (mach_msg_type_number_t i = 0; i < count && written < capacity; i++) {
            clab_thread_entry *thread = &out[written];
            thread_extended_info_data_t info;
            uint64_t id = clab_port_thread_id(list[i]);
            if (id == 0) continue;
            thread->id = (int64_t)id;
            if (clab_port_extended(list[i], &info) == 0) {
                thread->state = clab_mach_state(info.pth_run_state);
                clab_copy_name(thread->name, sizeof thread->name, info.pth_name);
            } else {
                thread->state = '?';
                thread->name[0] = 0;
            }
            written++;
        }
        clab_release_threads(list, count);
    } else {
        // Another process: libproc, which answers for processes of the same user without the
        // task port that task_threads would need (task_for_pid needs privileges).
        uint64_t handles[1024];
        int bytes = proc_pidinfo(pid, PROC_PIDLISTTHREADS, 0, handles, (int)sizeof handles);
        if (bytes <= 0) return -1;
        int count = bytes / (int)sizeof(uint64_t);
        for (int i = 0; i < count && written < capacity; i++) {
            struct proc_threadinfo info;
            if (proc_pidinfo(pid, PROC_PIDTHREADINFO, handles[i], &info, (int)sizeof info) != (int)sizeof info) continue;
            clab_thread_entry *thread = &out[written++];
            thread->id = (int64_t)handles[i];
            thread->state = clab_mach_state(info.pth_run_state);
            clab_copy_name(thread->name, sizeof thread->name, info.pth_name);
        }
    }
    qsort(out, (size_t)written, sizeof *out, clab_compare_entries);
    return written;
}

long clab_thread_count(pid_t pid) {
    if (pid <= 0 || pid == getpid()) {
        thread_act_array_t list;
        mach_msg_type_number_t count;
        if (clab_own_threads(&list, &count) != 0) return -1;
        clab_release_threads(list, count);
        return (long)count;
    }
    struct proc_taskinfo info;
    if (proc_pidinfo(pid, PROC_PIDTASKINFO, 0, &info, (int)sizeof info) != (int)sizeof info) return -1;
    return info.pti_threadnum;
}

long clab_thread_ids(uint64_t *out, long capacity) {
    thread_act_array_t list;
    mach_msg_type_number_t count;
    if (clab_own_threads(&list, &count) != 0) return -1;
    long written = 0;
    for (mach_msg_type_number_t i = 0; i < count && written < capacity; i++) {
        uint64_t id = clab_port_thread_id(list[i]);
        if (id != 0) out[written++] = id;
    }
    clab_release_threads(list, count);
    qsort(out, (size_t)written, sizeof *out, clab_compare_ids);
    return written;
}

int clab_thread_name_of(uint64_t id, char *buffer, unsigned long size) {
    thread_act_array_t list;
    mach_msg_type_number_t count;
    if (clab_own_threads(&list, &count) != 0) return -1;
    int found = -1;
    for (mach_msg_type_number_t i = 0; i < count && found != 0; i++) {
        thread_extended_info_data_t info;
        if (clab_port_thread_id(list[i]) == id && clab_port_extended(list[i], &info) == 0) {
            clab_copy_name(buffer, size, info.pth_name);
            found = 0;
        }
    }
    clab_release_threads(list, count);
    return found;
}

#else
long clab_threads(pid_t pid, clab_thread_entry *out, long capacity) { (void)pid; (void)out; (void)capacity; return -1; }
long clab_thread_count(pid_t pid) { (void)pid; return -1; }
long clab_thread_ids(uint64_t *out, long capacity) { (void)out; (void)capacity; return -1; }
int clab_thread_name_of(uint64_t id, char *buffer, unsigned long size) { (void)id; (void)buffer; (void)size; return -1; }
#endif

// MARK: - Joinable threads

struct clab_thread {
    pthread_t handle;
    void (*body)(void *);
    void *argument;
};

static void *clab_thread_main(void *raw) {
    struct clab_thread *thread = raw;
    thread->body(thread->argument);
    return NULL;
}

int clab_thread_start(clab_thread **out, void (*body)(void *argument), void *argument) {
    struct clab_thread *thread = calloc(1, sizeof *thread);
    if (!thread) return ENOMEM;
    thread->body = body;
    thread->argument = argument;
    int code = pthread_create(&thread->handle, NULL, clab_thread_main, thread);
    if (code != 0) {
        free(thread);
        return code;
    }
    *out = thread;
    return 0;
}

int clab_thread_join(clab_thread *thread) {
    int code = pthread_join(thread->handle, NULL);
    free(thread);
    return code;
}

// MARK: - "On time" threads

clab_on_time_answer clab_request_on_time(int fifo_priority) {
    clab_on_time_answer answer;
    memset(&answer, 0, sizeof answer);
#if defined(__APPLE__)
    (void)fifo_priority;
    // SCHED_FIFO would be accepted here but maps to a fixed Mach priority far below the
    // default: a demotion. The time-constraint policy asks for `computation` of CPU within
    // `constraint` of each wake-up; xnu raises computation to constraint / 2 if lower.
    mach_timebase_info_data_t timebase;
    if (mach_timebase_info(&timebase) != KERN_SUCCESS || timebase.numer == 0) {
        timebase.numer = 1;
        timebase.denom = 1;
    }
    const int computation_us = 1000, constraint_us = 2000;
    thread_time_constraint_policy_data_t policy;
    policy.period = 0;
    policy.computation = (uint32_t)((uint64_t)computation_us * 1000 * timebase.denom / timebase.numer);
    policy.constraint = (uint32_t)((uint64_t)constraint_us * 1000 * timebase.denom / timebase.numer);
    policy.preemptible = TRUE;
    kern_return_t result = thread_policy_set(pthread_mach_thread_np(pthread_self()), THREAD_TIME_CONSTRAINT_POLICY,
                                             (thread_policy_t)&policy, THREAD_TIME_CONSTRAINT_POLICY_COUNT);
    if (result == KERN_SUCCESS) {
        answer.kind = CLAB_ON_TIME_TIME_CONSTRAINT;
        answer.computation_us = computation_us;
        answer.constraint_us = constraint_us;
        return answer;
    }
    answer.error = result;
    if (pthread_set_qos_class_self_np(QOS_CLASS_USER_INTERACTIVE, 0) == 0) {
        answer.kind = CLAB_ON_TIME_USER_INTERACTIVE;
        return answer;
    }
    answer.kind = CLAB_ON_TIME_REFUSED;
    return answer;
#else
    struct sched_param parameters;
    memset(&parameters, 0, sizeof parameters);
    parameters.sched_priority = fifo_priority;
    int code = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameters);
    if (code == 0) {
        answer.kind = CLAB_ON_TIME_FIFO;
        answer.priority = fifo_priority;
    } else {
        answer.kind = CLAB_ON_TIME_REFUSED;
        answer.error = code;
    }
    return answer;
#endif
}

clab_on_time_kind clab_current_on_time(int *priority) {
    *priority = 0;
#if defined(__APPLE__)
    thread_time_constraint_policy_data_t policy;
    mach_msg_type_number_t count = THREAD_TIME_CONSTRAINT_POLICY_COUNT;
    boolean_t get_default = FALSE;
    if (thread_policy_get(pthread_mach_thread_np(pthread_self()), THREAD_TIME_CONSTRAINT_POLICY,
                          (thread_policy_t)&policy, &count, &get_default) == KERN_SUCCESS && !get_default) {
        return CLAB_ON_TIME_TIME_CONSTRAINT;
    }
    qos_class_t qos = QOS_CLASS_UNSPECIFIED;
    if (pthread_get_qos_class_np(pthread_self(), &qos, NULL) == 0 && qos == QOS_CLASS_USER_INTERACTIVE) {
        return CLAB_ON_TIME_USER_INTERACTIVE;
    }
    return CLAB_ON_TIME_REFUSED;
#else
    int policy = 0;
    struct sched_param parameters;
    memset(&parameters, 0, sizeof parameters);
    if (pthread_getschedparam(pthread_self(), &policy, &parameters) != 0 || policy != SCHED_FIFO) return CLAB_ON_TIME_REFUSED;
    *priority = parameters.sched_priority;
    return CLAB_ON_TIME_FIFO;
#endif
}
