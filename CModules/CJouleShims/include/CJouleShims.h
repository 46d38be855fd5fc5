// What Swift cannot import from the C library, and nothing else. Each function says why.
#ifndef JOULE_SHIMS_H
#define JOULE_SHIMS_H

#include <signal.h>
#include <sys/types.h>

// pidfd_open(2). glibc 2.36 has a wrapper in <sys/pidfd.h>, which Swift's Glibc module does
// not import, and syscall(2) is variadic, which Swift cannot call. Returns -1 with errno set
// (ENOSYS where the kernel or headers lack it).
int joule_pidfd_open(pid_t pid, unsigned int flags);

// pidfd_send_signal(2), for the same reason.
int joule_pidfd_send_signal(int pidfd, int sig, siginfo_t *info, unsigned int flags);

#endif
