#ifndef CLAB_PLATFORM_H
#define CLAB_PLATFORM_H

// The lab's one seam with the operating system. Every function here has one C signature that
// Linux (glibc, /proc) and Darwin (libc, Mach, libproc) both implement; the Swift side calls it
// with no platform branch. Where a platform cannot answer, the function says so (-1, NULL, or a
// reason string) and the Swift side reports that, never a guess.

#include <stdint.h>
#include <sys/types.h>

// MARK: - The system

/// "linux", "macos", "ios" or "unknown": the system this shim was compiled for.
const char *clab_os_name(void);

/// The monotonic clock in seconds, system-wide, so a child's instant compares with its
/// parent's: Linux CLOCK_MONOTONIC; Darwin CLOCK_MONOTONIC_RAW (nanoseconds; its
/// CLOCK_MONOTONIC has microseconds only).
double clab_monotonic_now(void);

/// Sleeps until the monotonic clock reaches `deadline`, through signals. Linux sleeps to the
/// absolute deadline (clock_nanosleep TIMER_ABSTIME); Darwin has no absolute form, so it
/// re-computes what is left after every interruption.
void clab_sleep_until_monotonic(double deadline);

/// Sleeps `seconds` (nothing for zero or less), through signals.
void clab_sleep_for(double seconds);

/// User plus system CPU seconds of the whole process (getrusage RUSAGE_SELF).
double clab_process_cpu_seconds(void);

/// The most resident memory this process ever held, in bytes; -1 when unknown. Linux: VmHWM of
/// /proc/self/status (kB there), else ru_maxrss (kB there); Darwin: ru_maxrss (bytes there).
double clab_peak_resident_bytes(void);

/// Resident memory now, in bytes; -1 when unknown. Linux: VmRSS; Darwin: Mach task_info
/// MACH_TASK_BASIC_INFO resident_size.
double clab_current_resident_bytes(void);

/// Seconds the calling thread has spent on a CPU and waiting in a run queue for one (Linux
/// /proc/thread-self/schedstat). Returns 0, or -1 where the kernel does not keep the wait
/// (Darwin keeps CPU time per thread, not run-queue time).
int clab_thread_run_times(double *on_cpu, double *waiting);

/// Columns of the terminal open on `fd`; -1 when `fd` is not a terminal or reports no size.
int clab_terminal_columns(int fd);

/// Sets the size of the terminal open on `fd` (as a terminal emulator does on a resize).
/// Returns 0 or -1.
int clab_terminal_set_size(int fd, unsigned short rows, unsigned short columns);

/// Makes the C library's `stdout` unbuffered (what a child prints reaches its parent at once).
void clab_stdout_unbuffered(void);

/// C's RTLD_DEFAULT: the `dlsym` handle that searches every loaded image (NULL on glibc,
/// (void *)-2 on Darwin).
void *clab_search_all_libraries(void);

/// The path of the image (executable, shared library or bundle binary) that holds `address`
/// into `buffer`, as dladdr gives it (possibly relative). Returns 0, or -1.
int clab_image_path(const void *address, char *buffer, unsigned long size);

/// The running executable's absolute path into `buffer`. Linux: /proc/self/exe; Darwin:
/// libproc's proc_pidpath. Returns 0, or -1 (the caller then asks Bundle and argv[0]).
int clab_executable_path(char *buffer, unsigned long size);

/// The global concurrent queue's thread limits as this kernel states them at run time.
/// Darwin: the sysctls kern.wq_max_constrained_threads (the non-overcommit pool, which the
/// global queues draw from) and kern.wq_max_threads (every workqueue thread). Returns 0 with
/// both set, or -1 where the kernel states none (Linux: libdispatch keeps its own limit, a
/// compile-time constant, so it cannot be asked).
int clab_dispatch_pool_limits(int *constrained, int *total);

// MARK: - Threads

/// One thread of a process.
typedef struct {
    /// Linux: the TID. Darwin, this process: the 64-bit thread id the kernel never reuses
    /// (THREAD_IDENTIFIER_INFO, the same as pthread_threadid_np). Darwin, another process:
    /// the handle libproc lists it by (PROC_PIDLISTTHREADS).
    int64_t id;
    /// 'R' running or runnable, 'S' waiting, 'D' uninterruptible, 'T' stopped, 'Z' zombie,
    /// '?' anything else.
    char state;
    /// The kernel's name for it (Linux keeps 15 bytes, Darwin 63), NUL-terminated.
    char name[64];
} clab_thread_entry;

