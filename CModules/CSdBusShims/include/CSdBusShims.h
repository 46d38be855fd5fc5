// What Swift cannot import from sd-bus, and nothing else. Each function says why.
#ifndef JOULE_SD_BUS_SHIMS_H
#define JOULE_SD_BUS_SHIMS_H

#include <stddef.h>
#include <systemd/sd-bus.h>

enum {
    JOULE_SD_BUS_MEMBER_PROPERTY = 0,
    JOULE_SD_BUS_MEMBER_METHOD = 1,
    JOULE_SD_BUS_MEMBER_SIGNAL = 2,
};

// One member of an interface, described in plain fields Swift can fill in.
typedef struct {
    int kind;                 // JOULE_SD_BUS_MEMBER_*
    const char *name;         // member name
    const char *signature;    // property type, method input or signal arguments
    const char *result;       // method output; unused otherwise
    const char *names;        // argument names, each ending in NUL (in, then out), as SD_BUS_PARAM
    size_t names_length;      // bytes in names, counting every NUL
    int emits_change;         // property: emits PropertiesChanged with its value
} joule_sd_bus_member;

// A heap-allocated sd_bus_vtable for sd_bus_add_object_vtable. The table is built with the
// SD_BUS_VTABLE_START/PROPERTY/METHOD_WITH_NAMES/SIGNAL_WITH_NAMES/END macros: they fill a
// bitfield struct and a union with designated initialisers and take the address of
// sd_bus_object_vtable_format, none of which Swift can import. Every property uses `getter`,
// every method `handler` (both with offset 0), and methods are SD_BUS_VTABLE_UNPRIVILEGED: the
// daemon authorises callers itself (polkit). Strings are copied. NULL on ENOMEM.
sd_bus_vtable *joule_sd_bus_vtable_new(const joule_sd_bus_member *members, size_t count,
                                       sd_bus_property_get_t getter,
                                       sd_bus_message_handler_t handler);

// Frees a table from joule_sd_bus_vtable_new and its strings, once its slot is unreferenced.
void joule_sd_bus_vtable_free(sd_bus_vtable *vtable);

#endif
