// A communicator's effective settings: built-in defaults, overridden by HETCCL_* environment
// variables, overridden by the hetcclConfig_t the caller passed.  The README's settings table
// documents each one; keep the two in step.
#pragma once

#include <cstddef>
#include <string>

#include "algorithms/tuner.h"
#include "base/status.h"
#include "hetccl/hetccl.h"

namespace hetccl {

struct Settings {
  // NCCL's ring moves 512 KiB slots in 2 MiB chunks; 1 MiB sits in that range and keeps
  // a 4-deep pipeline's staging within a few MiB per communicator.
  size_t chunkBytes = size_t{1} << 20;
  bool chunkBytesSet = false;  // set by the user: the tuner keeps it instead of choosing
  int pipelineDepth = 4;
  std::string algorithm = "auto";
  std::string algorithmSource = "default";  // "HETCCL_ALGO" or "config.algorithm", for messages
  // Host staging of transfers: "auto" (when the device's memory is not the host's and MPI is
  // not GPU-aware), "force" (always, also on host devices: tests use it), "off".
  std::string staging = "auto";
  int stagingSlots = 8;
  // -1: ask MPI for the rank's device kind (topology.cpp); 0/1: HETCCL_GPU_AWARE_MPI overrides.
  int gpuAwareMpi = -1;
  // Which vendor library runs island collectives: "auto" (the device's: NCCL for CUDA, RCCL
  // for HIP, none for the host), "off" (hetccl's own island algorithms), or a library file
  // name or path that exports NCCL's C API.
  std::string islandLibrary = "auto";
  // Testing knob: split messages above this many bytes (as the transport does above INT_MAX).
  size_t maxMessageBytes = size_t{1} << 30;
};

// The algorithms this build can run ("auto" picks among them by the cost model).
const char* availableAlgorithms();

Status loadSettings(const hetcclConfig_t* config, Settings* settings);
// What the tuner needs of them.
TunerSettings tunerSettings(const Settings& settings);

}  // namespace hetccl
