#ifndef JOULE_CSQLITE_SHIM_H
#define JOULE_CSQLITE_SHIM_H
#include <sqlite3.h>

/// SQLITE_TRANSIENT is a cast macro Swift cannot import: sqlite copies text and blobs bound
/// with it before the bind call returns.
static inline sqlite3_destructor_type joule_sqlite_transient(void) { return SQLITE_TRANSIENT; }
#endif
