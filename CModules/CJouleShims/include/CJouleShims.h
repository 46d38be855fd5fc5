// What Swift cannot import from the C library, and nothing else. Each function says why.
#ifndef JOULE_SHIMS_H
#define JOULE_SHIMS_H

#include <signal.h>
#include <stdint.h>
#include <sys/types.h>
// statfs(2) and its f_type, which Glibc's module map leaves out (Syscalls.createFailure).
#include <sys/vfs.h>

// pidfd_open(2). glibc 2.36 has a wrapper in <sys/pidfd.h>, which Swift's Glibc module does
// not import, and syscall(2) is variadic, which Swift cannot call. Returns -1 with errno set
// (ENOSYS where the kernel or headers lack it).
int joule_pidfd_open(pid_t pid, unsigned int flags);

// mallopt(M_ARENA_MAX, count): malloc.h is not in Swift's Glibc module.
int joule_limit_malloc_arenas(int count);

// pidfd_send_signal(2), for the same reason.
int joule_pidfd_send_signal(int pidfd, int sig, siginfo_t *info, unsigned int flags);

// tgkill(2): a signal for one thread of a process, as a crash raises it (the tests' crashes).
int joule_tgkill(pid_t tgid, pid_t tid, int sig);

// Starts a child for `joule run`. fork(2) then, in the child, only async-signal-safe calls
// (Swift cannot run between fork and exec in a threaded process): reset the signal mask and
// the dispositions joule changed, join a cgroup by writing "0" to `cgroup_procs_fd` (when
// >= 0), wait for one byte on `gate_fd` (when >= 0: the parent registers the child first),
// then execve(2) `path`. Any failure writes the errno to `report_fd` (a CLOEXEC pipe: EOF
// there means the exec happened) and exits 127. Returns the PID, or -1 with errno set.
//
// With `uid` other than (uid_t)-1 the child also becomes that user before exec: setgroups to
// `groups`, then setresgid/setresuid to `gid`/`uid` (raw syscalls: glibc's wrappers signal
// every thread of the parent's, which the child no longer has), verifies it cannot return to
// root, and changes to `directory` (or "/" when that fails). Hooks run as their owner this way;
// posix_spawn cannot change users.
pid_t joule_spawn(const char *path, char *const argv[], char *const envp[],
                  int cgroup_procs_fd, int gate_fd, int gate_write_fd, int report_fd, const int *reset_signals, int reset_count,
                  uid_t uid, gid_t gid, const gid_t *groups, int group_count, const char *directory);

// What joule_fs_as does as the other user.
enum { JOULE_FS_OPENAT = 0, JOULE_FS_RENAMEAT = 1, JOULE_FS_UNLINKAT = 2 };

// One file-system call (openat(dirfd, name, flags, mode), renameat(dirfd, name, dirfd, name2)
// or unlinkat(dirfd, name, 0)) made with the rights of uid/gid/groups, for the root daemon
// acting for a user. It runs on a thread of its own, created for it and ended after it: Linux
// credentials belong to each thread, and that thread alone calls the raw setgroups, setfsgid
// and setfsuid syscalls (glibc's setgroups changes every thread of the process; setfsuid is
// per-thread in the kernel either way), so the rest of the daemon never loses root and the
// changed credentials never outlive the call. A non-zero fsuid also drops the thread's
// CAP_DAC_OVERRIDE and friends, so the kernel checks permissions as that user. Returns the
// call's result, or -1 with errno set (EPERM when the switch could not be verified).
int joule_fs_as(uid_t uid, gid_t gid, const gid_t *groups, int group_count,
                int operation, int dirfd, const char *name, const char *name2, int flags, mode_t mode);

// accept4(2) with SOCK_CLOEXEC | SOCK_NONBLOCK, and SO_PEERCRED's struct ucred: both need
// _GNU_SOURCE, which Swift's Glibc module is not built with.
int joule_accept_nonblocking(int fd);

/// Signal listeners' slots (0: free; else the signal mask in the high 32 bits and a pipe's
/// write end in the low 32), read by `joule_signal_forward` with atomic loads: a handler may
/// run on any thread while another registers a listener.
#define JOULE_SIGNAL_SLOTS 32
uint64_t joule_signal_slot_load(int index);
void joule_signal_slot_store(int index, uint64_t value);
/// The sigaction handler: writes the signal number to the pipe of every listener asking for it
/// (write(2) is async-signal-safe); keeps errno.
void joule_signal_forward(int number);
int joule_peer_credentials(int fd, pid_t *pid, uid_t *uid);

// prctl(PR_SET_CHILD_SUBREAPER, 1): orphans of the app reparent to joule, so its whole
// process tree stays visible (prctl is variadic in C).
int joule_set_child_subreaper(void);

// SHA-256 through the system libcrypto, dlopen-ed on first use (sha256.c). new returns NULL
// and points *error at the reason when libcrypto is missing or out of memory; final returns 0
// with the 32-byte digest in `digest`, -1 on failure; free releases the context.
void *joule_sha256_new(const char **error);
int joule_sha256_update(void *context, const void *bytes, size_t count);
int joule_sha256_final(void *context, unsigned char digest[32]);
void joule_sha256_free(void *context);

// prctl(PR_SET_NAME): the calling thread's name in /proc/PID/task/TID/comm (15 bytes kept).
int joule_set_thread_name(const char *name);

#endif
