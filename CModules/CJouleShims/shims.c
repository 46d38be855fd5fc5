#define _GNU_SOURCE
#include "CJouleShims.h"

#include <errno.h>
#include <sys/syscall.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

int joule_pidfd_open(pid_t pid, unsigned int flags) {
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, flags);
#else
    errno = ENOSYS;
    return -1;
#endif
}

int joule_pidfd_send_signal(int pidfd, int sig, siginfo_t *info, unsigned int flags) {
#ifdef SYS_pidfd_send_signal
    return (int)syscall(SYS_pidfd_send_signal, pidfd, sig, info, flags);
#else
    errno = ENOSYS;
    return -1;
#endif
}

static void joule_spawn_fail(int report_fd) {
    int code = errno;
    ssize_t ignored = write(report_fd, &code, sizeof code);
    (void)ignored;
    _exit(127);
}

pid_t joule_spawn(const char *path, char *const argv[], char *const envp[],
                  int cgroup_procs_fd, int gate_fd, int gate_write_fd, int report_fd, const int *reset_signals, int reset_count) {
    pid_t pid = fork();
    if (pid != 0) return pid;
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int i = 0; i < reset_count; i++) signal(reset_signals[i], SIG_DFL);
    if (cgroup_procs_fd >= 0) {
        if (write(cgroup_procs_fd, "0\n", 2) != 2) joule_spawn_fail(report_fd);
        close(cgroup_procs_fd);
    }
    // The child's copy of the gate's write end would keep the read below from seeing EOF.
    if (gate_write_fd >= 0) close(gate_write_fd);
    if (gate_fd >= 0) {
        char byte;
        ssize_t got;
        do { got = read(gate_fd, &byte, 1); } while (got < 0 && errno == EINTR);
        // EOF without the byte: the parent gave up (it failed to register the child).
        if (got != 1) { errno = ECANCELED; joule_spawn_fail(report_fd); }
        close(gate_fd);
    }
    execve(path, argv, envp);
    joule_spawn_fail(report_fd);
    return -1;
}

int joule_set_child_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

int joule_set_thread_name(const char *name) { return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0); }

int joule_accept_nonblocking(int fd) { return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK); }

int joule_peer_credentials(int fd, pid_t *pid, uid_t *uid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    return 0;
}
