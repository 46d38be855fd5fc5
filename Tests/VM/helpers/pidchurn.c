/* pidchurn SECONDS: for SECONDS, keeps PIDs churning while victims burn CPU.
 * - bystanders: children named "bystander" that live ~5 ms and exit 0, forked back to back, so
 *   (with a small kernel.pid_max) every freed PID is soon reused;
 * - victims: one at a time, children named "victim" that spin for up to 8 s then exit 0.
 * A CPU monitor watching `^victim$` must SIGKILL victims and never a bystander that reused a
 * victim's PID. Prints `bystanders=N bystanders_killed=K victims=V victims_killed=VK
 * victims_survived=VS reused=R` (R: bystanders whose PID had belonged to a victim). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

#define MAXPID 4194304
static unsigned char was_victim[MAXPID / 8 + 1];

int main(int argc, char **argv) {
    double secs = argc > 1 ? atof(argv[1]) : 8;
    double end = mono() + secs;
    long bystanders = 0, bkilled = 0, victims = 0, vkilled = 0, vsurvived = 0, reused = 0;
    pid_t victim = 0;
    while (mono() < end || victim) {
        if (!victim && mono() < end) {
            pid_t p = fork();
            if (p == 0) {
                prctl(PR_SET_NAME, "victim");
                double stop = mono() + 8;
                volatile unsigned long n = 0;
                while (mono() < stop) n++;
                _exit(0);
            }
            if (p > 0) { victim = p; victims++; if (p < MAXPID) was_victim[p / 8] |= 1 << (p % 8); }
        }
        for (int i = 0; i < 2 && mono() < end; i++) {
            pid_t p = fork();
            if (p == 0) {
                prctl(PR_SET_NAME, "bystander");
                usleep(5000);
                _exit(0);
            }
            if (p > 0) {
                bystanders++;
                if (p < MAXPID && (was_victim[p / 8] & (1 << (p % 8)))) reused++;
            }
        }
        int status;
        pid_t w;
        while ((w = waitpid(-1, &status, mono() < end ? WNOHANG : 0)) > 0) {
            int killed = WIFSIGNALED(status);
            if (w == victim) {
                victim = 0;
                if (killed && WTERMSIG(status) == SIGKILL) {
                    vkilled++;
                } else {
                    vsurvived++;
                    fprintf(stderr, "pidchurn: victim %d survived (status %#x)\n", w, status);
                }
            } else if (killed) {
                bkilled++;
                fprintf(stderr, "pidchurn: bystander %d killed by signal %d\n", w, WTERMSIG(status));
            }
            if (mono() >= end && !victim) break;
        }
        if (mono() < end) usleep(2000);
    }
    while (waitpid(-1, NULL, 0) > 0) {}
    printf("bystanders=%ld bystanders_killed=%ld victims=%ld victims_killed=%ld victims_survived=%ld reused=%ld\n",
           bystanders, bkilled, victims, vkilled, vsurvived, reused);
    return 0;
}
