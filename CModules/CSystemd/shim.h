#ifndef JOULE_CSYSTEMD_SHIM_H
#define JOULE_CSYSTEMD_SHIM_H
#include <systemd/sd-bus.h>
#include <systemd/sd-daemon.h>
#endif
