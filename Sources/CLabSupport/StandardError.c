// Standard error passed on through a forwarding process while the harness keeps a copy, and the
// main thread's run loop where the main thread itself will never run it.
#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include "CLabPlatform.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/syscall.h>
#endif

#include "CLabSupport.h"
#include "ReadSmallFile.h"

// MARK: - Standard error, copied

/// Closes every descriptor from 3 up. Only system calls: it runs in a forked child of a
/// threaded process, where nothing that may allocate or lock is allowed.
static void close_from_three(void) {
#if defined(__linux__) && defined(SYS_close_range)
    if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return;
#endif
    struct rlimit limit;
    long highest = 4096;
    if (getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && (long)limit.rlim_cur < 65536) highest = (long)limit.rlim_cur;
    for (long fd = 3; fd < highest; fd++) (void)close((int)fd);
}

/// The forwarder's whole life: fd 0 is the pipe fd 2 now writes into, fd 1 the original
/// stderr, fd 2 the copy pipe (non-blocking). Every piece goes to the original first; the copy
/// is best effort. It ends at end of input (every writer gone), never earlier.
static void forward_until_end(void) {
    char buffer[8192];
    int copying = 1, passing = 1;
    for (;;) {
        ssize_t n = read(0, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) _exit(0);
        for (ssize_t done = 0; passing && done < n;) {
            ssize_t w = write(1, buffer + done, (size_t)(n - done));
            if (w > 0) done += w;
            else if (w < 0 && errno == EINTR) continue;
            else passing = 0;   // the original stderr is gone: keep draining so no writer blocks
        }
        while (copying) {
            ssize_t w = write(2, buffer, (size_t)n);
            if (w < 0 && errno == EINTR) continue;
            // Full (the reader is stopped, say by a crash being reported) or gone: this piece's
            // copy is dropped, and a reader that is gone never comes back.
            if (w < 0 && errno != EAGAIN) copying = 0;
            break;
        }
    }
}

/// In the forked child: arranges fds 0, 1, 2 from the three it needs, closes the rest, and
/// forks the forwarder, so it is not the caller's child and is never left a zombie.
static void become_forwarder(int data_read, int original, int copy_write) {
    // Moved above 2 first, so the dup2s below cannot overwrite one another.
    int moved[3] = {fcntl(data_read, F_DUPFD, 10), fcntl(original, F_DUPFD, 10), fcntl(copy_write, F_DUPFD, 10)};
    if (moved[0] < 0 || moved[1] < 0 || moved[2] < 0) _exit(EMFILE);
    if (dup2(moved[0], 0) < 0 || dup2(moved[1], 1) < 0 || dup2(moved[2], 2) < 0) _exit(EMFILE);
    close_from_three();
    // The terminal's ^C, a hang-up, a `kill` of the group: the forwarder outlives them, so the
    // dying process's last words still pass. It ends when its input ends, which they bring.
    struct sigaction ignore;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTOU};
    for (unsigned i = 0; i < sizeof ignored / sizeof ignored[0]; i++) (void)sigaction(ignored[i], &ignore, NULL);
    sigset_t none;
    sigemptyset(&none);
    (void)sigprocmask(SIG_SETMASK, &none, NULL);
    pid_t forwarder = fork();
    if (forwarder == 0) forward_until_end();
    // The exit status carries fork's errno (EAGAIN at a process limit) to the caller.
    _exit(forwarder < 0 ? (errno > 0 && errno < 126 ? errno : 1) : 0);
}

int clab_stderr_copy_start(int *saved_stderr, int *copy_read) {
    int data[2], copy[2];
    if (clab_pipe_cloexec(data) != 0) return errno;
    if (clab_pipe_cloexec(copy) != 0) {
        int failure = errno;
        close(data[0]); close(data[1]);
        return failure;
    }
    int saved = fcntl(2, F_DUPFD_CLOEXEC, 3);
    int failure = saved < 0 ? errno : 0;
    int flags = failure ? -1 : fcntl(copy[1], F_GETFL);
    if (!failure && (flags < 0 || fcntl(copy[1], F_SETFL, flags | O_NONBLOCK) != 0)) failure = errno;
    pid_t middle = failure ? -1 : fork();
    if (middle == 0) become_forwarder(data[0], saved, copy[1]);
    if (!failure && middle < 0) failure = errno;
    if (middle > 0) {
        int status = 0;
        while (waitpid(middle, &status, 0) < 0 && errno == EINTR) {}
        // The middle process exits with the errno of what failed in it (fork's EAGAIN at a
        // process limit); killed, it says nothing, and the failure is ECHILD.
        if (!WIFEXITED(status)) failure = ECHILD;
        else if (WEXITSTATUS(status) != 0) failure = WEXITSTATUS(status);
    }
    close(data[0]);
    close(copy[1]);
    if (!failure) {
        fflush(stderr);
        if (dup2(data[1], 2) < 0) failure = errno;
    }
    close(data[1]);   // fd 2 is now the pipe's only write end here: putting fd 2 back ends it
    if (failure) {
        if (saved >= 0) close(saved);
        close(copy[0]);
        return failure;
    }
    *saved_stderr = saved;
    *copy_read = copy[0];
    return 0;
}

int clab_stderr_copy_stop(int saved_stderr) {
    fflush(stderr);
    int failure = 0;
    while (dup2(saved_stderr, 2) < 0) {
        if (errno != EINTR) { failure = errno; break; }
    }
    close(saved_stderr);
    return failure;
}

// MARK: - The main thread's run loop

int clab_main_thread_parked(void) {
#if defined(__linux__)
    // /proc/self/task/PID/syscall starts with the number of the system call the thread is
    // blocked in (the main thread's TID is the PID). dispatch_main leaves it in rt_sigsuspend
    // from a thread-specific-data destructor after pthread_exit, for good.
    char path[64], text[128];
    snprintf(path, sizeof path, "/proc/self/task/%ld/syscall", (long)getpid());
    if (clab_read_small_file(path, text, sizeof text) <= 0) return -1;
    return atol(text) == SYS_rt_sigsuspend && (text[0] >= '0' && text[0] <= '9') ? 1 : 0;
#else
    return -1;
#endif
}

typedef int32_t (*run_specific_fn)(const void *, const void *, double, unsigned char);

/// CoreFoundation's `CFRunLoopRunSpecific`, looked up once, or NULL. CoreFoundation exports it on
/// both platforms and declares it only in CFPriv.h; CFRunLoopRunInMode, the public form, runs the
/// calling thread's own run loop.
static run_specific_fn run_specific_function(void) {
    static run_specific_fn run_specific;
    static int looked;
    if (!__atomic_load_n(&looked, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&run_specific, (run_specific_fn)dlsym(RTLD_DEFAULT, "CFRunLoopRunSpecific"), __ATOMIC_RELEASE);
        __atomic_store_n(&looked, 1, __ATOMIC_RELEASE);
    }
    return __atomic_load_n(&run_specific, __ATOMIC_ACQUIRE);
}

int clab_run_loop_run_specific_available(void) { return run_specific_function() != NULL; }

int clab_run_loop_run_specific(const void *run_loop, const void *mode, double seconds) {
    run_specific_fn function = run_specific_function();
    if (function == NULL || run_loop == NULL || mode == NULL) return -1;
    return function(run_loop, mode, seconds, 1);
}
