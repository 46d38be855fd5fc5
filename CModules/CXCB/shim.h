#ifndef JOULE_CXCB_SHIM_H
#define JOULE_CXCB_SHIM_H
#include <xcb/xcb.h>
#include <xcb/res.h>
#endif
