#ifndef JOULE_CCRYPTO_SHIM_H
#define JOULE_CCRYPTO_SHIM_H
#include <openssl/evp.h>
#endif
