/*
 * run-as UID GID COMMAND [ARG...]: runs COMMAND as an unprivileged user. Supplementary groups
 * are dropped, then the group and user IDs are set; leaving UID 0 this way clears every
 * capability (no keep-caps), so COMMAND runs without CAP_NET_RAW or CAP_NET_ADMIN.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: run-as UID GID COMMAND [ARG...]\n");
        return 2;
    }
    uid_t uid = (uid_t)strtoul(argv[1], NULL, 10);
    gid_t gid = (gid_t)strtoul(argv[2], NULL, 10);
    if (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid(uid) != 0) {
        fprintf(stderr, "run-as: dropping to %u:%u: %s\n", uid, gid, strerror(errno));
        return 126;
    }
    if (uid != 0 && setuid(0) == 0) {
        fprintf(stderr, "run-as: could regain root\n");
        return 126;
    }
    execvp(argv[3], argv + 3);
    fprintf(stderr, "run-as: %s: %s\n", argv[3], strerror(errno));
    return 127;
}
