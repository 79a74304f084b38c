// The child side of stack snapshots: a SIGPROF handler that unwinds the thread it runs on.
//
// Everything the handler calls is async-signal-safe in practice: `backtrace` is warmed up at
// installation (its first call loads the unwinder), the line is formatted by hand on the
// stack, and open/write/close are plain system calls. One `write` of less than PIPE_BUF bytes
// to a file opened with O_APPEND keeps each thread's line whole.
#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include "CLabStackResponder.h"
#include <stddef.h>

#if defined(__linux__)
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <ucontext.h>
#include <unistd.h>

#define CLAB_STACK_DEPTH 48

static char stacks_path[64];
static volatile sig_atomic_t installed = 0;

static char *put_hex(char *p, unsigned long value) {
    char digits[16];
    int n = 0;
    do { digits[n++] = "0123456789abcdef"[value & 15]; value >>= 4; } while (value != 0);
    *p++ = '0'; *p++ = 'x';
    while (n > 0) *p++ = digits[--n];
    return p;
}

static char *put_dec(char *p, long value) {
    char digits[24];
    int n = 0;
    if (value < 0) { *p++ = '-'; value = -value; }
    do { digits[n++] = (char)('0' + value % 10); value /= 10; } while (value != 0);
    while (n > 0) *p++ = digits[--n];
    return p;
}

// Reads `size` bytes of this process's memory without faulting: a bad address fails the system
// call (EFAULT) instead of raising SIGSEGV in the handler.
static int read_bytes(unsigned long address, void *out, size_t size) {
    if (address == 0) return -1;
    struct iovec local = {out, size};
    struct iovec remote = {(void *)address, size};
    return syscall(SYS_process_vm_readv, (long)getpid(), &local, 1UL, &remote, 1UL, 0UL) == (long)size ? 0 : -1;
}

// Reads one aligned word (a frame-pointer link or a saved return address).
static int read_word(unsigned long address, unsigned long *out) {
    if ((address & 7) != 0) return -1;
    return read_bytes(address, out, sizeof *out);
}

#if defined(__x86_64__)
// Where a direct call made just before `ret` went: `call rel32` (E8) is the 5 bytes before a
// return address. A call into another image goes through its PLT stub (`jmp *GOT(%rip)`, after
// an `endbr64` and a `bnd` prefix when present), whose GOT slot holds the function's address
// once the call has been made. 0 when the bytes before `ret` are not such a call.
static unsigned long direct_call_target(unsigned long ret) {
    unsigned char call[5];
    if (ret < 5 || read_bytes(ret - 5, call, sizeof call) != 0 || call[0] != 0xE8) return 0;
    int rel;
    memcpy(&rel, call + 1, sizeof rel);
    unsigned long target = ret + (long)rel;
    unsigned char stub[11];
    if (read_bytes(target, stub, sizeof stub) != 0) return target;
    int at = 0;
    if (stub[0] == 0xF3 && stub[1] == 0x0F && stub[2] == 0x1E && stub[3] == 0xFA) at = 4;  // endbr64
    if (stub[at] == 0xF2) at += 1;                                                        // bnd
    if (stub[at] != 0xFF || stub[at + 1] != 0x25) return target;
    int disp;
    memcpy(&disp, stub + at + 2, sizeof disp);
    unsigned long slot = target + (unsigned long)at + 6 + (long)disp, resolved;
    if (read_bytes(slot, &resolved, sizeof resolved) != 0) return target;
    return resolved;
}

// A function that is only a jump to another (`jmp rel32`, as an overload that shares its
// body with another compiles to) stands for the function it jumps to: up to three such hops.
static unsigned long through_jumps(unsigned long function) {
    for (int hop = 0; hop < 3 && function != 0; hop++) {
        unsigned char jump[5];
        if (read_bytes(function, jump, sizeof jump) != 0 || jump[0] != 0xE9) break;
        int rel;
        memcpy(&rel, jump + 1, sizeof rel);
        function = function + 5 + (long)rel;
    }
    return function;
}

// The caller that a function without a frame pointer hides. Such a function's frame lies
// just above the frame of the function it called (at `inner`), below the next link of the chain
// (at `outer`, in its caller's frame); its return address, which the chain skips, is the word
// at the top of that frame. Such functions are small thunks (libswiftDispatch's timed waits
// push one word), so the lowest word above `inner` that returns after a direct call to the
// function holding `callee_pc` (at most 4 KB before it) is that return address; words higher
// up are the caller's own, whose stale contents could pass the test too. 0 when none passes,
// and the caller stays missing rather than guessed.
static unsigned long hidden_caller(unsigned long inner, unsigned long outer, unsigned long callee_pc) {
    unsigned long words[64];
    unsigned long from = inner + 16;
    if (outer <= from) return 0;
    size_t count = (outer - from) / 8;
    if (count > 64) count = 64;
    if (count == 0 || read_bytes(from, words, count * 8) != 0) return 0;
    for (size_t k = 0; k < count; k++) {
        unsigned long target = through_jumps(direct_call_target(words[k]));
        if (target != 0 && target <= callee_pc && callee_pc - target < 4096) return words[k];
    }
    return 0;
}
#endif

