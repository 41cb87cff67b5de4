// The one table of every environment variable hetccl reads: the HETCCL_* settings and the
// node-local rank that launchers export.  Each entry says what the variable is: its type
// (with the range or the accepted values), its default, and one line of help.  The readers
// (settings_reader.h) parse a variable only as its entry says, so a bad value fails the same
// way wherever it is read, naming the variable and what it accepts; the README's settings
// table and hetccl-info's effective settings are printed from here (settings_markdown.h).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace hetccl {

enum class SettingId : int {
  Debug,
  DebugFile,
  Device,
  DeviceId,
  Algorithm,
  ChunkBytes,
  PipelineDepth,
  IslandLibrary,
  IslandSlices,
  Staging,
  GpuAwareMpi,
  IslandScope,
  LinkProbe,
  EmulateVendors,
  EmulateNodes,
  EmulateLinks,
  TransportMaxMessageBytes,
  SharedMemoryMaxBytes,
  Progress,
  Wait,
  HostStreams,
  NodeName,
  InlineBytes,
  QueueDepth,
  Timeout,
  CheckCalls,
  Accumulate,
  // Exported by launchers, read to pick a GPU: Open MPI, Slurm, MPICH/Intel MPI (Hydra), MVAPICH.
  OmpiLocalRank,
  SlurmLocalId,
  HydraLocalRank,
  MvapichLocalRank,
  // Read by the NCCL drop-in only (lib/nccl): whether an MPI launcher started this process,
  // NCCL's own debug names, and its mark for the programs a rank starts.
  OmpiWorldSize,
  PmixRank,
  PmiRank,
  PmiSize,
  MpiStartedBy,
  NcclDebug,
  NcclDebugFile,
  Count
};

enum class SettingKind {
  Bool,      // 0 or 1
  Integer,   // decimal, within [minimum, maximum]
  ByteSize,  // base/byte_size.h's grammar, within [minimum, maximum]
  Enum,      // one of `choices` (any case)
  RankList,  // base/rank_list.h's name[:count],...
  Text,      // anything; its reader gives it meaning (a path, a link list)
};

enum class SettingSection {
  Hetccl,    // HETCCL_*: set by users, validated whole at communicator creation
  Launcher,  // set by mpirun or srun, read only to pick a device
  DropIn,    // read by the NCCL drop-in only (docs/NCCL-DROPIN.md)
};

// One accepted value of an enum setting and the enum value it stands for.
struct SettingChoice {
  std::string name;
  int value = 0;
};

struct SettingSpec {
  SettingId id = SettingId::Count;
  const char* name = "";
  SettingKind kind = SettingKind::Text;
  SettingSection section = SettingSection::Hetccl;
  const char* defaultValue = nullptr;  // as a user would write it; nullptr: none (unset)
  long long minimum = 0;               // Integer, ByteSize
  long long maximum = 0;
  // Enum: the accepted values, the default among them.  Empty for an enum whose values a
  // higher layer owns (HETCCL_ALGO: the algorithms' names); that layer hands them in.
  std::vector<SettingChoice> choices;
  const char* values = nullptr;  // the README's "values" text; nullptr: generated from the above
  const char* help = "";
};

// Every variable, in SettingId order (README order).
const std::vector<SettingSpec>& settingsTable();
const SettingSpec& settingSpec(SettingId id);

// Choices of enum settings whose values belong to a higher layer, handed in by that layer
// (core/settings.h: algorithmChoices) to the functions that check or print the whole table.
using HandedInChoices = std::map<SettingId, std::vector<SettingChoice>>;

// The accepted values of an enum setting: its own, or those handed in.
const std::vector<SettingChoice>& choicesOf(const SettingSpec& spec, const HandedInChoices& handedIn);

// The value of the choice spelled `text` (any case); false when none is.
bool matchChoice(const std::vector<SettingChoice>& choices, const std::string& text, int* value);

// The name of an enum setting's value (its first spelling in the table): "force", "job".
template <typename E>
std::string choiceName(SettingId id, E value) {
  for (const SettingChoice& choice : settingSpec(id).choices)
    if (choice.value == static_cast<int>(value)) return choice.name;
  return "?";
}

// What a setting accepts, for error messages: "an integer from 1 to 64", "one of auto, force, off".
std::string acceptedValues(const SettingSpec& spec, const std::vector<SettingChoice>& choices);

}  // namespace hetccl
