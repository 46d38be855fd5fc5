/*
 * vhci-controller: a small virtual LE controller on /dev/vhci for Joule's VM scenarios.
 *
 * It creates a primary controller (vendor packet 0xff 0x00), answers the kernel's
 * initialisation as an LE-only 5.0 controller, brings the adapter up (HCIDEVUP, as
 * `hciconfig hci0 up` does) and, while the host has LE scanning enabled, sends the LE
 * advertising reports of a btsnoop capture. Every command the host sends is written to a
 * log, one line each: "SECONDS.MICROS OPCODE PARAMS" (hex, PARAMS "-" when empty), so a
 * scenario can check the scan parameters, the duty cycle and the final disable.
 *
 * The timeline of the capture starts when the host first enables scanning, as if the
 * beacons had been on the air all along: an advert that falls due while scanning is off, or
 * outside the scan window (the first WINDOW of every INTERVAL since the enable, as the host
 * set them), is not heard. Legacy reports are turned into extended ones when the host scans with the
 * extended commands; extended reports of legacy PDUs are turned back for a legacy scan.
 *
 * Usage: vhci-controller [options]
 *   -c FILE    btsnoop capture (datalink 1001, 1002 or 2001) whose LE advertising reports to send
 *   -l FILE    command log (default: none)
 *   -r FILE    written with "hciN" once the adapter is up
 *   -d FILE    written once the capture has been sent (every advert due, heard or not)
 *   -R HZ      send adverts at a fixed rate instead of by the capture's timestamps
 *   -L         loop the capture
 *   -D SECS    stop sending adverts SECS seconds after scanning was first enabled
 *   -S SECS    start the capture's timeline SECS after scanning was first enabled (a host
 *              that enables scanning before it listens, as the kernel's discovery does, would
 *              otherwise miss an advert due at once)
 *   -x         support LE extended scanning (OCF 0x41/0x42; feature bit and command bits)
 *   -X         refuse legacy LE Set Scan Parameters/Enable with Command Disallowed (implies -x)
 *   -n N       vanish (close /dev/vhci, exit) after sending N adverts
 *   -t SECS    vanish SECS seconds after scanning was first enabled
 *   -W         hear adverts all the time scanning is on, ignoring the scan window
 *   -U         do not bring the adapter up
 *   -m OPCODE  offer the Microsoft HCI extension (MSFT) on vendor OPCODE (e.g. 0xfc1e): it is
 *              written to hci_vhci's debugfs msft_opcode before the adapter comes up (exit 3,
 *              "msft_opcode unsupported", when the kernel has no such file: no CONFIG_BT_MSFTEXT)
 *   -M OPCODE  offer MSFT on OPCODE without telling the kernel: a raw HCI socket drives it
 *
 * With -m the controller answers MSFT Read Supported Features (LE advertisement monitor),
 * LE Monitor Advertisement (pattern conditions), LE Cancel Monitor Advertisement and LE Set
 * Advertisement Filter Enable, as a real MSFT controller does: a heard advert whose AD data
 * matches a monitor's pattern (AD type, start byte, bytes) at RSSI >= the monitor's high
 * threshold raises the MSFT LE Monitor Device event (state 1) for that address, and when no
 * match at RSSI >= the low threshold was heard for the monitor's low interval, the event with
 * state 0. While the filter is enabled, an advert that matches no monitor is not forwarded.
 * The log gains "# msft ..." lines: the monitors as programmed, the filter state, every
 * device found/lost. SIGUSR1 logs "# stats reports N filtered N msft-events N" (reports
 * forwarded, reports filtered, MSFT events, since the start); SIGTERM logs it and exits 0.
 *
 * /dev/vhci is read with blocking reads after poll(2) says a packet is there, one packet per
 * read; the loop never sleeps elsewhere, so the kernel's commands are answered at once.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef AF_BLUETOOTH
#define AF_BLUETOOTH 31
#endif
#define BTPROTO_HCI 1
#define HCIDEVUP _IOW('H', 201, int)
#define HCIDEVDOWN _IOW('H', 202, int)

#define PKT_COMMAND 0x01
#define PKT_EVENT 0x04
#define PKT_VENDOR 0xff

#define EVT_CMD_COMPLETE 0x0e
#define EVT_CMD_STATUS 0x0f
#define EVT_LE_META 0x3e
#define LE_ADV_REPORT 0x02
#define LE_EXT_ADV_REPORT 0x0d

#define ST_SUCCESS 0x00
#define ST_UNKNOWN_COMMAND 0x01
#define ST_COMMAND_DISALLOWED 0x0c
#define ST_INVALID_PARAMS 0x12

static const char *capture_path, *log_path, *ready_path, *done_path;
static double rate_hz;        /* 0: by timestamps */
static int loop_capture;
static double send_for = -1;  /* seconds after first enable; <0: no limit */
static double lead_in;        /* -S */
static int extended_ok, refuse_legacy, bring_up = 1, ignore_window;
static long vanish_adverts = -1;
static int msft_opcode;       /* 0: no MSFT extension */
static int msft_tell_kernel;  /* -m: write it to hci_vhci's debugfs msft_opcode */
static double vanish_after = -1;

static int vhci = -1;
static FILE *cmdlog;
static int index_id = -1;

/* Scan state as the host set it. */
static int legacy_scanning, ext_scanning;
static int first_enable_done;
static double timeline_start;    /* monotonic seconds at the first enable */
static long adverts_sent;
/* The scan window and interval the host set (seconds), and when scanning was last enabled. */
static double scan_window = 0.01, scan_interval = 0.01, enabled_at;

