// Processes: the machine's process table, spawning a child, and a child dying with its parent.
#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include "CLabPlatform.h"
#include "ReadSmallFile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/prctl.h>
#elif defined(__APPLE__)
#include <libproc.h>
#include <sys/event.h>
#include <sys/proc.h>
#include <sys/proc_info.h>
#include <sys/sysctl.h>
#endif

// MARK: - The process table

int clab_join_procargs2(const char *buffer, unsigned long length, char *command, unsigned long size) {
    if (size == 0) return -1;
    command[0] = 0;
    if (length < sizeof(int)) return -1;
    int argc;
    memcpy(&argc, buffer, sizeof argc);
    const char *p = buffer + sizeof argc, *end = buffer + length;
    while (p < end && *p != 0) p++;        // the executable path
    while (p < end && *p == 0) p++;        // its padding
    size_t used = 0;
    for (int i = 0; i < argc && p < end; i++) {
        size_t n = strnlen(p, (size_t)(end - p));
        if (used > 0 && used + 1 < size) command[used++] = ' ';
        size_t copy = n < size - 1 - used ? n : size - 1 - used;
        memcpy(command + used, p, copy);
        used += copy;
        p += n + 1;
    }
    command[used] = 0;
    return 0;
}

#if defined(__linux__)

long clab_processes(clab_process_entry *out, long capacity) {
    DIR *dir = opendir("/proc");
    if (!dir) return -1;
    long written = 0;
    struct dirent *entry;
    while (written < capacity && (entry = readdir(dir)) != NULL) {
        char *end;
        long pid = strtol(entry->d_name, &end, 10);
        if (*end != 0 || pid <= 0) continue;
        char path[64], stat[1024];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        if (clab_read_small_file(path, stat, sizeof stat) <= 0) continue;   // gone meanwhile
        // `pid (comm) S ppid ...`: comm may hold spaces and parentheses.
        const char *close = strrchr(stat, ')');
        if (!close || close[1] != ' ' || close[2] == 0 || close[3] != ' ') continue;
        char *parent_end;
        long parent = strtol(close + 4, &parent_end, 10);
        if (parent_end == close + 4) continue;
        clab_process_entry *process = &out[written++];
        process->pid = (int32_t)pid;
        process->parent = (int32_t)parent;
        process->state = close[2];
        snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
        long n = clab_read_small_file(path, process->command, sizeof process->command);
        if (n < 0) n = 0;
        for (long i = 0; i < n; i++) if (process->command[i] == 0) process->command[i] = ' ';
        while (n > 0 && process->command[n - 1] == ' ') n--;
        process->command[n] = 0;
    }
    closedir(dir);
    return written;
}

#elif defined(__APPLE__)

static char clab_bsd_state(uint32_t status) {
    switch (status) {
    case SRUN: return 'R';
    case SSLEEP: return 'S';
    case SSTOP: return 'T';
    case SZOMB: return 'Z';
    default: return '?';
    }
}

/// The arguments of `pid` joined by spaces, read into `buffer` (`capacity` bytes, KERN_ARGMAX).
/// Same user only.
static int clab_process_arguments(pid_t pid, char *buffer, size_t capacity, char *command, size_t size) {
    int mib[3] = {CTL_KERN, KERN_PROCARGS2, pid};
    size_t length = capacity;
    if (sysctl(mib, 3, buffer, &length, NULL, 0) != 0) return -1;
    return clab_join_procargs2(buffer, length, command, size);
}

long clab_processes(clab_process_entry *out, long capacity) {
    int room = proc_listallpids(NULL, 0);
    if (room <= 0) return -1;
    room += 64;
    pid_t *pids = calloc((size_t)room, sizeof(pid_t));
    if (!pids) return -1;
    int count = proc_listallpids(pids, room * (int)sizeof(pid_t));
    if (count <= 0) {
        free(pids);
        return -1;
    }
    // One buffer for every process's arguments, as large as the kernel allows them to be.
    int argmax = 0;
    size_t length = sizeof argmax;
    int mib[2] = {CTL_KERN, KERN_ARGMAX};
    char *arguments = NULL;
    if (sysctl(mib, 2, &argmax, &length, NULL, 0) == 0 && argmax > 0) arguments = malloc((size_t)argmax);
    long written = 0;
    for (int i = 0; i < count && written < capacity; i++) {
        if (pids[i] <= 0) continue;
        clab_process_entry *process = &out[written];
        struct proc_bsdinfo info;
        struct proc_bsdshortinfo short_info;
        if (proc_pidinfo(pids[i], PROC_PIDTBSDINFO, 0, &info, (int)sizeof info) == (int)sizeof info) {
            process->parent = (int32_t)info.pbi_ppid;
            process->state = clab_bsd_state(info.pbi_status);
            snprintf(process->command, sizeof process->command, "%s", info.pbi_comm);
        } else if (proc_pidinfo(pids[i], PROC_PIDT_SHORTBSDINFO, 0, &short_info, (int)sizeof short_info) == (int)sizeof short_info) {
            // Another user's process: the short form needs no permission.
            process->parent = (int32_t)short_info.pbsi_ppid;
            process->state = clab_bsd_state(short_info.pbsi_status);
            snprintf(process->command, sizeof process->command, "%s", short_info.pbsi_comm);
        } else {
            continue;   // gone meanwhile
        }
        process->pid = pids[i];
        if (process->state == 'Z') process->command[0] = 0;
        else if (arguments) (void)clab_process_arguments(pids[i], arguments, (size_t)argmax, process->command, sizeof process->command);
        written++;
    }
    free(arguments);
    free(pids);
    return written;
}

#else
long clab_processes(clab_process_entry *out, long capacity) { (void)out; (void)capacity; return -1; }
#endif

// MARK: - Spawning

