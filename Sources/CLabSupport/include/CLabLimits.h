#ifndef CLAB_LIMITS_H
#define CLAB_LIMITS_H

// What the machine allows a process, and what it gave it: the limits a trial can run into
// (threads, address space, memory) and the CPU it was given. The lab names a trial the
// machine broke ("resource-limited", "cpu-starved", "out-of-memory") from these figures
// instead of calling it a deadlock or a crash of its own.
//
// Every function compiles on Linux and Darwin with one signature; where a platform keeps no
// such figure (Darwin has no per-thread run-queue time and no /proc) it answers "unknown"
// (-2 or -1 as documented), and the lab then makes no machine verdict from it.

/// `CLAB_LIMIT_UNLIMITED` (-1) for no limit, `CLAB_LIMIT_UNKNOWN` (-2) when it cannot be read.
#define CLAB_LIMIT_UNLIMITED (-1LL)
#define CLAB_LIMIT_UNKNOWN (-2LL)

/// The soft `RLIMIT_NPROC` of process `pid` (0: this process): on Linux the number of tasks
/// (threads count one each) the process's real user may have. Other processes are read from
/// `/proc/PID/limits` (Linux); on Darwin only this process is known.
long long clab_limit_nproc(int pid);

/// The soft `RLIMIT_AS` of process `pid` (0: this process), in bytes; as above.
long long clab_limit_address_space(int pid);

/// The real user id of process `pid` (0: this process); -1 when unknown.
long long clab_process_real_uid(int pid);

/// How many tasks (threads, counting every process's threads) user `uid` has now, which is
/// what Linux compares with `RLIMIT_NPROC` when a thread or process is created (kernel/fork.c,
/// `copy_process`); -1 when unknown (Darwin: no /proc).
long long clab_user_task_count(long long uid);

/// The kernel's run-time accounting of thread `tid` of process `pid` (tid 0: the process's
/// main thread; pid 0: this process): nanoseconds on a CPU and nanoseconds runnable but waiting
/// in a run queue, from `/proc/PID/task/TID/schedstat`. 0 on success, -1 where unknown
/// (Darwin, or a kernel without schedstats).
int clab_thread_schedstat(int pid, long tid, unsigned long long *on_cpu_ns, unsigned long long *waiting_ns);

/// Whether thread `tid` of process `pid` (pid 0: this process) is in an uninterruptible kernel
/// wait now (state `D` in `/proc/PID/task/TID/stat`: disk I/O, or a kernel lock such as the
/// one a growing file-descriptor table takes): 1 yes, 0 no, -1 unknown (Darwin: no /proc).
/// No program's own wait (a semaphore, a lock, a condition) puts a thread there.
int clab_thread_uninterruptible(int pid, long tid);

/// Whether process `pid` (0: this process) runs in a class the scheduler serves last: Linux's
/// `SCHED_IDLE` (what `chrt --idle 0` sets) or a nice value of 15 or more. 1 yes, 0 no, -1
/// unknown. Such a process is given a CPU only when nothing else wants one.
int clab_low_cpu_class(int pid);

/// The peak virtual size of process `pid` (`VmPeak`), in bytes; -1 when unknown.
long long clab_process_vm_peak(int pid);

/// How many processes the kernel's memory controller has killed in the memory cgroup of
/// process `pid` (0: this process): `oom_kill` of cgroup v2's `memory.events`, or of cgroup v1's
/// `memory.oom_control` (kernel 4.13 and later); -1 when unknown (no memory cgroup, Darwin).
long long clab_cgroup_oom_kills(int pid);

/// The memory limit of the memory cgroup of process `pid` (0: this process), in bytes: the
/// smallest of its own and its ancestors' `memory.max` (v2) or `memory.limit_in_bytes` (v1);
/// -1 for none, -2 unknown.
long long clab_cgroup_memory_limit(int pid);

/// How many times the memory cgroup of process `pid` hit its limit: v1's `memory.failcnt`, v2's
/// `max` of `memory.events`; -1 when unknown.
long long clab_cgroup_memory_failcnt(int pid);