static const uint8_t bdaddr[6] = {0x01, 0xee, 0x1e, 0x0c, 0x7e, 0xc0}; /* C0:7E:0C:1E:EE:01 */

/* One advertising report, kept in both shapes it may be sent in. */
struct advert {
    double offset;        /* seconds from the capture's start */
    uint8_t legacy[260];  /* LE Meta parameters (subevent 0x02 ...), or len 0 if none */
    int legacy_len;
    uint8_t ext[260];     /* LE Meta parameters (subevent 0x0d ...) */
    int ext_len;
    /* The single report's fields, for MSFT monitor matching (has_fields 0: a malformed or
     * multi-report event, which matches no monitor). */
    int has_fields;
    uint8_t addr_type, addr[6], data[255], data_len;
    int8_t rssi;
};
static struct advert *adverts;
static int advert_count;
static double capture_period;

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "vhci-controller: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

static double mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void log_line(const char *fmt, ...) {
    if (!cmdlog) return;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    fprintf(cmdlog, "%lld.%06ld ", (long long)ts.tv_sec, ts.tv_nsec / 1000);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(cmdlog, fmt, ap);
    va_end(ap);
    fputc('\n', cmdlog);
    fflush(cmdlog);
}

static void write_file(const char *path, const char *text) {
    if (!path) return;
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f) die("%s: %s", tmp, strerror(errno));
    fputs(text, f);
    fclose(f);
    if (rename(tmp, path) != 0) die("rename %s: %s", path, strerror(errno));
}

static void send_packet(const uint8_t *p, size_t n) {
    for (;;) {
        ssize_t w = write(vhci, p, n);
        if (w == (ssize_t)n) return;
        if (w < 0 && errno == EINTR) continue;
        die("write /dev/vhci: %s", w < 0 ? strerror(errno) : "short write");
    }
}

static void send_event(uint8_t code, const uint8_t *params, size_t len) {
    uint8_t p[2 + 1 + 255];
    p[0] = PKT_EVENT;
    p[1] = code;
    p[2] = (uint8_t)len;
    memcpy(p + 3, params, len);
    send_packet(p, len + 3);
}

static void command_complete(uint16_t opcode, uint8_t status, const uint8_t *ret, size_t len) {
    uint8_t p[255];
    p[0] = 1; /* Num_HCI_Command_Packets */
    p[1] = opcode & 0xff;
    p[2] = opcode >> 8;
    p[3] = status;
    if (len) memcpy(p + 4, ret, len);
    send_event(EVT_CMD_COMPLETE, p, 4 + len);
}

static void command_status(uint16_t opcode, uint8_t status) {
    uint8_t p[4] = {status, 1, opcode & 0xff, opcode >> 8};
    send_event(EVT_CMD_STATUS, p, 4);
}

/* ---- The capture ---- */

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }

/* Legacy event type -> extended event type (legacy PDU bit 0x10 set). */
static uint16_t ext_type_of(uint8_t legacy) {
    switch (legacy) {
    case 0x00: return 0x0013; /* ADV_IND */
    case 0x01: return 0x0015; /* ADV_DIRECT_IND */
    case 0x02: return 0x0012; /* ADV_SCAN_IND */
    case 0x03: return 0x0010; /* ADV_NONCONN_IND */
    case 0x04: return 0x001b; /* SCAN_RSP to ADV_IND */
    default: return 0x0010;
    }
}

/* Extended event type of a legacy PDU -> legacy event type; -1 if not a legacy PDU. */
static int legacy_type_of(uint16_t ext) {
    if (!(ext & 0x10)) return -1;
    switch (ext & 0x1f) {
    case 0x13: return 0x00;
    case 0x15: return 0x01;
    case 0x12: return 0x02;
    case 0x10: return 0x03;
    case 0x1b: case 0x1a: return 0x04;
    default: return 0x03;
    }
}

static struct advert *new_advert(double offset) {
    static int cap;
    if (advert_count == cap) {
        cap = cap ? cap * 2 : 64;
        adverts = realloc(adverts, cap * sizeof *adverts);
        if (!adverts) die("out of memory");
    }
    struct advert *a = &adverts[advert_count++];
    memset(a, 0, sizeof *a);
    a->offset = offset;
    return a;
}

/* One report, in one advert of each shape. */
static void add_report(double offset, uint16_t ext_type, int legacy_type, uint8_t addr_type, const uint8_t *addr,
                       const uint8_t *data, uint8_t data_len, int8_t rssi, int8_t tx_power, uint8_t sid) {
    struct advert *a = new_advert(offset);
    a->has_fields = 1;
    a->addr_type = addr_type;
    memcpy(a->addr, addr, 6);
    memcpy(a->data, data, data_len);
    a->data_len = data_len;
    a->rssi = rssi;
    uint8_t *e = a->ext;
    e[0] = LE_EXT_ADV_REPORT;
    e[1] = 1;
    e[2] = ext_type & 0xff;
    e[3] = ext_type >> 8;
    e[4] = addr_type;
    memcpy(e + 5, addr, 6);
    e[11] = 0x01;                         /* primary PHY LE 1M */
    e[12] = legacy_type >= 0 ? 0x00 : 0x01; /* secondary PHY */
    e[13] = sid;
    e[14] = (uint8_t)tx_power;
    e[15] = (uint8_t)rssi;
    e[16] = e[17] = 0;                    /* periodic advertising interval */
    e[18] = 0;                            /* direct address type */
    memset(e + 19, 0, 6);
    e[25] = data_len;
    memcpy(e + 26, data, data_len);
    a->ext_len = 26 + data_len;
    if (legacy_type >= 0 && data_len <= 31) {
        uint8_t *l = a->legacy;
        l[0] = LE_ADV_REPORT;
        l[1] = 1;
        l[2] = (uint8_t)legacy_type;
        l[3] = addr_type;
        memcpy(l + 4, addr, 6);
        l[10] = data_len;
        memcpy(l + 11, data, data_len);
        l[11 + data_len] = (uint8_t)rssi;
        a->legacy_len = 12 + data_len;
    }
}

