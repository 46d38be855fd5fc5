// SHA-256 through the system libcrypto, loaded on first use. Linking libcrypto outright made
// every joule command map it and run its relocations and constructors at start (1.4 MB of
// resident pages), though only a transfer with a digest ever hashes.
#include "CJouleShims.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static struct {
    void *(*ctx_new)(void);
    void (*ctx_free)(void *);
    const void *(*sha256)(void);
    int (*init)(void *, const void *, void *);
    int (*update)(void *, const void *, size_t);
    int (*final)(void *, unsigned char *, unsigned int *);
    char error[256];
} crypto;

static pthread_once_t crypto_once = PTHREAD_ONCE_INIT;

static void crypto_load(void) {
    // OpenSSL 3 (Debian 12 and later) first; the unversioned name where a -dev package has it.
    const char *names[] = {"libcrypto.so.3", "libcrypto.so"};
    void *library = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !library; i++) library = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(crypto.error, sizeof crypto.error, "cannot load libcrypto: %s", dlerror());
        return;
    }
    *(void **)&crypto.ctx_new = dlsym(library, "EVP_MD_CTX_new");
    *(void **)&crypto.ctx_free = dlsym(library, "EVP_MD_CTX_free");
    *(void **)&crypto.sha256 = dlsym(library, "EVP_sha256");
    *(void **)&crypto.init = dlsym(library, "EVP_DigestInit_ex");
    *(void **)&crypto.update = dlsym(library, "EVP_DigestUpdate");
    *(void **)&crypto.final = dlsym(library, "EVP_DigestFinal_ex");
    if (!crypto.ctx_new || !crypto.ctx_free || !crypto.sha256 || !crypto.init || !crypto.update || !crypto.final) {
        snprintf(crypto.error, sizeof crypto.error, "libcrypto lacks the EVP digest functions");
        crypto.ctx_new = NULL;
    }
}

void *joule_sha256_new(const char **error) {
    pthread_once(&crypto_once, crypto_load);
    if (!crypto.ctx_new) {
        *error = crypto.error;
        return NULL;
    }
    void *context = crypto.ctx_new();
    if (!context || crypto.init(context, crypto.sha256(), NULL) != 1) {
        if (context) crypto.ctx_free(context);
        *error = "libcrypto cannot start a SHA-256 digest (out of memory?)";
        return NULL;
    }
    return context;
}

int joule_sha256_update(void *context, const void *bytes, size_t count) { return crypto.update(context, bytes, count); }

int joule_sha256_final(void *context, unsigned char digest[32]) {
    unsigned int length = 0;
    return crypto.final(context, digest, &length) == 1 && length == 32 ? 0 : -1;
}

void joule_sha256_free(void *context) { crypto.ctx_free(context); }
