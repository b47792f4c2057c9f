/*
 * config.h - aclInit's configuration file, read as CANN reads it: checked
 * and parsed as JSON (100003 / 100006), and its default device applied
 * (src/acl/aclrt_impl/acl.cpp:334-350, src/acl/common/json_parser.cpp).
 */
#ifndef CANNSTUB_CONFIG_H
#define CANNSTUB_CONFIG_H

#include <stdint.h>

#include "acl/acl.h"

/* Reads configPath (NULL or "": no file). On success *default_device is the
 * file's defaultDevice.default_device, or -1 when it names none. device_count
 * bounds it (107001). Fails with the recent error set. */
aclError config_read(const char *call, const char *configPath, uint32_t device_count, int *default_device);

#endif
