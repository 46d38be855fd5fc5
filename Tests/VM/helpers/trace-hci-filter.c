/*
 * trace-hci-filter LOG COMMAND [ARG...]: runs COMMAND under ptrace(2), following all its
 * threads, and writes to LOG every getsockopt/setsockopt(SOL_HCI, HCI_FILTER) it makes with
 * the filter's value, one per line:
 *   SECONDS.MICROS get|set FD TYPE_MASK EVENT_MASK_LOW EVENT_MASK_HIGH OPCODE   (masks in hex)
 * (wall-clock time, as vhci-controller's command log has it)
 * so a scenario can check that a program put back the filter it found. It also logs every
 * Bluetooth socket it opens and every packet it writes to a raw HCI socket (a command):
 *   SECONDS.MICROS socket FD PROTO            (PROTO 1: BTPROTO_HCI)
 *   SECONDS.MICROS send FD SYSCALL            (write, writev, sendto or sendmsg on an HCI socket)
 * so a scenario can prove that a program sent no raw HCI command. SIGINT and SIGTERM
 * sent to trace-hci-filter are passed on to COMMAND; it exits with COMMAND's status.
 * x86_64 only (syscall numbers and registers).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SOL_HCI 0
#define HCI_FILTER 2

static pid_t child;
#define AF_BLUETOOTH_ 31
#define BTPROTO_HCI_ 1
static char hci_fd[4096];  /* fds that are raw HCI sockets */

static void stamp(FILE *log) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    fprintf(log, "%lld.%06ld ", (long long)now.tv_sec, now.tv_nsec / 1000);
}

/* socket() results and sends on HCI sockets; ENTRY tells the syscall's entry from its exit. */
static void log_socket_use(FILE *log, const struct user_regs_struct *r, int entry) {
    long long nr = r->orig_rax;
    if (!entry && nr == SYS_socket && r->rdi == AF_BLUETOOTH_ && (long long)r->rax >= 0) {
        stamp(log);
        fprintf(log, "socket %lld %lld\n", (long long)r->rax, (long long)r->rdx);
        fflush(log);
        if (r->rax < sizeof hci_fd) hci_fd[r->rax] = r->rdx == BTPROTO_HCI_;
    } else if (entry && nr == SYS_close && r->rdi < sizeof hci_fd) {
        hci_fd[r->rdi] = 0;
    } else if (entry && r->rdi < sizeof hci_fd && hci_fd[r->rdi] &&
               (nr == SYS_write || nr == SYS_writev || nr == SYS_sendto || nr == SYS_sendmsg)) {
        const char *name = nr == SYS_write ? "write" : nr == SYS_writev ? "writev" : nr == SYS_sendto ? "sendto" : "sendmsg";
        stamp(log);
        fprintf(log, "send %lld %s\n", (long long)r->rdi, name);
        fflush(log);
    }
}

static void forward(int sig) {
    if (child > 0) kill(child, sig);
}

/* Reads the 14 bytes of a struct hci_filter at `address` in `pid`. */
static int read_filter(pid_t pid, unsigned long address, uint8_t out[16]) {
    for (int i = 0; i < 2; i++) {
        errno = 0;
        long word = ptrace(PTRACE_PEEKDATA, pid, (void *)(address + 8 * i), NULL);
        if (errno != 0) return -1;
        memcpy(out + 8 * i, &word, 8);
    }
    return 0;
}

static void log_filter(FILE *log, const char *what, pid_t pid, const struct user_regs_struct *r) {
    stamp(log);
    uint8_t f[16];
    if (read_filter(pid, r->r10, f) != 0) {
        fprintf(log, "%s %lld unreadable\n", what, (long long)r->rdi);
        return;
    }
    uint32_t type, ev0, ev1;
    uint16_t opcode;
    memcpy(&type, f, 4);
    memcpy(&ev0, f + 4, 4);
    memcpy(&ev1, f + 8, 4);
    memcpy(&opcode, f + 12, 2);
    fprintf(log, "%s %lld %08x %08x %08x %04x\n", what, (long long)r->rdi, type, ev0, ev1, opcode);
    fflush(log);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: trace-hci-filter LOG COMMAND [ARG...]\n");
        return 2;
    }
    FILE *log = fopen(argv[1], "we");
    if (!log) {
        perror(argv[1]);
        return 2;
    }
    child = fork();
    if (child < 0) {
        perror("fork");
        return 2;
    }
    if (child == 0) {
        ptrace(PTRACE_TRACEME, 0, NULL, NULL);
        raise(SIGSTOP);
        execvp(argv[2], argv + 2);
        fprintf(stderr, "trace-hci-filter: %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = forward;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {}
    ptrace(PTRACE_SETOPTIONS, child, NULL,
           (void *)(long)(PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL));
    ptrace(PTRACE_SYSCALL, child, NULL, NULL);

    int exit_code = 1;
    for (;;) {
        pid_t pid = waitpid(-1, &status, __WALL);
        if (pid < 0) {
            if (errno == EINTR) continue;
            break; /* ECHILD: every thread is gone */
        }
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            if (pid == child) exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
            continue;
        }
        if (!WIFSTOPPED(status)) continue;
        int sig = WSTOPSIG(status);
        int event = status >> 16;
        int pass = 0;
        if (sig == (SIGTRAP | 0x80)) {
            struct user_regs_struct r;
            if (ptrace(PTRACE_GETREGS, pid, NULL, &r) == 0) {
                int entry = (long long)r.rax == -ENOSYS;
                if (r.rsi == SOL_HCI && r.rdx == HCI_FILTER) {
                    if (entry && r.orig_rax == SYS_setsockopt) log_filter(log, "set", pid, &r);
                    if (!entry && r.orig_rax == SYS_getsockopt && r.rax == 0) log_filter(log, "get", pid, &r);
                }
                log_socket_use(log, &r, entry);
            }
        } else if (sig == SIGTRAP && event != 0) {
            /* clone or exec event: nothing to pass on */
        } else if (sig == SIGSTOP) {
            /* a new thread's first stop, or the child's own SIGSTOP: swallowed */
        } else {
            pass = sig;
        }
        ptrace(PTRACE_SYSCALL, pid, NULL, (void *)(long)pass);
    }
    return exit_code;
}
