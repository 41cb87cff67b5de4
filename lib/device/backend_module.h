// The contract between libhetccl and a device backend module (libhetccl-device-<name>.so).
// A module exports exactly one C symbol, the factory below; everything else in it is local, so
// two modules (or a module and the application) never resolve each other's symbols: NCCL and
// RCCL export the same names, and a CUDA and a HIP runtime must not meet.
//
// The factory returns a Device that libhetccl owns and deletes; its code lives in the module,
// which is therefore never unloaded. The _v<N> suffix is the Device interface's version: change
// it whenever device.h's class layout changes, so a stale module fails to load with a clear
// error instead of calling through the wrong vtable.
#pragma once

#include <cstddef>

#include "device/device.h"

#define HETCCL_DEVICE_FACTORY_NAME "hetcclCreateDevice_v1"

extern "C" {
// Opens the process's device. On failure returns null and writes a NUL-terminated reason
// (at most errorSize bytes) into `error`. Never throws.
hetccl::Device* hetcclCreateDevice_v1(char* error, size_t errorSize);
using HetcclCreateDeviceFunction = hetccl::Device* (*)(char* error, size_t errorSize);
}
