#include "CJouleShims.h"

#include <errno.h>
#include <sys/syscall.h>
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
