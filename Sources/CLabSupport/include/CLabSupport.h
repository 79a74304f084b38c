#ifndef CLAB_SUPPORT_H
#define CLAB_SUPPORT_H

#include "CLabStackResponder.h"
#include "CLabPlatform.h"
#include "CLabLimits.h"
#include "CLabOutput.h"

/// Asks the kernel to send `signal` to this process when the thread that spawned it exits
/// (Linux `PR_SET_PDEATHSIG`). Returns 0 on success, -1 where unsupported or on error.
/// Swift cannot call the variadic `prctl` directly, hence this shim.
int clab_set_parent_death_signal(int signal);

/// `pipe2(fds, O_CLOEXEC)` where available (Linux), so a pipe created while other threads
/// spawn children never leaks into them; elsewhere `pipe` plus `FD_CLOEXEC`. Returns 0 or -1.
int clab_pipe_cloexec(int fds[2]);

/// The calling thread's kernel name (at most 15 bytes on Linux) into `buffer`; 0 on success.
int clab_current_thread_name(char *buffer, unsigned long size);

/// Sets the calling thread's kernel name (Linux keeps at most 15 bytes: a longer name is
/// refused with ERANGE and the old name stays). Returns 0 or an errno value.
int clab_set_current_thread_name(const char *name);

/// The calling thread's kernel id (Linux TID; Darwin pthread_threadid_np, the 64-bit id the
/// kernel never reuses); 0 where unknown.
long clab_current_thread_id(void);

/// The `Threads:` value of an open `/proc/.../status` descriptor, re-read from offset 0; -1 on
/// failure. The thread sampler's whole per-sample work, in C so that it touches as little code
/// and memory as possible after each sleep (on a VM, cold caches are most of a sample's cost).
long clab_status_thread_count(int fd);

/// The thread count of the process whose `/proc/PID/task` directory `fd` is open on, from the
/// directory's link count (Linux's procfs reports 2 plus the number of threads; see
/// `proc_task_getattr` in fs/proc/base.c): one `fstat`, no text to generate. -1 on failure.
long clab_task_dir_thread_count(int fd);

/// Opens an autorelease pool on the calling thread (Darwin's Objective-C runtime,
/// `objc_autoreleasePoolPush`); pass what it returns to `clab_autorelease_pool_pop` on the same
/// thread, which drains it. Linux has no such pool: the calls only count (see
/// `clab_autorelease_pool_depth`).
void *clab_autorelease_pool_push(void);
void clab_autorelease_pool_pop(void *pool);

/// How many pools `clab_autorelease_pool_push` opened on the calling thread and are not yet
/// popped: lets a test see that code ran inside one, on any platform.
long clab_autorelease_pool_depth(void);

/// Opens a pseudo-terminal pair (for tests of terminal detection). Returns 0 and sets both
/// descriptors, or -1.
int clab_open_pseudo_terminal(int *primary, int *secondary);

#endif
