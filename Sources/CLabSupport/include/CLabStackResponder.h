#ifndef CLAB_STACK_RESPONDER_H
#define CLAB_STACK_RESPONDER_H

#include <sys/types.h>

/// The signal that asks a thread for its stack: SIGPROF, because libdispatch's worker threads
/// block every other asynchronous signal but leave SIGPROF open.
int clab_stacks_signal(void);

/// Installs the SIGPROF handler that makes the receiving thread unwind itself (with the C
/// library's `backtrace`) and append one line `tid n addr addr ...` to `/tmp/lab-stacks-PID`,
/// if and only if that file already exists (the one asking creates it). Idempotent.
/// Returns 0, or -1 when the handler cannot be installed.
int clab_stacks_install(void);

/// Whether the handler is installed in this process.
int clab_stacks_installed(void);

/// `tgkill(pid, tid, sig)`: one signal to one thread of any process this user may signal.
int clab_tgkill(pid_t pid, pid_t tid, int sig);

/// NULL where stack snapshots can be taken (Linux); elsewhere one line saying why not, for the
/// report and for tests that skip.
const char *clab_stacks_unavailable_reason(void);

#endif
