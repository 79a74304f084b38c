// Process trees: what `lab watch` needs to keep a command's whole tree findable, to tell whether
// it still uses a CPU, and to make its processes answer requests for stacks.
#if defined(__linux__)
#define _GNU_SOURCE
#endif
#include "CLabPlatform.h"
#include "ReadSmallFile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/prctl.h>
#elif defined(__APPLE__)
#include <libproc.h>
#include <mach/mach_time.h>
#include <sys/proc_info.h>
#endif

#if defined(__linux__)

int clab_become_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1UL, 0UL, 0UL, 0UL) == 0 ? 0 : -1;
}

const char *clab_preload_variable(void) { return "LD_PRELOAD"; }

/// Reads /proc/PID/`name` into `text`; 0 when it cannot (the process is gone).
static int read_proc(pid_t pid, const char *name, char *text, size_t size) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/%s", (long)pid, name);
    return clab_read_small_file(path, text, size) > 0;
}

double clab_process_cpu_seconds_of(pid_t pid) {
    char stat[1024];
    if (!read_proc(pid, "stat", stat, sizeof stat)) return -1;
    // `pid (comm) S ppid ...`: count fields from after the last ')', where field 3 (the state) is.
    const char *p = strrchr(stat, ')');
    if (!p) return -1;
    p++;
    unsigned long long user = 0, system = 0;
    // After ')': state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15).
    if (sscanf(p, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &user, &system) != 2) return -1;
    long ticks = sysconf(_SC_CLK_TCK);
    if (ticks <= 0) ticks = 100;
    return (double)(user + system) / (double)ticks;
}

long clab_process_owner(pid_t pid) {
    char status[4096];
    if (!read_proc(pid, "status", status, sizeof status)) return -1;
    const char *line = strstr(status, "\nUid:");
    if (!line) return -1;
    char *end;
    long uid = strtol(line + 5, &end, 10);
    return end == line + 5 ? -1 : uid;
}

#elif defined(__APPLE__)

int clab_become_subreaper(void) { return -1; }

const char *clab_preload_variable(void) { return NULL; }

double clab_process_cpu_seconds_of(pid_t pid) {
    struct proc_taskinfo info;
    if (proc_pidinfo(pid, PROC_PIDTASKINFO, 0, &info, (int)sizeof info) != (int)sizeof info) return -1;
    mach_timebase_info_data_t base;
    if (mach_timebase_info(&base) != KERN_SUCCESS || base.denom == 0) return -1;
    double units = (double)info.pti_total_user + (double)info.pti_total_system;
    return units * (double)base.numer / (double)base.denom / 1e9;
}

long clab_process_owner(pid_t pid) {
    struct proc_bsdinfo info;
    if (proc_pidinfo(pid, PROC_PIDTBSDINFO, 0, &info, (int)sizeof info) == (int)sizeof info) return (long)info.pbi_ruid;
    struct proc_bsdshortinfo short_info;
    if (proc_pidinfo(pid, PROC_PIDT_SHORTBSDINFO, 0, &short_info, (int)sizeof short_info) == (int)sizeof short_info)
        return (long)short_info.pbsi_ruid;
    return -1;
}

#else
int clab_become_subreaper(void) { return -1; }
const char *clab_preload_variable(void) { return NULL; }
double clab_process_cpu_seconds_of(pid_t pid) { (void)pid; return -1; }
long clab_process_owner(pid_t pid) { (void)pid; return -1; }
#endif
