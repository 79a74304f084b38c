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

/// Whether process `pid` (0: this process) runs in a class the scheduler serves last: Linux's
/// `SCHED_IDLE` (what `chrt --idle 0` sets) or a nice value of 15 or more. 1 yes, 0 no, -1
/// unknown. Such a process is given a CPU only when nothing else wants one.
int clab_low_cpu_class(int pid);

/// The peak virtual size of process `pid` (`VmPeak`), in bytes; -1 when unknown.
long long clab_process_vm_peak(int pid);

/// How many processes the kernel's memory controller has killed in this process's cgroup
/// (`oom_kill` of cgroup v2's `memory.events`); -1 when unknown.
long long clab_cgroup_oom_kills(void);

/// The memory limit of this process's cgroup (`memory.max`), in bytes; -1 for none, -2 unknown.
long long clab_cgroup_memory_limit(void);

/// How many times `pthread_create` has failed with `EAGAIN` in this process (the thread limit,
/// or no memory for a stack), whoever called it: Foundation's `Thread.start` and libdispatch's
/// pool (swift-corelibs-libdispatch src/queue.c retries silently, once a second) report
/// nothing. On Linux the lab's `pthread_create` stands in front of the C library's (a
/// definition in the executable comes first in ELF symbol lookup), forwards every call
/// unchanged and counts the failures; -1 where it cannot (Darwin's two-level namespace).
long long clab_thread_create_failures(void);

#endif
