#define _GNU_SOURCE
#include "CJouleShims.h"

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

int joule_limit_malloc_arenas(int count) {
    return mallopt(M_ARENA_MAX, count);
}

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

int joule_tgkill(pid_t tgid, pid_t tid, int sig) {
    return (int)syscall(SYS_tgkill, tgid, tid, sig);
}

static void joule_spawn_fail(int report_fd) {
    int code = errno;
    ssize_t ignored = write(report_fd, &code, sizeof code);
    (void)ignored;
    _exit(127);
}

// The 32-bit-id variants where the architecture has both (i386, arm).
#ifdef SYS_setgroups32
#define JOULE_SYS_SETGROUPS SYS_setgroups32
#define JOULE_SYS_SETRESGID SYS_setresgid32
#define JOULE_SYS_SETRESUID SYS_setresuid32
#define JOULE_SYS_SETFSGID SYS_setfsgid32
#define JOULE_SYS_SETFSUID SYS_setfsuid32
#else
#define JOULE_SYS_SETGROUPS SYS_setgroups
#define JOULE_SYS_SETRESGID SYS_setresgid
#define JOULE_SYS_SETRESUID SYS_setresuid
#define JOULE_SYS_SETFSGID SYS_setfsgid
#define JOULE_SYS_SETFSUID SYS_setfsuid
#endif

static int joule_become(uid_t uid, gid_t gid, const gid_t *groups, int group_count, const char *directory) {
    if (syscall(JOULE_SYS_SETGROUPS, (size_t)group_count, groups) != 0) return -1;
    if (syscall(JOULE_SYS_SETRESGID, gid, gid, gid) != 0) return -1;
    if (syscall(JOULE_SYS_SETRESUID, uid, uid, uid) != 0) return -1;
    // A user other than root must not be able to get root back.
    if (uid != 0 && syscall(JOULE_SYS_SETRESUID, 0, 0, 0) == 0) { errno = EPERM; return -1; }
    if (getuid() != uid || geteuid() != uid || getgid() != gid) { errno = EPERM; return -1; }
    if (directory == NULL || chdir(directory) != 0) {
        if (chdir("/") != 0) return -1;
    }
    return 0;
}

pid_t joule_spawn(const char *path, char *const argv[], char *const envp[],
                  int cgroup_procs_fd, int gate_fd, int gate_write_fd, int report_fd, const int *reset_signals, int reset_count,
                  uid_t uid, gid_t gid, const gid_t *groups, int group_count, const char *directory) {
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
    if (uid != (uid_t)-1 && joule_become(uid, gid, groups, group_count, directory) != 0) joule_spawn_fail(report_fd);
    execve(path, argv, envp);
    joule_spawn_fail(report_fd);
    return -1;
}

struct joule_fs_job {
    uid_t uid;
    gid_t gid;
    const gid_t *groups;
    int group_count;
    int operation, dirfd, flags;
    const char *name, *name2;
    mode_t mode;
    int result, error;
};

static void *joule_fs_thread(void *argument) {
    struct joule_fs_job *job = argument;
    job->result = -1;
    // No signal handler may run with these credentials.
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, NULL);
    if (syscall(JOULE_SYS_SETGROUPS, (size_t)job->group_count, job->groups) != 0) { job->error = errno; return NULL; }
    // setfs*id return the previous id whatever happens; an invalid id (-1) reads the current one.
    syscall(JOULE_SYS_SETFSGID, job->gid);
    syscall(JOULE_SYS_SETFSUID, job->uid);
    if ((gid_t)syscall(JOULE_SYS_SETFSGID, (gid_t)-1) != job->gid || (uid_t)syscall(JOULE_SYS_SETFSUID, (uid_t)-1) != job->uid) {
        job->error = EPERM;
        return NULL;
    }
    switch (job->operation) {
    case JOULE_FS_OPENAT: job->result = openat(job->dirfd, job->name, job->flags, job->mode); break;
    case JOULE_FS_RENAMEAT: job->result = renameat(job->dirfd, job->name, job->dirfd, job->name2); break;
    case JOULE_FS_UNLINKAT: job->result = unlinkat(job->dirfd, job->name, 0); break;
    default: errno = EINVAL; break;
    }
    job->error = errno;
    return NULL;
}

int joule_fs_as(uid_t uid, gid_t gid, const gid_t *groups, int group_count,
                int operation, int dirfd, const char *name, const char *name2, int flags, mode_t mode) {
    struct joule_fs_job job = {uid, gid, groups, group_count, operation, dirfd, flags, name, name2, mode, -1, 0};
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setstacksize(&attributes, 64 * 1024);
    pthread_t thread;
    int failed = pthread_create(&thread, &attributes, joule_fs_thread, &job);
    pthread_attr_destroy(&attributes);
    if (failed != 0) { errno = failed; return -1; }
    pthread_join(thread, NULL);
    errno = job.error;
    return job.result;
}

int joule_set_child_subreaper(void) { return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); }

int joule_set_thread_name(const char *name) { return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0); }

int joule_accept_nonblocking(int fd) { return accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK); }

static _Atomic uint64_t signal_slots[JOULE_SIGNAL_SLOTS];

uint64_t joule_signal_slot_load(int index) {
    return atomic_load_explicit(&signal_slots[index], memory_order_acquire);
}

void joule_signal_slot_store(int index, uint64_t value) {
    atomic_store_explicit(&signal_slots[index], value, memory_order_release);
}

void joule_signal_forward(int number) {
    if (number <= 0 || number >= 32) return;
    int saved = errno;
    for (int index = 0; index < JOULE_SIGNAL_SLOTS; index++) {
        uint64_t value = atomic_load_explicit(&signal_slots[index], memory_order_acquire);
        if (!((value >> 32) & (1ull << number))) continue;
        unsigned char byte = (unsigned char)number;
        (void)!write((int)(uint32_t)value, &byte, 1);
    }
    errno = saved;
}

int joule_peer_credentials(int fd, pid_t *pid, uid_t *uid) {
    struct ucred credentials;
    socklen_t length = sizeof credentials;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0) return -1;
    *pid = credentials.pid;
    *uid = credentials.uid;
    return 0;
}