int clab_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[], int stdout_fd, int stderr_fd) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int code = posix_spawn_file_actions_init(&actions);
    if (code != 0) return code;
    code = posix_spawnattr_init(&attributes);
    if (code != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return code;
    }
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    int reset[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGCHLD, SIGQUIT, SIGTSTP, SIGCONT};
    for (size_t i = 0; i < sizeof reset / sizeof reset[0]; i++) sigaddset(&defaults, reset[i]);
    if ((code = posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)) == 0
        && (code = posix_spawn_file_actions_adddup2(&actions, stdout_fd, 1)) == 0
        && (code = posix_spawn_file_actions_adddup2(&actions, stderr_fd, 2)) == 0
        && (code = posix_spawnattr_setpgroup(&attributes, 0)) == 0
        && (code = posix_spawnattr_setsigmask(&attributes, &none)) == 0
        && (code = posix_spawnattr_setsigdefault(&attributes, &defaults)) == 0
        && (code = posix_spawnattr_setflags(&attributes, (short)(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))) == 0) {
        code = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    }
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    return code;
}

// MARK: - Children the kernel reaps

int clab_children_reaped_by_kernel(void) {
    struct sigaction current;
    if (sigaction(SIGCHLD, NULL, &current) != 0) return 0;
    if (current.sa_flags & SA_NOCLDWAIT) return 1;
    return !(current.sa_flags & SA_SIGINFO) && current.sa_handler == SIG_IGN;
}

static struct sigaction clab_sigchld_before;
static int clab_sigchld_changed;

int clab_sigchld_discard_status(int no_cld_wait) {
    if (clab_sigchld_changed) return -1;
    struct sigaction discard;
    memset(&discard, 0, sizeof discard);
    sigemptyset(&discard.sa_mask);
    discard.sa_handler = no_cld_wait ? SIG_DFL : SIG_IGN;
    discard.sa_flags = no_cld_wait ? SA_NOCLDWAIT : 0;
    if (sigaction(SIGCHLD, &discard, &clab_sigchld_before) != 0) return -1;
    clab_sigchld_changed = 1;
    return 0;
}

int clab_sigchld_restore(void) {
    if (!clab_sigchld_changed) return -1;
    if (sigaction(SIGCHLD, &clab_sigchld_before, NULL) != 0) return -1;
    clab_sigchld_changed = 0;
    return 0;
}

// MARK: - Dying with the parent

#if defined(__APPLE__)
struct clab_lifeline {
    pid_t parent;
    int status;
    int queue;   // a kqueue watching the parent, or -1 to poll getppid
};

static void *clab_lifeline_main(void *raw) {
    struct clab_lifeline lifeline = *(struct clab_lifeline *)raw;
    free(raw);
    pthread_setname_np("lab.lifeline");
    if (lifeline.queue >= 0) {
        struct kevent event;
        for (;;) {
            int n = kevent(lifeline.queue, NULL, 0, &event, 1, NULL);
            if (n > 0) _exit(lifeline.status);
            if (n < 0 && errno != EINTR) break;   // fall back on polling
        }
    }
    struct timespec tenth = {0, 100000000L};
    while (getppid() == lifeline.parent) nanosleep(&tenth, NULL);
    _exit(lifeline.status);
}
#endif

int clab_die_with_parent(pid_t parent, int status) {
#if defined(__linux__)
    (void)status;
    if (prctl(PR_SET_PDEATHSIG, (unsigned long)SIGKILL, 0UL, 0UL, 0UL) != 0) return -1;
    // The parent may have gone before the request: then no signal will ever come.
    if (getppid() != parent) _exit(status);
    return 0;
#elif defined(__APPLE__)
    struct clab_lifeline *lifeline = malloc(sizeof *lifeline);
    if (!lifeline) return -1;
    lifeline->parent = parent;
    lifeline->status = status;
    lifeline->queue = kqueue();
    if (lifeline->queue >= 0) {
        (void)fcntl(lifeline->queue, F_SETFD, FD_CLOEXEC);
        struct kevent watch;
        EV_SET(&watch, (uintptr_t)parent, EVFILT_PROC, EV_ADD | EV_ONESHOT, NOTE_EXIT, 0, NULL);
        if (kevent(lifeline->queue, &watch, 1, NULL, 0, NULL) != 0) {
            if (errno == ESRCH) _exit(status);   // the parent is already gone
            close(lifeline->queue);
            lifeline->queue = -1;
        }
    }
    if (getppid() != parent) _exit(status);
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    int code = pthread_create(&thread, &attributes, clab_lifeline_main, lifeline);
    pthread_attr_destroy(&attributes);
    if (code != 0) {
        if (lifeline->queue >= 0) close(lifeline->queue);
        free(lifeline);
        return -1;
    }
    return 0;
#else
    (void)parent; (void)status;
    return -1;
#endif
}

// A copy of a test binary that a hung test's process relaunched for the rest of the run
// (`SuiteContinuation`) is told its parent in LAB_HARNESS_CONTINUATION_PARENT, and dies with it
// from before `main`: its tests may never call the harness, and its budget is kept by that
// parent, so a copy left behind when the runner kills its parent would run on alone for good.
// The variable is removed here, so no process the copy starts (an exit test's child, a tool)
// takes that parent for its own.
__attribute__((constructor)) static void clab_continuation_dies_with_its_parent(void) {
    const char *text = getenv("LAB_HARNESS_CONTINUATION_PARENT");
    if (text == NULL) return;
    char *end = NULL;
    long parent = strtol(text, &end, 10);
    int valid = end != text && *end == '\0' && parent > 1;
    (void)unsetenv("LAB_HARNESS_CONTINUATION_PARENT");
    if (valid) (void)clab_die_with_parent((pid_t)parent, 70);
}
