#ifndef CLAB_SUPPORT_H
#define CLAB_SUPPORT_H

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

/// The calling thread's kernel id (Linux TID); 0 where unknown.
long clab_current_thread_id(void);

/// Opens a pseudo-terminal pair (for tests of terminal detection). Returns 0 and sets both
/// descriptors, or -1.
int clab_open_pseudo_terminal(int *primary, int *secondary);

#endif