/// The threads of process `pid` (0: this process), at most `capacity` of them, sorted by id.
/// Returns how many were written (when it equals `capacity`, ask again with more room), or -1
/// when the process is gone or the platform cannot look at it (Darwin: another user's).
long clab_threads(pid_t pid, clab_thread_entry *out, long capacity);

/// The number of threads of process `pid` (0: this process); -1 when unknown. Linux: field 20
/// of /proc/PID/stat; Darwin: task_threads here, libproc PROC_PIDTASKINFO for another process.
long clab_thread_count(pid_t pid);

/// The ids (as in `clab_thread_entry`) of every thread of this process, at most `capacity`.
/// Returns how many were written, or -1.
long clab_thread_ids(uint64_t *out, long capacity);

/// The name of this process's thread `id` into `buffer`. Returns 0, or -1 when it is gone.
int clab_thread_name_of(uint64_t id, char *buffer, unsigned long size);

/// The state letter of a Linux `/proc/.../stat` line ('R', 'S', 'D', 'T', 'Z' or '?'): the
/// field after the last ')', since the name before it may hold spaces and parentheses. Plain
/// text parsing, built on every platform so its tests run everywhere.
char clab_stat_line_state(const char *line);

/// Field 20 (`num_threads`) of a Linux `/proc/.../stat` line, counted from the last ')'; -1
/// when the line is too short.
long clab_stat_line_thread_count(const char *line);

/// A joinable POSIX thread, whose handle type differs between glibc and Darwin (hidden here).
typedef struct clab_thread clab_thread;

/// Starts a thread running `body(argument)`. Returns 0 and sets `*thread`, or an errno value
/// (the system refused a thread; nothing was started).
int clab_thread_start(clab_thread **thread, void (*body)(void *argument), void *argument);

/// Waits until `thread` has ended and frees its handle. Call it once.
int clab_thread_join(clab_thread *thread);

// MARK: - "On time" threads

/// What the scheduler granted a thread that asked to run ahead of normal threads.
typedef enum {
    /// Refused: `error` says why; the thread kept the priority it had.
    CLAB_ON_TIME_REFUSED = 0,
    /// POSIX SCHED_FIFO at `priority` (Linux).
    CLAB_ON_TIME_FIFO = 1,
    /// Darwin's THREAD_TIME_CONSTRAINT_POLICY with `computation_us` of every
    /// `constraint_us` microseconds.
    CLAB_ON_TIME_TIME_CONSTRAINT = 2,
    /// Darwin's QoS class user-interactive, after the time-constraint policy was refused
    /// with Mach error `error`.
    CLAB_ON_TIME_USER_INTERACTIVE = 3,
} clab_on_time_kind;

typedef struct {
    clab_on_time_kind kind;
    int error;
    int priority;
    int computation_us;
    int constraint_us;
} clab_on_time_answer;

/// Asks for the calling thread to run ahead of normal threads. Linux: SCHED_FIFO at
/// `fifo_priority`. Darwin: the time-constraint policy, else QoS user-interactive; never
/// SCHED_FIFO, which Darwin maps to a fixed priority below the default (a demotion).
clab_on_time_answer clab_request_on_time(int fifo_priority);

/// What the kernel now says of the calling thread: the kind it runs under (CLAB_ON_TIME_REFUSED
/// for a normal thread) and, for SCHED_FIFO, its priority.
clab_on_time_kind clab_current_on_time(int *priority);

// MARK: - Processes

/// One process of the machine.
typedef struct {
    int32_t pid;
    int32_t parent;
    /// 'R', 'S', 'D', 'T', 'Z' or '?', as for threads.
    char state;
    /// The arguments joined by spaces (empty for kernel threads and zombies), cut at 1023 bytes
    /// and NUL-terminated (a lab command line is a path and a few flags).
    char command[1024];
} clab_process_entry;

/// The processes this one may see, at most `capacity`. Linux: /proc/PID/{stat,cmdline};
/// Darwin: libproc's proc_listallpids, proc_pidinfo PROC_PIDTBSDINFO (PROC_PIDT_SHORTBSDINFO
/// for another user's), and the KERN_PROCARGS2 sysctl for arguments. Returns how many were
/// written (equal to `capacity`: ask again with more room), or -1.
long clab_processes(clab_process_entry *out, long capacity);

