// A communicator's effective settings: the settings table's defaults (base/settings_table.h),
// overridden by HETCCL_* environment variables, overridden by the hetcclConfig_t the caller
// passed.  The variables themselves (types, defaults, accepted values, help) are described
// once, in the table; this assembles what one communicator runs with.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/algorithm_names.h"
#include "algorithms/tuner.h"
#include "base/setting_modes.h"
#include "base/settings_reader.h"
#include "base/status.h"
#include "hetccl/hetccl.h"

namespace hetccl {

// HETCCL_ISLAND_LIBRARY: which vendor library runs island collectives.
struct IslandLibraryChoice {
  enum class Mode {
    Auto,   // the device's: NCCL for CUDA, RCCL for HIP, none for the host
    Off,    // hetccl's own island algorithms
    Named,  // `name`: a library file name or path that exports NCCL's C API
  };
  Mode mode = Mode::Auto;
  std::string name;
};

struct Settings {
  // NCCL's ring moves 512 KiB slots in 2 MiB chunks; 1 MiB sits in that range and keeps
  // a 4-deep pipeline's staging within a few MiB per communicator.  (The table's defaults;
  // a unit test keeps these in step with it.)
  size_t chunkBytes = size_t{1} << 20;
  int pipelineDepth = 4;
  std::optional<Algorithm> algorithm;  // forced by HETCCL_ALGO or the config; empty: auto
  // Where the settings a config can override came from (hetccl-info, error messages); the
  // timeout's and the call check's are below.
  SettingSource chunkBytesSource = SettingSource::Default;
  SettingSource pipelineDepthSource = SettingSource::Default;
  SettingSource algorithmSource = SettingSource::Default;
  StagingMode staging = StagingMode::Auto;
  int stagingSlots = 8;
  // Detect: ask MPI for the rank's device kind (topology.cpp).
  GpuAwareMpiOverride gpuAwareMpi = GpuAwareMpiOverride::Detect;
  IslandLibraryChoice islandLibrary;
  // Testing knob: split messages above this many bytes (as the transport does above INT_MAX).
  size_t maxMessageBytes = size_t{1} << 30;
  ProgressMode progress = ProgressMode::Auto;
  // Collectives up to this size may run on the calling thread (the inline path, dispatch.h); 0: never.
  size_t inlineBytes = size_t{64} << 10;
  int queueDepth = 1024;
  // An operation that makes no progress for this long fails (HETCCL_TIMEOUT); 0: never.
  double timeoutSeconds = 1800;
  bool checkCalls = false;  // HETCCL_CHECK_CALLS (core/call_check.h)
  SettingSource timeoutSource = SettingSource::Default;
  SettingSource checkCallsSource = SettingSource::Default;

  // Set by the user (environment or config): the tuner keeps it instead of choosing.
  bool chunkBytesSet() const { return chunkBytesSource != SettingSource::Default; }
};

// HETCCL_ALGO's accepted values: "auto" (value -1: the tuner chooses), then every algorithm
// by its own name (value: the Algorithm).  Handed to the settings table's readers.
const std::vector<SettingChoice>& algorithmChoices();
// The choices the settings table needs from this layer (HETCCL_ALGO's).
HandedInChoices handedInSettingChoices();

// "auto" or the forced algorithm's name, for messages and tools.
std::string algorithmSettingName(const Settings& settings);

// Checks every HETCCL_* variable and the log's destination, then builds the settings.
Status loadSettings(const hetcclConfig_t* config, Settings* settings);
// What the tuner needs of them.
TunerSettings tunerSettings(const Settings& settings);

// Every HETCCL_* variable with the value this communicator runs with and where it came from.
struct EffectiveSetting {
  std::string name;
  std::string value;  // "" when unset and without a default
  SettingSource source = SettingSource::Default;
};
std::vector<EffectiveSetting> effectiveSettings(const Settings& settings);

}  // namespace hetccl