/* An LE Meta event from the capture (parameters after the event header). Multi-report events
 * are laid out report after report, as Linux reads them. A malformed event is sent as it is,
 * to both kinds of scan, so the host's decoder meets it. */
static void add_meta(double offset, const uint8_t *p, size_t n) {
    if (n < 2) return;
    if (p[0] == LE_ADV_REPORT) {
        size_t o = 2;
        int ok = 1;
        for (int i = 0; i < p[1]; i++) {
            /* type, address type, address, length, data, RSSI */
            if (o + 9 > n || o + 9 + p[o + 8] + 1 > n) { ok = 0; break; }
            o += 9 + p[o + 8] + 1;
        }
        if (!ok || o != n) {
            struct advert *a = new_advert(offset);
            memcpy(a->legacy, p, n);
            memcpy(a->ext, p, n);
            a->legacy_len = a->ext_len = (int)n;
            return;
        }
        {
            /* Keep a multi-report event whole for a legacy scan; split it for an extended one. */
            struct advert *whole = NULL;
            if (p[1] > 1) {
                whole = new_advert(offset);
                memcpy(whole->legacy, p, n);
                whole->legacy_len = (int)n;
            }
            o = 2;
            for (int i = 0; i < p[1]; i++) {
                const uint8_t *r = p + o;
                uint8_t len = r[8];
                add_report(offset, ext_type_of(r[0]), r[0], r[1], r + 2, r + 9, len, (int8_t)r[9 + len], 0x7f, 0xff);
                if (whole) adverts[advert_count - 1].legacy_len = 0;
                o += 9 + len + 1;
            }
        }
    } else if (p[0] == LE_EXT_ADV_REPORT) {
        size_t o = 2;
        int ok = 1;
        for (int i = 0; i < p[1]; i++) {
            if (o + 24 > n || o + 24 + p[o + 23] > n) { ok = 0; break; }
            o += 24 + p[o + 23];
        }
        if (!ok || o != n) {
            struct advert *a = new_advert(offset);
            memcpy(a->legacy, p, n);
            memcpy(a->ext, p, n);
            a->legacy_len = a->ext_len = (int)n;
            return;
        }
        struct advert *whole = NULL;
        if (p[1] > 1) {
            whole = new_advert(offset);
            memcpy(whole->ext, p, n);
            whole->ext_len = (int)n;
        }
        o = 2;
        for (int i = 0; i < p[1]; i++) {
            const uint8_t *r = p + o;
            uint16_t type = r[0] | r[1] << 8;
            uint8_t len = r[23];
            add_report(offset, type, legacy_type_of(type), r[2], r + 3, r + 24, len, (int8_t)r[13], (int8_t)r[12], r[11]);
            if (whole) adverts[advert_count - 1].ext_len = 0;
            o += 24 + len;
        }
    }
}

static void load_capture(const char *path) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) die("%s: %s", path, strerror(errno));
    struct stat st;
    fstat(fd, &st);
    uint8_t *d = malloc(st.st_size + 1);
    if (!d || read(fd, d, st.st_size) != st.st_size) die("%s: read failed", path);
    close(fd);
    if (st.st_size < 16 || memcmp(d, "btsnoop\0", 8) != 0) die("%s: not a btsnoop file", path);
    uint32_t datalink = be32(d + 12);
    if (datalink != 1001 && datalink != 1002 && datalink != 2001) die("%s: datalink %u not supported", path, datalink);
    size_t o = 16;
    int64_t first = 0;
    int have_first = 0, n = 0;
    while (o + 24 <= (size_t)st.st_size) {
        uint32_t incl = be32(d + o + 4), flags = be32(d + o + 8);
        int64_t ts = (int64_t)((uint64_t)be32(d + o + 16) << 32 | be32(d + o + 20));
        const uint8_t *rec = d + o + 24;
        if (o + 24 + incl > (size_t)st.st_size) break;
        o += 24 + incl;
        const uint8_t *ev = NULL;
        size_t evlen = 0;
        if (datalink == 1002 && incl >= 1 && rec[0] == PKT_EVENT) {
            ev = rec + 1;
            evlen = incl - 1;
        } else if (datalink == 1001 && (flags & 3) == 3) {
            ev = rec;
            evlen = incl;
        } else if (datalink == 2001 && (flags & 0xffff) == 3) {
            ev = rec;
            evlen = incl;
        }
        if (!ev || evlen < 2 || ev[0] != EVT_LE_META) continue;
        size_t plen = ev[1] < evlen - 2 ? ev[1] : evlen - 2;
        if (!have_first) { first = ts; have_first = 1; }
        double offset = rate_hz > 0 ? n / rate_hz : (ts - first) / 1e6;
        add_meta(offset, ev + 2, plen);
        n++;
    }
    free(d);
    if (advert_count == 0) die("%s: no LE advertising reports", path);
    double last = adverts[advert_count - 1].offset;
    capture_period = last + (rate_hz > 0 ? 1 / rate_hz : 1.0);
}


/* ---- The Microsoft HCI extension (MSFT) ---- */

