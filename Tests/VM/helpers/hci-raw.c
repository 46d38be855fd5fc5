/*
 * hci-raw: sends HCI commands on a raw HCI socket and prints the events that come back, so a
 * scenario can drive a controller directly (e.g. the MSFT vendor commands on a kernel that
 * would not send them itself).
 *
 * Usage: hci-raw -i INDEX [-t SECONDS] [-w MILLIS] COMMAND...
 *   COMMAND is OPCODE:PARAMS in hex, e.g. fc1e:00 or 200c:0100 (PARAMS may be empty: 1003:).
 *   Each command is sent, then its Command Complete or Command Status awaited (up to 2 s)
 *   before the next; afterwards events are printed for SECONDS (default 0). Every event read is
 *   printed as "SECONDS.MICROS event CODE PARAMS" (hex, wall clock). Exit 1 when a command gets
 *   no answer, 2 on a usage or socket error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define AF_BLUETOOTH_ 31
#define BTPROTO_HCI_ 1
#define SOL_HCI_ 0
#define HCI_FILTER_ 2

struct sockaddr_hci_ { sa_family_t family; unsigned short dev, channel; };
struct hci_filter_ { uint32_t type_mask; uint32_t event_mask[2]; uint16_t opcode; };

static double wall(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int hexbytes(const char *s, uint8_t *out, int max) {
    int n = 0;
    while (s[0] && s[1] && n < max) {
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1) return -1;
        out[n++] = (uint8_t)v;
        s += 2;
    }
    return *s ? -1 : n;
}

/* Reads one event within MILLIS; prints it; returns the opcode it completes (or -1) via *done. */
static int read_event(int s, int millis, int *done) {
    struct pollfd p = {s, POLLIN, 0};
    *done = -1;
    if (poll(&p, 1, millis) <= 0) return 0;
    uint8_t b[300];
    ssize_t n = read(s, b, sizeof b);
    if (n < 3 || b[0] != 0x04) return n > 0;
    double t = wall();
    printf("%.6f event %02x ", t, b[1]);
    if (n == 3) printf("-");
    for (ssize_t i = 3; i < n; i++) printf("%02x", b[i]);
    printf("\n");
    fflush(stdout);
    if (b[1] == 0x0e && n >= 6) *done = b[4] | b[5] << 8;
    if (b[1] == 0x0f && n >= 7) *done = b[5] | b[6] << 8;
    return 1;
}

int main(int argc, char **argv) {
    int index = -1, opt;
    double seconds = 0;
    while ((opt = getopt(argc, argv, "i:t:")) != -1) {
        if (opt == 'i') index = atoi(optarg);
        else if (opt == 't') seconds = atof(optarg);
        else { fprintf(stderr, "usage: hci-raw -i INDEX [-t SECONDS] OPCODE:PARAMS...\n"); return 2; }
    }
    if (index < 0) { fprintf(stderr, "hci-raw: -i INDEX is required\n"); return 2; }
    int s = socket(AF_BLUETOOTH_, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI_);
    if (s < 0) { perror("hci-raw: socket"); return 2; }
    struct sockaddr_hci_ a = {AF_BLUETOOTH_, (unsigned short)index, 0};
    if (bind(s, (struct sockaddr *)&a, sizeof a) < 0) { perror("hci-raw: bind"); return 2; }
    struct hci_filter_ f = {1u << 4, {0xffffffff, 0xffffffff}, 0};
    if (setsockopt(s, SOL_HCI_, HCI_FILTER_, &f, sizeof f) < 0) { perror("hci-raw: HCI_FILTER"); return 2; }
    for (int i = optind; i < argc; i++) {
        unsigned opcode;
        char *colon = strchr(argv[i], ':');
        uint8_t pkt[260];
        int plen;
        if (!colon || sscanf(argv[i], "%4x", &opcode) != 1 || (plen = hexbytes(colon + 1, pkt + 4, 255)) < 0) {
            fprintf(stderr, "hci-raw: bad command %s (OPCODE:PARAMS in hex)\n", argv[i]);
            return 2;
        }
        pkt[0] = 0x01; pkt[1] = opcode & 0xff; pkt[2] = opcode >> 8; pkt[3] = (uint8_t)plen;
        if (write(s, pkt, 4 + plen) != 4 + plen) { perror("hci-raw: write"); return 2; }
        double deadline = wall() + 2;
        int done = -1;
        while (done != (int)opcode) {
            int left = (int)((deadline - wall()) * 1000);
            if (left <= 0) { fprintf(stderr, "hci-raw: no answer to %04x\n", opcode); return 1; }
            read_event(s, left, &done);
        }
    }
    double end = wall() + seconds;
    int done;
    for (int left; (left = (int)((end - wall()) * 1000)) > 0;) read_event(s, left, &done);
    return 0;
}