/// Joins the arguments of a Darwin KERN_PROCARGS2 answer (`length` bytes: argc as an int, the
/// executable path, NUL padding, then argc NUL-terminated arguments, then the environment) with
/// spaces into `command` (`size` bytes, always NUL-terminated). Plain parsing, built on every
/// platform so its tests run here. Returns 0, or -1 when the answer is too short.
int clab_join_procargs2(const char *buffer, unsigned long length, char *command, unsigned long size);

/// `posix_spawn`s `path` with `argv` and `envp` in a new process group, stdin from /dev/null,
/// stdout and stderr onto the given descriptors, no blocked signals, and SIGINT, SIGTERM,
/// SIGHUP, SIGPIPE, SIGCHLD, SIGQUIT, SIGTSTP and SIGCONT back at their defaults (the lab
/// ignores SIGPIPE, and the first three where it handles them; it catches SIGTSTP for itself;
/// a trial, or a command `lab watch` runs, must stop, resume and hang up like any program).
/// Returns 0 and sets `*pid`, or an errno.
int clab_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[], int stdout_fd, int stderr_fd);

/// 1 when the kernel reaps this process's children itself, so `waitpid` can never give their
/// exit status (it fails with ECHILD): SIGCHLD is ignored (`SIG_IGN`) or its action carries
/// `SA_NOCLDWAIT`. Linux (kernel/signal.c `do_notify_parent`) and Darwin (xnu bsd/kern/kern_sig.c
/// `setsigvec` sets `P_NOCLDWAIT` for either; bsd/kern/kern_exit.c then hands the child to
/// launchd) both do so. Some server libraries set it; the harness reads it to say why a child's
/// status was lost. 0 otherwise.
int clab_children_reaped_by_kernel(void);

/// For tests: sets SIGCHLD's action so the kernel reaps this process's children (`SIG_IGN`, or
/// `SA_NOCLDWAIT` with the default handler when `no_cld_wait` is non-zero), keeping the action it
/// replaces for `clab_sigchld_restore`. One change at a time: -1 if one is in force or
/// `sigaction` fails, else 0.
int clab_sigchld_discard_status(int no_cld_wait);

/// Puts back the SIGCHLD action `clab_sigchld_discard_status` replaced. -1 if none was
/// replaced or `sigaction` fails, else 0.
int clab_sigchld_restore(void);

/// Makes this process exit with `status` (Linux: be killed by SIGKILL) when process `parent`
/// ends, and at once if it already has. Linux: PR_SET_PDEATHSIG. Darwin: a thread waiting on a
/// kqueue EVFILT_PROC/NOTE_EXIT watch of the parent (a thread polling getppid every 100 ms if
/// the kqueue cannot be had). Returns 0, or -1 when nothing could be arranged.
int clab_die_with_parent(pid_t parent, int status);

// MARK: - Process trees (`lab watch`)

/// Makes this process the reaper of its orphaned descendants: a process below it whose parent
/// dies is handed to it, not to init, so the whole tree stays findable by parent links and can
/// be ended. Linux: PR_SET_CHILD_SUBREAPER. Returns 0, or -1 where the system has no such thing
/// (Darwin: an orphan goes to launchd, and only its process group still ties it to the tree).
int clab_become_subreaper(void);

/// The environment variable through which the dynamic loader loads a library into a program
/// before the program's own (Linux LD_PRELOAD, a colon- or space-separated list), or NULL where
/// `lab watch` does not use one (Darwin: DYLD_INSERT_LIBRARIES is dropped for protected programs,
/// and stacks of another process cannot be taken there anyway).
const char *clab_preload_variable(void);

/// The CPU seconds (user plus system) process `pid` has used so far (`own`: Linux, fields 14 and
/// 15 of /proc/PID/stat in clock ticks; Darwin, libproc's PROC_PIDTASKINFO in Mach time units,
/// converted with mach_timebase_info), and those of its children it has reaped, with what their own
/// reaped children used (`children`): work done in short-lived children is gone from the process
/// table by the next look, and shows only there. 0, or -1 when it is gone or cannot be looked at.
/// Linux: fields 16 and 17 (cutime, cstime) of /proc/PID/stat. Darwin: proc_pid_rusage's
/// ri_child_user_time and ri_child_system_time (RUSAGE_INFO_V1), which xnu sums as it reaps each
/// child; 0 when that call is refused. An orphan there goes to launchd, not to a process of the
/// tree, so its time is counted only while it is alive.
int clab_process_cpu_times_of(pid_t pid, double *own, double *children);