#define MSFT_READ_SUPPORTED_FEATURES 0x00
#define MSFT_LE_MONITOR_ADVERTISEMENT 0x03
#define MSFT_LE_CANCEL_MONITOR_ADVERTISEMENT 0x04
#define MSFT_LE_SET_ADVERTISEMENT_FILTER_ENABLE 0x05
#define MSFT_EV_LE_MONITOR_DEVICE 0x02
#define MSFT_MAX_MONITORS 16
#define MSFT_MAX_PATTERNS 8
#define MSFT_MAX_DEVICES 32

/* Vendor events start with this prefix, as Read Supported Features says. */
static const uint8_t msft_evt_prefix[] = {0x4a, 0x4c};

struct msft_pattern {
    uint8_t ad_type, start, len, bytes[31];
};
struct msft_monitor {
    int used;
    uint8_t handle;
    int8_t rssi_high, rssi_low;
    double low_interval;                 /* seconds */
    int pattern_count;
    struct msft_pattern patterns[MSFT_MAX_PATTERNS];
};
/* An address a monitor reported (state 1), until reported lost. */
struct msft_device {
    int used;
    uint8_t handle, addr_type, addr[6];
    double last_match;                   /* monotonic seconds */
};
static struct msft_monitor monitors[MSFT_MAX_MONITORS];
static struct msft_device msft_devices[MSFT_MAX_DEVICES];
static int msft_filter_enabled;
static uint8_t next_monitor_handle = 1;
static long reports_filtered, msft_events;

