/* cpuuse PID SECONDS: prints the percentage of one core PID spent over SECONDS of wall time
 * (utime + stime from /proc/PID/stat, CLOCK_MONOTONIC for the wall). Exit 1 if PID vanished. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long ticks(const char *pid) {
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p) return -1;
    unsigned long long ut = 0, st = 0;
    /* after ") ": state(3) ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime(14) stime(15) */
    if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2) return -1;
    return (long long)(ut + st);
}

static double mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: cpuuse PID SECONDS\n"); return 2; }
    double secs = atof(argv[2]);
    long long t0 = ticks(argv[1]);
    double w0 = mono();
    usleep((useconds_t)(secs * 1e6));
    long long t1 = ticks(argv[1]);
    double w1 = mono();
    if (t0 < 0 || t1 < 0) { fprintf(stderr, "cpuuse: pid %s vanished\n", argv[1]); return 1; }
    double hz = (double)sysconf(_SC_CLK_TCK);
    printf("%.0f\n", 100.0 * ((t1 - t0) / hz) / (w1 - w0));
    return 0;
}
