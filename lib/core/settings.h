// A communicator's effective settings: the settings table's defaults (base/settings_table.h),
// overridden by HETCCL_* environment variables, overridden by the hetcclConfig_t the caller
// passed.  The variables themselves (types, defaults, accepted values, help) are described
// once, in the table; each field below is bound to its row there (core/settings_bindings.h),
// so that loading, the config's overrides, where each value came from and hetccl-info's list
// are one loop over those bindings, not a copy per field.
#pragma once

#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "algorithms/algorithm_names.h"
#include "algorithms/tuner.h"
#include "base/log.h"
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

// One field per HETCCL_* row of the settings table, in its order, each bound to its row in
// core/settings_bindings.cpp, and nothing else: a unit test counts these fields (so they stay
// an aggregate) and fails when one lacks a row or a row lacks its field.  No field has a
// default here: the table's are the only ones (Settings' constructor applies them).  The
// rows the log and the device module read below core (HETCCL_DEBUG*, HETCCL_DEVICE*) are held
// too: what this communicator was created with, checked at its creation, shown by hetccl-info.
struct SettingValues {
  LogLevel logLevel{};                 // HETCCL_DEBUG (base/log.h reads it for the process)
  std::string debugFile;               // HETCCL_DEBUG_FILE
  DeviceRequest device{};              // HETCCL_DEVICE (core/process_device.cpp)
  std::optional<int> deviceId;         // HETCCL_DEVICE_ID; empty: the node-local rank
  std::optional<Algorithm> algorithm;  // HETCCL_ALGO; empty: auto, the tuner chooses
  size_t chunkBytes{};                 // HETCCL_CHUNK_BYTES
  int pipelineDepth{};                 // HETCCL_PIPELINE_DEPTH
  IslandLibraryChoice islandLibrary;   // HETCCL_ISLAND_LIBRARY
  int islandSlices{};                  // HETCCL_ISLAND_SLICES (0: tuned)
  StagingMode staging{};               // HETCCL_STAGING
  GpuAwareMpiOverride gpuAwareMpi{};   // HETCCL_GPU_AWARE_MPI; Detect: ask the bootstrap (core/bootstrap_mpi.cpp)
  IslandScope islandScope{};           // HETCCL_ISLAND_SCOPE
  bool linkProbe{};                    // HETCCL_LINK_PROBE
  std::string emulateVendors;          // HETCCL_EMULATE_VENDORS
  std::string emulateNodes;            // HETCCL_EMULATE_NODES
  std::string emulateLinks;            // HETCCL_EMULATE_LINKS (core/emulation.h parses it)
  // Testing knob: split messages above this many bytes (as the transport does above INT_MAX).
  size_t maxMessageBytes{};  // HETCCL_TRANSPORT_MAX_MESSAGE_BYTES
  // Messages up to this size to a rank of the same host go through shared memory; 0: never.
  size_t sharedMemoryMaxBytes{};  // HETCCL_SHM_MAX_BYTES (core/shared_memory_peers.h)
  ProgressMode progress{};        // HETCCL_PROGRESS
  WaitMode wait{};                // HETCCL_WAIT
  HostStreamMode hostStreams{};   // HETCCL_HOST_STREAMS (core/process_device.cpp)
  NodeNameSource nodeName{};      // HETCCL_NODE_NAME (core/topology.cpp)
  // Collectives up to this size may run on the calling thread (the inline path, dispatch.h); 0: never.
  size_t inlineBytes{};  // HETCCL_INLINE_BYTES
  int queueDepth{};      // HETCCL_QUEUE_DEPTH
  // An operation that makes no progress for this long fails; 0: never.
  double timeoutSeconds{};      // HETCCL_TIMEOUT
  bool checkCalls{};            // HETCCL_CHECK_CALLS (core/call_check.h)
  AccumulateMode accumulate{};  // HETCCL_ACCUMULATE (core/accumulation.h)
};

struct Settings : SettingValues {
  // The table's defaults, as if no variable were set and no config given.
  Settings();

  // Where each value came from, by SettingId (hetccl-info, the tuner, error messages).
  std::array<SettingSource, static_cast<size_t>(SettingId::Count)> sources{};
  SettingSource source(SettingId id) const { return sources[static_cast<size_t>(id)]; }
  // Set by the user (environment or config): the tuner keeps it instead of choosing.
  bool chunkBytesSet() const { return source(SettingId::ChunkBytes) != SettingSource::Default; }

  // Staging buffers per peer: a constant of the staged transport, not a setting.
  static constexpr int stagingSlots = 8;
};

// HETCCL_ALGO's accepted values: "auto" (kAlgorithmAuto: the tuner chooses), then every
// algorithm by its own name (value: the Algorithm).  Handed to the settings table's readers.
constexpr int kAlgorithmAuto = -1;
const std::vector<SettingChoice>& algorithmChoices();
// The choices the settings table needs from this layer (HETCCL_ALGO's).
HandedInChoices handedInSettingChoices();

// "auto" or the forced algorithm's name, for messages and tools.
std::string algorithmSettingName(const Settings& settings);

// Reads every HETCCL_* variable (a bad one fails here, at creation, whatever reads it later)
// and checks the log's destination, then applies the config's overrides by the same rule.
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