static void hexify(char *out, const uint8_t *p, int n) {
    for (int i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", p[i]);
    out[2 * n] = 0;
}

/* Whether the AD data has a structure of TYPE whose data holds PATTERN at its start byte. */
static int pattern_matches(const struct msft_pattern *pt, const uint8_t *data, int len) {
    for (int o = 0; o < len;) {
        int l = data[o];
        if (l == 0 || o + 1 + l > len) return 0;
        if (data[o + 1] == pt->ad_type && pt->start + pt->len <= l - 1 &&
            memcmp(data + o + 2 + pt->start, pt->bytes, pt->len) == 0)
            return 1;
        o += 1 + l;
    }
    return 0;
}

static int monitor_matches(const struct msft_monitor *m, const struct advert *a) {
    if (!a->has_fields) return 0;
    for (int i = 0; i < m->pattern_count; i++)
        if (pattern_matches(&m->patterns[i], a->data, a->data_len)) return 1;
    return 0;
}

static void msft_monitor_device_event(const struct msft_device *d, uint8_t state) {
    uint8_t p[32];
    size_t n = sizeof msft_evt_prefix;
    memcpy(p, msft_evt_prefix, n);
    p[n++] = MSFT_EV_LE_MONITOR_DEVICE;
    p[n++] = d->addr_type;
    memcpy(p + n, d->addr, 6);
    n += 6;
    p[n++] = d->handle;
    p[n++] = state;
    send_event(0xff, p, n);
    msft_events++;
    log_line("# msft device %s handle %u %02x:%02x:%02x:%02x:%02x:%02x", state ? "found" : "lost", d->handle,
             d->addr[5], d->addr[4], d->addr[3], d->addr[2], d->addr[1], d->addr[0]);
}

static struct msft_device *msft_device_for(uint8_t handle, const uint8_t *addr) {
    for (int i = 0; i < MSFT_MAX_DEVICES; i++)
        if (msft_devices[i].used && msft_devices[i].handle == handle && memcmp(msft_devices[i].addr, addr, 6) == 0)
            return &msft_devices[i];
    return NULL;
}

/* A heard advert, through the monitors: returns whether any monitor matched it. */
static int msft_hear(const struct advert *a, double now) {
    int matched = 0;
    for (int i = 0; i < MSFT_MAX_MONITORS; i++) {
        struct msft_monitor *m = &monitors[i];
        if (!m->used || !monitor_matches(m, a)) continue;
        matched = 1;
        struct msft_device *d = msft_device_for(m->handle, a->addr);
        if (d) {
            if (a->rssi >= m->rssi_low) d->last_match = now;
        } else if (a->rssi >= m->rssi_high) {
            for (int j = 0; j < MSFT_MAX_DEVICES; j++) {
                if (msft_devices[j].used) continue;
                d = &msft_devices[j];
                d->used = 1;
                d->handle = m->handle;
                d->addr_type = a->addr_type;
                memcpy(d->addr, a->addr, 6);
                d->last_match = now;
                msft_monitor_device_event(d, 1);
                break;
            }
        }
    }
    return matched;
}

static double msft_low_interval(uint8_t handle) {
    for (int i = 0; i < MSFT_MAX_MONITORS; i++)
        if (monitors[i].used && monitors[i].handle == handle) return monitors[i].low_interval;
    return 1;
}

/* Reports devices whose monitor heard no match for its low interval as lost; returns the
 * milliseconds until the next such deadline (-1: none). */
static int msft_expire(double now) {
    double next = -1;
    for (int i = 0; i < MSFT_MAX_DEVICES; i++) {
        struct msft_device *d = &msft_devices[i];
        if (!d->used) continue;
        double due = d->last_match + msft_low_interval(d->handle);
        if (due <= now) {
            msft_monitor_device_event(d, 0);
            d->used = 0;
        } else if (next < 0 || due < next) {
            next = due;
        }
    }
    return next < 0 ? -1 : (int)((next - now) * 1000) + 1;
}

/* One MSFT command (PAR[0] is the sub-opcode); fills the return parameters after the status. */
static uint8_t msft_command(const uint8_t *par, int plen, uint8_t *r, size_t *rl) {
    if (plen < 1) return ST_INVALID_PARAMS;
    uint8_t sub = par[0];
    r[0] = sub;
    *rl = 1;
    char text[700];
    switch (sub) {
    case MSFT_READ_SUPPORTED_FEATURES:
        memset(r + 1, 0, 8);
        r[1] = 0x0f; /* RSSI monitors (BR/EDR, LE connection, LE advertising) and LE advertisement monitor */
        r[9] = sizeof msft_evt_prefix;
        memcpy(r + 10, msft_evt_prefix, sizeof msft_evt_prefix);
        *rl = 10 + sizeof msft_evt_prefix;
        log_line("# msft features read");
        return ST_SUCCESS;
    case MSFT_LE_MONITOR_ADVERTISEMENT: {
        /* rssi_high, rssi_low, rssi_low_interval, rssi_sampling_period, condition type,
         * then for patterns (type 0x01): count, and per pattern length, AD type, start, bytes. */
        if (plen < 8 || par[5] != 0x01) return ST_INVALID_PARAMS;
        struct msft_monitor *m = NULL;
        for (int i = 0; i < MSFT_MAX_MONITORS; i++)
            if (!monitors[i].used) { m = &monitors[i]; break; }
        if (!m) return 0x07; /* Memory Capacity Exceeded */
        struct msft_monitor nm = {0};
        nm.rssi_high = (int8_t)par[1];
        nm.rssi_low = (int8_t)par[2];
        nm.low_interval = par[3] ? par[3] : 1;
        int count = par[6], o = 7;
        size_t t = 0;
        for (int i = 0; i < count; i++) {
            if (i >= MSFT_MAX_PATTERNS || o >= plen || par[o] < 2 || par[o] - 2 > 31 || o + 1 + par[o] > plen)
                return ST_INVALID_PARAMS;
            struct msft_pattern *pt = &nm.patterns[i];
            pt->ad_type = par[o + 1];
            pt->start = par[o + 2];
            pt->len = par[o] - 2;
            memcpy(pt->bytes, par + o + 3, pt->len);
            char hex[70];
            hexify(hex, pt->bytes, pt->len);
            t += snprintf(text + t, sizeof text - t, " %02x@%u=%s", pt->ad_type, pt->start, hex);
            o += 1 + par[o];
        }
        if (count == 0 || o != plen) return ST_INVALID_PARAMS;
        nm.pattern_count = count;
        nm.used = 1;
        nm.handle = next_monitor_handle++;
        *m = nm;
        r[1] = m->handle;
        *rl = 2;
        log_line("# msft monitor %u rssi %d/%d low-interval %u patterns%s", m->handle, m->rssi_high, m->rssi_low,
                 par[3], text);
        return ST_SUCCESS;
    }
    case MSFT_LE_CANCEL_MONITOR_ADVERTISEMENT:
        if (plen != 2) return ST_INVALID_PARAMS;
        for (int i = 0; i < MSFT_MAX_MONITORS; i++) {
            if (!monitors[i].used || monitors[i].handle != par[1]) continue;
            monitors[i].used = 0;
            for (int j = 0; j < MSFT_MAX_DEVICES; j++)
                if (msft_devices[j].used && msft_devices[j].handle == par[1]) msft_devices[j].used = 0;
            log_line("# msft cancel %u", par[1]);
            return ST_SUCCESS;
        }
        return ST_INVALID_PARAMS;
    case MSFT_LE_SET_ADVERTISEMENT_FILTER_ENABLE:
        if (plen != 2 || par[1] > 1) return ST_INVALID_PARAMS;
        msft_filter_enabled = par[1];
        log_line("# msft filter %s", par[1] ? "on" : "off");
        return ST_SUCCESS;
    default:
        return ST_UNKNOWN_COMMAND;
    }
}

/* ---- Commands ---- */

static uint8_t local_features[8] = {0, 0, 0, 0, 0x60, 0, 0, 0}; /* BR/EDR not supported, LE supported */
static uint8_t le_features[8];
static uint8_t commands[64];

static void set_command_bit(int octet, int bit) { commands[octet] |= 1 << bit; }

static void init_tables(void) {
    set_command_bit(5, 6);   /* Set Event Mask */
    set_command_bit(5, 7);   /* Reset */
    set_command_bit(14, 3);  /* Read Local Version Information */
    set_command_bit(14, 5);  /* Read Local Supported Features */
    set_command_bit(14, 7);  /* Read Buffer Size */
    set_command_bit(15, 1);  /* Read BD_ADDR */
    set_command_bit(25, 0);  /* LE Set Event Mask */
    set_command_bit(25, 1);  /* LE Read Buffer Size */
    set_command_bit(25, 2);  /* LE Read Local Supported Features */
    set_command_bit(26, 2);  /* LE Set Scan Parameters */
    set_command_bit(26, 3);  /* LE Set Scan Enable */
    set_command_bit(26, 6);  /* LE Read Filter Accept List Size */
    set_command_bit(26, 7);  /* LE Clear Filter Accept List */
    set_command_bit(28, 3);  /* LE Read Supported States */
    if (extended_ok) {
        le_features[1] |= 0x10; /* LE Extended Advertising */
        set_command_bit(37, 5); /* LE Set Extended Scan Parameters */
        set_command_bit(37, 6); /* LE Set Extended Scan Enable */
    }
}


static void set_window(const uint8_t *interval, const uint8_t *window) {
    scan_interval = (interval[0] | interval[1] << 8) * 0.000625;
    scan_window = (window[0] | window[1] << 8) * 0.000625;
}

/* Whether the radio listens now: scanning, and inside the window of the current interval. */
static int listening(double now) {
    if (!legacy_scanning && !ext_scanning) return 0;
    if (ignore_window || scan_window >= scan_interval) return 1;
    double since = now - enabled_at;
    return since - (double)(long long)(since / scan_interval) * scan_interval < scan_window;
}

static void scan_enabled(int on, int was_on) {
    if (on && !was_on) enabled_at = mono();
    if (on && !first_enable_done) {
        first_enable_done = 1;
        timeline_start = mono() + lead_in;
    }
}

static void handle_command(const uint8_t *p, size_t n) {
    if (n < 3) return;
    uint16_t opcode = p[0] | p[1] << 8;
    uint8_t plen = p[2];
    const uint8_t *par = p + 3;
    if (3 + (size_t)plen > n) plen = (uint8_t)(n - 3);
    char hex[600];
    if (plen == 0) strcpy(hex, "-");
    for (int i = 0; i < plen; i++) sprintf(hex + 2 * i, "%02x", par[i]);
    log_line("%04x %s", opcode, hex);

    uint8_t r[255];
    memset(r, 0, sizeof r);
    size_t rl = 0;
    uint8_t st = ST_SUCCESS;
    if (msft_opcode && opcode == msft_opcode) {
        /* MSFT commands always complete, with the sub-opcode after the status. */
        st = msft_command(par, plen, r, &rl);
        if (st != ST_SUCCESS) rl = plen ? 1 : 0;
        log_line("# answer %04x status %02x", opcode, st);
        command_complete(opcode, st, r, rl);
        return;
    }
    switch (opcode) {
    case 0x0c03: /* Reset */
        legacy_scanning = ext_scanning = 0;
        memset(monitors, 0, sizeof monitors);
        memset(msft_devices, 0, sizeof msft_devices);
        msft_filter_enabled = 0;
        break;
    case 0x0c01: case 0x2001: case 0x0c63: case 0x0c05: case 0x0c16: case 0x0c6d: case 0x0c56:
    case 0x2010: case 0x2011: case 0x2012: case 0x2029: case 0x202d: case 0x202e: case 0x2024: case 0x2031:
    case 0x2005: case 0x2006: case 0x2008: case 0x2009: case 0x200a: case 0x0c13: case 0x0c1a: case 0x0c24:
        break;
    case 0x1001: /* Read Local Version Information: 5.0, Linux Foundation */
        r[0] = 0x09; r[1] = 0x00; r[2] = 0x00; r[3] = 0x09; r[4] = 0xf1; r[5] = 0x05; r[6] = 0x00; r[7] = 0x00;
        rl = 8;
        break;
    case 0x1002: memcpy(r, commands, 64); rl = 64; break;
    case 0x1003: memcpy(r, local_features, 8); rl = 8; break;
    case 0x1004: /* Read Local Extended Features */
        r[0] = plen ? par[0] : 0; r[1] = 0;
        if (r[0] == 0) memcpy(r + 2, local_features, 8);
        rl = 10;
        break;
    case 0x1005: /* Read Buffer Size: ACL 1021 x 8, SCO 0 */
        r[0] = 0xfd; r[1] = 0x03; r[2] = 0; r[3] = 8; r[4] = 0; r[5] = 0; r[6] = 0;
        rl = 7;
        break;
    case 0x1009: memcpy(r, bdaddr, 6); rl = 6; break;
    case 0x0c23: rl = 3; break;                  /* Read Class of Device */
    case 0x0c14: strcpy((char *)r, "joule-vhci"); rl = 248; break;
    case 0x0c25: rl = 2; break;                  /* Read Voice Setting */
    case 0x0c38: r[0] = 1; rl = 1; break;        /* Read Number of Supported IAC */
    case 0x0c39: r[0] = 1; r[1] = 0x33; r[2] = 0x8b; r[3] = 0x9e; rl = 4; break;
    case 0x0c1b: r[0] = 0x00; r[1] = 0x08; r[2] = 0x12; r[3] = 0x00; rl = 4; break;
    case 0x0c46: case 0x0c58: rl = 1; break;
    case 0x0c6c: rl = 2; break;
    case 0x0c12: rl = 2; break;
    case 0x0c0d: rl = 4; break;
    case 0x2002: r[0] = 0xfb; r[1] = 0x00; r[2] = 8; rl = 3; break; /* LE Read Buffer Size: 251 x 8 */
    case 0x2060: r[0] = 0xfb; r[1] = 0x00; r[2] = 8; rl = 6; break;
    case 0x2003: memcpy(r, le_features, 8); rl = 8; break;
    case 0x201c: memset(r, 0xff, 5); rl = 8; break;                 /* LE Read Supported States */
    case 0x2007: r[0] = 0; rl = 1; break;                           /* LE Read Adv Channel TX Power */
    case 0x200f: r[0] = 16; rl = 1; break;                          /* LE Read Filter Accept List Size */
    case 0x202a: r[0] = 16; rl = 1; break;                          /* LE Read Resolving List Size */
    case 0x202f: r[0] = 0xfb; r[2] = 0x48; r[3] = 0x08; r[4] = 0xfb; r[6] = 0x48; r[7] = 0x08; rl = 8; break;
    case 0x2023: r[0] = 0x1b; r[2] = 0x48; r[3] = 0x01; rl = 4; break;
    case 0x203b: r[0] = 1; rl = 1; break;
    case 0x204b: r[0] = (uint8_t)-20; r[1] = 10; rl = 2; break;
    case 0x203c: case 0x203d: if (!extended_ok) st = ST_UNKNOWN_COMMAND; break;
    case 0x200b: /* LE Set Scan Parameters */
        if (refuse_legacy || ext_scanning) st = ST_COMMAND_DISALLOWED;
        else if (legacy_scanning) st = ST_COMMAND_DISALLOWED;
        else if (plen != 7) st = ST_INVALID_PARAMS;
        else set_window(par + 1, par + 3);
        break;
    case 0x200c: /* LE Set Scan Enable */
        if (refuse_legacy || ext_scanning) st = ST_COMMAND_DISALLOWED;
        else if (plen != 2 || par[0] > 1) st = ST_INVALID_PARAMS;
        else {
            int was = legacy_scanning;
            legacy_scanning = par[0];
            scan_enabled(par[0], was);
        }
        break;
    case 0x2041: /* LE Set Extended Scan Parameters */
        if (!extended_ok) st = ST_UNKNOWN_COMMAND;
        else if (ext_scanning || legacy_scanning) st = ST_COMMAND_DISALLOWED;
        else if (plen < 8 || !(par[2] & 1)) st = ST_INVALID_PARAMS;
        else set_window(par + 4, par + 6);
        break;
    case 0x2042: /* LE Set Extended Scan Enable */
        if (!extended_ok) st = ST_UNKNOWN_COMMAND;
        else if (legacy_scanning) st = ST_COMMAND_DISALLOWED;
        else if (plen != 6 || par[0] > 1) st = ST_INVALID_PARAMS;
        else {
            int was = ext_scanning;
            ext_scanning = par[0];
            scan_enabled(par[0], was);
        }
        break;
    default:
        st = ST_UNKNOWN_COMMAND;
        break;
    }
    if (st != ST_SUCCESS) rl = 0;
    log_line("# answer %04x status %02x", opcode, st);
    if (st == ST_UNKNOWN_COMMAND && (opcode >> 10) == 0x3f) command_status(opcode, st);
    else command_complete(opcode, st, r, rl);
}

/* ---- Main loop ---- */

static void vanish(const char *why) {
    log_line("# vanish %s after %ld adverts", why, adverts_sent);
    close(vhci);
    vhci = -1;
    exit(0);
}

static void bring_adapter_up(void) {
    pid_t pid = fork();
    if (pid < 0) die("fork: %s", strerror(errno));
    if (pid > 0) return;
    int s = socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI);
    if (s < 0) { fprintf(stderr, "vhci-controller: socket(AF_BLUETOOTH): %s\n", strerror(errno)); _exit(1); }
    int tries = 0;
    if (msft_tell_kernel) {
        /* hci_vhci reads msft_opcode in its setup, which runs at every power-on
         * (HCI_QUIRK_NON_PERSISTENT_SETUP): if the kernel's own power-on after registration
         * won the race, power-cycle so that setup sees it. */
        ioctl(s, HCIDEVDOWN, index_id);
    }
    while (ioctl(s, HCIDEVUP, index_id) < 0 && errno != EALREADY) {
        if (++tries > 20 || (errno != EBUSY && errno != EAGAIN)) {
            fprintf(stderr, "vhci-controller: HCIDEVUP hci%d: %s\n", index_id, strerror(errno));
            _exit(1);
        }
        usleep(200000);
    }
    close(s);
    char text[32];
    snprintf(text, sizeof text, "hci%d\n", index_id);
    write_file(ready_path, text);
    _exit(0);
}