/// The real user id that owns process `pid`, or -1 when it is gone or unknown. Linux: the Uid
/// line of /proc/PID/status; Darwin: PROC_PIDTBSDINFO (PROC_PIDT_SHORTBSDINFO for another user's).
long clab_process_owner(pid_t pid);

// MARK: - Standard error, passed on and copied

/// Starts copying what this process writes to its standard error, without holding any of it
/// back: fd 2 becomes the write end of a pipe read by a small forked process (it makes only
/// system calls: read, write, _exit) that writes each piece to the original stderr first and
/// then, without ever blocking, into a second pipe whose read end is returned in `*copy_read`
/// (while that pipe is full, the copy of a piece is dropped, never the original). The forwarder
/// is forked twice, so it is no child of this process; it ignores SIGINT, SIGTERM, SIGHUP,
/// SIGQUIT and SIGPIPE, holds no other descriptor, and ends at end of input: when fd 2 is put
/// back (`clab_stderr_copy_stop`) and every process started meanwhile has closed its inherited
/// fd 2, or when this process is gone, crashed or killed. What is written to fd 2 in between,
/// a crash report included, reaches the original stderr whatever becomes of this process.
/// Returns 0 with `*saved_stderr` (a close-on-exec duplicate of the original fd 2, which
/// `clab_stderr_copy_stop` takes back), or an errno with fd 2 untouched.
int clab_stderr_copy_start(int *saved_stderr, int *copy_read);

/// Points fd 2 back at `saved_stderr` (from `clab_stderr_copy_start`) and closes that. Returns
/// 0 or an errno.
int clab_stderr_copy_stop(int saved_stderr);

// MARK: - The main thread's run loop

/// 1 when this process's main thread is blocked in `rt_sigsuspend`, where libdispatch's
/// `dispatch_main` parks it for good after `pthread_exit` (worker threads then drain the main
/// queue, and nothing ever runs the main thread's run loop); 0 when it is anywhere else; -1
/// when the platform cannot tell. Linux: the first field of /proc/self/task/PID/syscall.
/// Darwin: -1 (a thread's system call is not readable there; and there Swift Testing's main
/// executor runs the main run loop on the main thread itself).
int clab_main_thread_parked(void);

/// Runs the CoreFoundation run loop `run_loop` in `mode` (both CF objects) for at most `seconds`
/// on the calling thread, whichever thread the run loop belongs to, returning after one source
/// or timer is handled: `CFRunLoopRunSpecific`, which CoreFoundation exports on both platforms
/// and declares only in its private header (`CFRunLoopRunInMode` runs the caller's own run
/// loop), looked up with dlsym. Returns CoreFoundation's result (1: the mode has nothing to
/// wait on, 2: stopped, 3: timed out, 4: handled a source), or -1 when it is not found.
int clab_run_loop_run_specific(const void *run_loop, const void *mode, double seconds);

/// 1 when `clab_run_loop_run_specific` can run a run loop here (CoreFoundation's
/// `CFRunLoopRunSpecific` was found), 0 when it was not.
int clab_run_loop_run_specific_available(void);

// MARK: - Sockets

/// A new IPv4 TCP socket, close-on-exec from birth where the system allows (Linux
/// SOCK_CLOEXEC; Darwin has none, so FD_CLOEXEC right after), non-blocking if asked, and never
/// raising SIGPIPE on Darwin (SO_NOSIGPIPE). -1 with errno on failure.
int clab_tcp_socket(int non_blocking);

/// Accepts one connection on listening socket `fd`, made close-on-exec and non-blocking (and
/// SO_NOSIGPIPE on Darwin). -1 with errno when none waits or on failure.
int clab_accept(int fd);

/// `send` that never raises SIGPIPE (Linux MSG_NOSIGNAL; Darwin sockets carry SO_NOSIGPIPE):
/// a vanished peer gives -1 with EPIPE or ECONNRESET.
long clab_send(int fd, const void *bytes, unsigned long count);

/// Fills the `struct sockaddr_in` at `storage` (`size` bytes) with IPv4 `address` (network byte
/// order) and `port` (host order), with Darwin's sin_len. Returns 0, or -1 if `size` is wrong.
int clab_ipv4_address(void *storage, unsigned long size, uint32_t address, uint16_t port);

/// Copies `length` bytes of this process's memory at `address` into `buffer` without faulting:
/// an unmapped address fails (-1) instead of raising SIGSEGV. Returns the bytes copied.
long clab_read_own_memory(const void *address, void *buffer, unsigned long length);

#endif
