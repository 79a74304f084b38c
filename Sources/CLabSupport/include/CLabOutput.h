#ifndef CLAB_OUTPUT_H
#define CLAB_OUTPUT_H

/// Writes all `length` bytes of `bytes` to `fd`, through EINTR and short writes. Returns 0,
/// or the `errno` of the write that failed (`EPIPE`, `EBADF`, `ENOSPC`, `EIO`...). When `fd`
/// is a regular file and the write fails part way, the file is cut back to where this write
/// started, so a full disk leaves no half report behind.
int clab_write_whole(int fd, const void *bytes, unsigned long length);

/// Ignores `SIGPIPE` in this process, so a write to a closed pipe fails with `EPIPE` (which
/// the writer handles) instead of killing the program. Children get the default back
/// (`posix_spawnattr_setsigdefault`).
void clab_ignore_broken_pipe(void);

/// Stops this process with `SIGSTOP` (which cannot be caught or ignored): how a program that
/// handles `SIGTSTP` itself, to pass it on to its children first, still pauses at Ctrl-Z.
/// Returns 0 or -1.
int clab_stop_self(void);

/// When descriptor `fd` (0, 1 or 2) is closed (a shell's `>&-`), opens `/dev/null` on it and
/// returns 1; 0 when it was open; -1 when it could not be held. A closed standard stream must
/// be held: the next file, pipe or event descriptor the process opens would otherwise get its
/// number, and the report would be written into it.
int clab_hold_closed_stream(int fd);

/// Swaps two paths in one step (Linux `renameat2` with `RENAME_EXCHANGE`, Darwin `renamex_np`
/// with `RENAME_SWAP`): how a finished folder replaces an old one with no moment where a
/// reader sees neither or a mix. Returns 0 or the errno (`ENOSYS`/`EINVAL`/`ENOTSUP` where
/// the file system cannot).
int clab_exchange_paths(const char *first, const char *second);

#endif