/* Tells hci_vhci to treat vendor opcode msft_opcode as the MSFT extension (debugfs), before
 * the adapter is brought up. */
static void set_msft_opcode(void) {
    char path[128], text[16];
    snprintf(path, sizeof path, "/sys/kernel/debug/bluetooth/hci%d/msft_opcode", index_id);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        log_line("# msft_opcode unsupported: %s: %s", path, strerror(errno));
        fprintf(stderr, "vhci-controller: msft_opcode unsupported: %s: %s\n", path, strerror(errno));
        exit(3);
    }
    int n = snprintf(text, sizeof text, "0x%04x", msft_opcode);
    if (write(fd, text, n) != n && errno != EALREADY) die("%s: %s", path, strerror(errno));
    close(fd);
    log_line("# msft_opcode %04x", msft_opcode);
}

static volatile sig_atomic_t terminate, stats_wanted;
static void on_term(int sig) { (void)sig; terminate = 1; }
static void on_usr1(int sig) { (void)sig; stats_wanted = 1; }

static void usage(void) {
    fprintf(stderr, "usage: vhci-controller [-c CAPTURE] [-l LOG] [-r READY] [-d DONE] [-R HZ] [-L] [-S SECS] [-D SECS] [-x] [-X] [-n N] [-t SECS] [-W] [-U] [-m|-M OPCODE]\n");
    exit(2);
}

