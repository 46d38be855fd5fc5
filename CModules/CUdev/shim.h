#ifndef JOULE_CUDEV_SHIM_H
#define JOULE_CUDEV_SHIM_H
#include <libudev.h>
#endif
