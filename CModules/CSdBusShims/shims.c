#include "CSdBusShims.h"

#include <stdlib.h>
#include <string.h>

static char *copy_bytes(const char *bytes, size_t length) {
    char *copy = malloc(length + 1);
    if (copy == NULL) return NULL;
    if (length > 0) memcpy(copy, bytes, length);
    copy[length] = '\0';
    return copy;
}

static char *copy_string(const char *text) { return copy_bytes(text ? text : "", text ? strlen(text) : 0); }

sd_bus_vtable *joule_sd_bus_vtable_new(const joule_sd_bus_member *members, size_t count,
                                       sd_bus_property_get_t getter,
                                       sd_bus_message_handler_t handler) {
    sd_bus_vtable *table = calloc(count + 2, sizeof(sd_bus_vtable));
    if (table == NULL) return NULL;
    const sd_bus_vtable start = SD_BUS_VTABLE_START(0);
    table[0] = start;
    for (size_t i = 0; i < count; i++) {
        const joule_sd_bus_member *m = &members[i];
        char *name = copy_string(m->name);
        char *signature = copy_string(m->signature);
        char *result = copy_string(m->result);
        char *names = copy_bytes(m->names ? m->names : "", m->names ? m->names_length : 0);
        sd_bus_vtable entry;
        switch (m->kind) {
        case JOULE_SD_BUS_MEMBER_PROPERTY: {
            const sd_bus_vtable property = SD_BUS_PROPERTY(
                name, signature, getter, 0,
                m->emits_change ? SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE : 0);
            entry = property;
            free(result);
            free(names);
            break;
        }
        case JOULE_SD_BUS_MEMBER_METHOD: {
            const sd_bus_vtable method = SD_BUS_METHOD_WITH_NAMES_OFFSET(
                name, signature, "", result, "", handler, 0, SD_BUS_VTABLE_UNPRIVILEGED);
            entry = method;
            entry.x.method.names = names;
            break;
        }
        default: {
            const sd_bus_vtable signal = SD_BUS_SIGNAL_WITH_NAMES(name, signature, "", 0);
            entry = signal;
            entry.x.signal.names = names;
            free(result);
            break;
        }
        }
        table[i + 1] = entry;
    }
    const sd_bus_vtable end = SD_BUS_VTABLE_END;
    table[count + 1] = end;
    return table;
}

void joule_sd_bus_vtable_free(sd_bus_vtable *vtable) {
    if (vtable == NULL) return;
    for (sd_bus_vtable *e = vtable + 1; e->type != _SD_BUS_VTABLE_END; e++) {
        switch (e->type) {
        case _SD_BUS_VTABLE_PROPERTY:
        case _SD_BUS_VTABLE_WRITABLE_PROPERTY:
            free((char *)e->x.property.member);
            free((char *)e->x.property.signature);
            break;
        case _SD_BUS_VTABLE_METHOD:
            free((char *)e->x.method.member);
            free((char *)e->x.method.signature);
            free((char *)e->x.method.result);
            free((char *)e->x.method.names);
            break;
        case _SD_BUS_VTABLE_SIGNAL:
            free((char *)e->x.signal.member);
            free((char *)e->x.signal.signature);
            free((char *)e->x.signal.names);
            break;
        }
    }
    free(vtable);
}