int main(int argc, char **argv) {
    int opt;
    while ((opt = getopt(argc, argv, "c:l:r:d:R:LS:D:xXn:t:WUm:M:h")) != -1) {
        switch (opt) {
        case 'c': capture_path = optarg; break;
        case 'l': log_path = optarg; break;
        case 'r': ready_path = optarg; break;
        case 'd': done_path = optarg; break;
        case 'R': rate_hz = atof(optarg); break;
        case 'L': loop_capture = 1; break;
        case 'S': lead_in = atof(optarg); break;
        case 'D': send_for = atof(optarg); break;
        case 'x': extended_ok = 1; break;
        case 'X': refuse_legacy = 1; extended_ok = 1; break;
        case 'n': vanish_adverts = atol(optarg); break;
        case 't': vanish_after = atof(optarg); break;
        case 'W': ignore_window = 1; break;
        case 'U': bring_up = 0; break;
        case 'm': case 'M':
            msft_tell_kernel = opt == 'm';
            msft_opcode = (int)strtol(optarg, NULL, 0);
            if (msft_opcode >> 10 != 0x3f || msft_opcode > 0xffff) die("-m %s: not a vendor opcode (OGF 0x3f)", optarg);
            break;
        default: usage();
        }
    }
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa = {0};
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);   /* no SA_RESTART: poll returns EINTR */
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    init_tables();
    if (capture_path) load_capture(capture_path);
    if (log_path) {
        cmdlog = fopen(log_path, "a");
        if (!cmdlog) die("%s: %s", log_path, strerror(errno));
    }

    vhci = open("/dev/vhci", O_RDWR | O_CLOEXEC);
    if (vhci < 0) die("/dev/vhci: %s", strerror(errno));
    uint8_t create[2] = {PKT_VENDOR, 0x00};
    send_packet(create, 2);

    uint8_t buf[2048];
    int next = 0;           /* next advert to send */
    long cycle = 0;         /* loops of the capture done */
    int done_written = 0, child_running = 0;
    for (;;) {
        double now = mono();
        int timeout = -1;
        if (first_enable_done && capture_path && next >= 0) {
            double due = timeline_start + cycle * capture_period + adverts[next].offset;
            double left = due - now;
            timeout = left <= 0 ? 0 : (int)(left * 1000) + 1;
        }
        if (first_enable_done && vanish_after >= 0) {
            double left = timeline_start + vanish_after - now;
            int t = left <= 0 ? 0 : (int)(left * 1000) + 1;
            if (timeout < 0 || t < timeout) timeout = t;
        }
        if (child_running && (timeout < 0 || timeout > 100)) timeout = 100;
        int msft_due = msft_expire(now);
        if (msft_due >= 0 && (timeout < 0 || msft_due < timeout)) timeout = msft_due;
        struct pollfd pfd = {vhci, POLLIN, 0};
        int ready = terminate || stats_wanted ? 0 : poll(&pfd, 1, timeout);
        if (terminate || stats_wanted) {
            log_line("# stats reports %ld filtered %ld msft-events %ld", adverts_sent, reports_filtered, msft_events);
            if (terminate) exit(0);
            stats_wanted = 0;
            continue;
        }
        if (ready < 0 && errno != EINTR) die("poll: %s", strerror(errno));
        if (child_running) {
            int status;
            if (waitpid(-1, &status, WNOHANG) > 0) {
                child_running = 0;
                if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) die("could not bring hci%d up", index_id);
                log_line("# up hci%d", index_id);
            }
        }
        if (ready > 0 && (pfd.revents & (POLLERR | POLLHUP | POLLNVAL))) die("/dev/vhci: hang-up");
        if (ready > 0 && (pfd.revents & POLLIN)) {
            ssize_t n = read(vhci, buf, sizeof buf);
            if (n < 0 && errno != EINTR && errno != EAGAIN) die("read /dev/vhci: %s", strerror(errno));
            if (n > 0) {
                if (buf[0] == PKT_VENDOR && n >= 4 && index_id < 0) {
                    index_id = buf[2] | buf[3] << 8;
                    log_line("# created hci%d", index_id);
                    fprintf(stderr, "vhci-controller: hci%d\n", index_id);
                    if (msft_tell_kernel) set_msft_opcode();
                    if (bring_up) {
                        bring_adapter_up();
                        child_running = 1;
                    } else if (ready_path) {
                        char text[32];
                        snprintf(text, sizeof text, "hci%d\n", index_id);
                        write_file(ready_path, text);
                    }
                } else if (buf[0] == PKT_COMMAND) {
                    handle_command(buf + 1, n - 1);
                } else {
                    log_line("# packet type %02x, %zd bytes, ignored", buf[0], n);
                }
            }
        }
        now = mono();
        if (first_enable_done && vanish_after >= 0 && now >= timeline_start + vanish_after) vanish("on time");
        /* Send every advert now due: heard if scanning, lost on the air if not. */
        while (first_enable_done && capture_path && next >= 0) {
            double due = timeline_start + cycle * capture_period + adverts[next].offset;
            if (due > now) break;
            if (send_for >= 0 && due - timeline_start >= send_for) {
                next = -1;
                break;
            }
            struct advert *a = &adverts[next];
            const uint8_t *ev = NULL;
            int len = 0;
            if (listening(now)) {
                if (legacy_scanning && a->legacy_len) { ev = a->legacy; len = a->legacy_len; }
                if (ext_scanning && a->ext_len) { ev = a->ext; len = a->ext_len; }
                /* The monitors hear it; with the filter on, only a match goes to the host. */
                if (ev && msft_opcode && !msft_hear(a, now) && msft_filter_enabled) {
                    ev = NULL;
                    reports_filtered++;
                }
            }
            if (ev) {
                send_event(EVT_LE_META, ev, len);
                adverts_sent++;
                if (vanish_adverts >= 0 && adverts_sent >= vanish_adverts) vanish("after adverts");
            }
            if (++next == advert_count) {
                next = 0;
                cycle++;
                if (!done_written) {
                    log_line("# capture sent, %ld adverts heard", adverts_sent);
                    write_file(done_path, "done\n");
                    done_written = 1;
                }
                if (!loop_capture) next = -1;
            }
        }
        if (next < 0 && !done_written && first_enable_done) {
            log_line("# adverts stopped, %ld heard", adverts_sent);
            write_file(done_path, "done\n");
            done_written = 1;
        }
    }
}