// The unwinder stops at a frame with no unwind information: a thread in a timed wait
// (`DispatchGroup.wait(timeout:)`, `DispatchSemaphore.wait(timeout:)`) stopped at
// libswiftDispatch's wait, so its chain ended in `syscall` and libdispatch with no caller of the
// author's. The frame-pointer chain of the interrupted context (each word read with
// `read_word`, each frame higher on the stack than the last, within 8 MB of the interrupted
// stack pointer) goes on past it: where the unwinder's last frame is a link of that chain, the
// links after it are its callers. The frame that lacks unwind information may lack a frame
// pointer too; then the chain skips its own caller, which `hidden_caller` finds on the stack.
static int clab_extend_by_frame_pointers(void **frames, int count, void *context) {
#if defined(__x86_64__)
    if (context == NULL || count < 1 || count >= CLAB_STACK_DEPTH) return count;
    ucontext_t *uc = (ucontext_t *)context;
    unsigned long sp = (unsigned long)uc->uc_mcontext.gregs[REG_RSP];
    unsigned long fp = (unsigned long)uc->uc_mcontext.gregs[REG_RBP];
    unsigned long top = sp + (8UL << 20);
    unsigned long chain[CLAB_STACK_DEPTH], base[CLAB_STACK_DEPTH];
    int links = 0;
    while (links < CLAB_STACK_DEPTH && fp > sp && fp < top) {
        unsigned long next, ret;
        if (read_word(fp, &next) != 0 || read_word(fp + 8, &ret) != 0 || ret <= 4096) break;
        base[links] = fp;
        chain[links++] = ret;
        if (next <= fp) break;
        fp = next;
    }
    unsigned long last = (unsigned long)frames[count - 1];
    for (int i = 0; i < links; i++) {
        if (chain[i] != last) continue;
        // `last` is in the function without unwind information; its caller, if the chain
        // skipped it, comes first.
        if (i + 1 < links && count < CLAB_STACK_DEPTH) {
            unsigned long hidden = hidden_caller(base[i], base[i + 1], last);
            if (hidden != 0 && hidden != chain[i + 1]) frames[count++] = (void *)hidden;
        }
        for (int j = i + 1; j < links && count < CLAB_STACK_DEPTH; j++) frames[count++] = (void *)chain[j];
        break;
    }
#else
    (void)frames; (void)context;
#endif
    return count;
}

static void clab_stacks_handler(int sig, siginfo_t *info, void *context) {
    (void)sig; (void)info;
    int saved = errno;
    void *frames[CLAB_STACK_DEPTH];
    int count = backtrace(frames, CLAB_STACK_DEPTH);
    count = clab_extend_by_frame_pointers(frames, count, context);
    char line[CLAB_STACK_DEPTH * 20 + 64];
    char *p = line;
    p = put_dec(p, (long)syscall(SYS_gettid));
    *p++ = ' ';
    p = put_dec(p, count);
    for (int i = 0; i < count; i++) { *p++ = ' '; p = put_hex(p, (unsigned long)frames[i]); }
    *p++ = '\n';
    int fd = open(stacks_path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t ignored = write(fd, line, (size_t)(p - line));
        (void)ignored;
        close(fd);
    }
    errno = saved;
}

int clab_stacks_signal(void) { return SIGPROF; }

int clab_stacks_installed(void) { return installed; }

int clab_stacks_install(void) {
    if (installed) return 0;
    snprintf(stacks_path, sizeof stacks_path, "/tmp/lab-stacks-%ld", (long)getpid());
    void *warm[2];
    (void)backtrace(warm, 2);
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = clab_stacks_handler;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    if (sigaction(SIGPROF, &action, NULL) != 0) return -1;
    installed = 1;
    return 0;
}

int clab_tgkill(pid_t pid, pid_t tid, int sig) {
    return (int)syscall(SYS_tgkill, pid, tid, sig);
}

const char *clab_stacks_unavailable_reason(void) { return NULL; }

// A child the harness launched (it sets LAB_PARENT_PID) answers stack requests from the first
// instruction of main on, without any call in the program; LAB_STACKS=off leaves it deaf.
// LAB_STACKS=on makes any process that loads this code answer: `lab watch` sets it, with this
// code preloaded as a shared library (libLabStackResponder.so), for every process it watches.
// Such a process also writes its C stdout a line at a time: `lab watch` reads it through a pipe,
// where the C library would otherwise hold XCTest's "Test Case ... started" lines in a 4 KiB
// buffer until long after the test began (or, for a test that hangs, forever).
__attribute__((constructor)) static void clab_stacks_install_in_children(void) {
    const char *choice = getenv("LAB_STACKS");
    if (choice != NULL && strcmp(choice, "off") == 0) return;
    int watched = choice != NULL && strcmp(choice, "on") == 0;
    if (watched) (void)setvbuf(stdout, NULL, _IOLBF, 0);
    if (getenv("LAB_PARENT_PID") != NULL || watched) (void)clab_stacks_install();
}

#else
// Darwin (and anything else): a snapshot asks each thread of another process by name, which
// needs Linux's tgkill (Darwin's pthread_kill reaches only the caller's own threads, and no
// call signals one thread of another process), and it names frames from /proc/PID/maps, which
// Darwin lacks. So none is taken, and the report says why.
#include <errno.h>
const char *clab_stacks_unavailable_reason(void) {
    return "stacks unavailable on this platform: a snapshot signals each thread of the process "
           "(Linux tgkill; Darwin can signal only its own threads) and names frames from /proc/PID/maps";
}
int clab_stacks_signal(void) { return 0; }
int clab_stacks_install(void) { return -1; }
int clab_stacks_installed(void) { return 0; }
int clab_tgkill(pid_t pid, pid_t tid, int sig) { (void)pid; (void)tid; (void)sig; errno = ENOTSUP; return -1; }
#endif
