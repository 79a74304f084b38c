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
#include <sys/resource.h>
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

int clab_process_cpu_times_of(pid_t pid, double *own, double *children) {
    char stat[1024];
    if (!read_proc(pid, "stat", stat, sizeof stat)) return -1;
    // `pid (comm) S ppid ...`: count fields from after the last ')', where field 3 (the state) is.
    const char *p = strrchr(stat, ')');
    if (!p) return -1;
    p++;
    unsigned long long user = 0, system = 0;
    long long child_user = 0, child_system = 0;
    // After ')': state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15)
    // cutime(16) cstime(17), the last two signed (proc(5)).
    if (sscanf(p, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %lld %lld", &user, &system, &child_user,
               &child_system) != 4)
        return -1;
    long ticks = sysconf(_SC_CLK_TCK);
    if (ticks <= 0) ticks = 100;
    long long reaped = (child_user > 0 ? child_user : 0) + (child_system > 0 ? child_system : 0);
    if (own) *own = (double)(user + system) / (double)ticks;
    if (children) *children = (double)reaped / (double)ticks;
    return 0;
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

int clab_process_cpu_times_of(pid_t pid, double *own, double *children) {
    struct proc_taskinfo info;
    if (proc_pidinfo(pid, PROC_PIDTASKINFO, 0, &info, (int)sizeof info) != (int)sizeof info) return -1;
    mach_timebase_info_data_t base;
    if (mach_timebase_info(&base) != KERN_SUCCESS || base.denom == 0) return -1;
    double scale = (double)base.numer / (double)base.denom / 1e9;
    // The reaped children's times are in the process's rusage info (version 1 on), which xnu's
    // gather_rusage_info fills from p_stats->ri_child, summed at each reap (kern_exit.c calls
    // update_rusage_info_child): Mach time units, as the task info's. Not there: 0.
    struct rusage_info_v1 usage;
    double reaped = 0;
    if (proc_pid_rusage(pid, RUSAGE_INFO_V1, (rusage_info_t *)&usage) == 0)
        reaped = ((double)usage.ri_child_user_time + (double)usage.ri_child_system_time) * scale;
    if (own) *own = ((double)info.pti_total_user + (double)info.pti_total_system) * scale;
    if (children) *children = reaped;
    return 0;
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
int clab_process_cpu_times_of(pid_t pid, double *own, double *children) {
    (void)pid;
    (void)own;
    (void)children;
    return -1;
}
long clab_process_owner(pid_t pid) { (void)pid; return -1; }
#endif