/// Which cgroup version answered the memory questions for process `pid`: 1, 2, or 0 for none.
int clab_cgroup_memory_version(int pid);

/// The pids cgroup of process `pid` (0: this process): its limit (the smallest `pids.max` of it
/// and its ancestors; -1 none, -2 unknown), its tasks now (`pids.current`, -1 unknown), and how
/// many forks it refused at its limit (`max` of `pids.events`, -1 unknown). v1 and v2 alike.
long long clab_cgroup_pids_limit(int pid);
long long clab_cgroup_pids_current(int pid);
long long clab_cgroup_pids_refused(int pid);

/// The CPUs the process may run on: the size of its affinity mask (`sched_getaffinity`,
/// what `taskset` sets and what libdispatch sizes its pool from); -1 where the platform has
/// no affinity mask (Darwin).
int clab_cpu_affinity_count(void);

/// The CPUs online (`sysconf(_SC_NPROCESSORS_ONLN)`); -1 when unknown.
int clab_cpu_online_count(void);

/// The CPUs' worth of time the cgroup CPU quota of this process allows (the smallest
/// quota / period of its cgroup and its ancestors: v2 `cpu.max`, v1 `cpu.cfs_quota_us` over
/// `cpu.cfs_period_us`), such as 1.5; -1 for no quota, -2 unknown (no cgroup, Darwin).
double clab_cgroup_cpu_quota(void);

/// How long the cgroup CPU quota of process `pid` held its tasks off the CPU so far
/// (`throttled_time` ns of v1's `cpu.stat`, `throttled_usec` of v2's), in nanoseconds; -1 unknown.
long long clab_cgroup_cpu_throttled_ns(int pid);

/// The soft `RLIMIT_CPU` (seconds), `RLIMIT_FSIZE` (bytes) and `RLIMIT_NOFILE` of process `pid`
/// (0: this process), as `clab_limit_nproc`.
long long clab_limit_cpu_seconds(int pid);
long long clab_limit_file_size(int pid);
long long clab_limit_open_files(int pid);

/// How many file descriptors process `pid` (0: this process) has open; -1 unknown.
long long clab_process_open_files(int pid);

/// How many times a call that creates a file descriptor (socket, socketpair, pipe, pipe2,
/// eventfd, epoll_create1, dup, accept, accept4) failed with EMFILE or ENFILE in this process,
/// whoever called it; -1 where it cannot be counted (Darwin). As with `pthread_create`, the
/// lab's definitions stand in front of the C library's and forward every call unchanged.
long long clab_descriptor_failures(void);

/// From now on, the first such failure writes one line on stderr at once ("lab: the machine:
/// no file descriptor could be opened (socket: EMFILE; RLIMIT_NOFILE 20)"): a trial child calls
/// it, since Foundation and libdispatch trap right after such a failure, often silently.
void clab_tell_descriptor_failures(void);

/// Offers this process to the kernel's OOM killer ahead of its parent: raises its
/// `oom_score_adj` to `adjustment` when it is lower (any process may raise its own; lowering
/// needs privilege). A trial child calls it, so that a memory cgroup's OOM killer ends the
/// trial, which the harness then names, rather than the harness, which would leave no report.
/// 0 on success or when already as high, -1 where unsupported (Darwin) or on error.
int clab_prefer_oom_kill(int adjustment);

/// The scheduler state letter of process `pid` from `/proc/PID/stat` ('R', 'S', 'T' stopped,
/// 't' traced, 'Z'...); -1 when unknown (Darwin, or the process is gone).
int clab_process_state(int pid);

/// How many times `pthread_create` has failed with `EAGAIN` in this process (the thread limit,
/// or no memory for a stack), whoever called it: Foundation's `Thread.start` and libdispatch's
/// pool (swift-corelibs-libdispatch src/queue.c retries silently, once a second) report
/// nothing. On Linux the lab's `pthread_create` stands in front of the C library's (a
/// definition in the executable comes first in ELF symbol lookup), forwards every call
/// unchanged and counts the failures; -1 where it cannot (Darwin's two-level namespace).
long long clab_thread_create_failures(void);

#endif
