#include "base/settings_table.h"

#include <cctype>
#include <climits>
#include <cstdlib>

#include "base/log.h"
#include "base/setting_modes.h"

namespace hetccl {

namespace {

SettingSpec entry(SettingId id, const char* name, SettingKind kind, const char* defaultValue, const char* help) {
  SettingSpec spec;
  spec.id = id;
  spec.name = name;
  spec.kind = kind;
  spec.defaultValue = defaultValue;
  spec.help = help;
  return spec;
}

SettingSpec enumEntry(SettingId id, const char* name, std::vector<SettingChoice> choices, const char* defaultValue,
                      const char* help) {
  SettingSpec spec = entry(id, name, SettingKind::Enum, defaultValue, help);
  spec.choices = std::move(choices);
  return spec;
}

SettingSpec rangeEntry(SettingId id, const char* name, SettingKind kind, long long minimum, long long maximum,
                       const char* defaultValue, const char* help) {
  SettingSpec spec = entry(id, name, kind, defaultValue, help);
  spec.minimum = minimum;
  spec.maximum = maximum;
  return spec;
}

SettingSpec withValues(SettingSpec spec, const char* values) {
  spec.values = values;
  return spec;
}

SettingSpec launcherEntry(SettingId id, const char* name, const char* launcher) {
  SettingSpec spec = rangeEntry(id, name, SettingKind::Integer, 0, INT_MAX, nullptr, launcher);
  spec.section = SettingSection::Launcher;
  return spec;
}

SettingSpec dropInEntry(SettingId id, const char* name, const char* help) {
  SettingSpec spec = entry(id, name, SettingKind::Text, nullptr, help);
  spec.section = SettingSection::DropIn;
  return spec;
}

template <typename E>
SettingChoice choice(const char* name, E value) {
  return SettingChoice{name, static_cast<int>(value)};
}

std::vector<SettingSpec> buildTable() {
  using K = SettingKind;
  using Id = SettingId;
  std::vector<SettingSpec> table{
      enumEntry(
          Id::Debug, "HETCCL_DEBUG",
          {choice("NONE", LogLevel::None), choice("VERSION", LogLevel::None), choice("WARN", LogLevel::Warn),
           choice("INFO", LogLevel::Info), choice("ABORT", LogLevel::Warn), choice("TRACE", LogLevel::Trace)},
          "NONE",
          "log level, as `NCCL_DEBUG`: WARN prints every error, INFO the communicator set-up (islands, "
          "transports, link parameters and their source), TRACE every plan with its predicted time; "
          "NCCL's other values are accepted: VERSION is as quiet as NONE, ABORT logs as WARN (hetccl never aborts "
          "the process)"),
      withValues(entry(Id::DebugFile, "HETCCL_DEBUG_FILE", K::Text, nullptr,
                       "log to a file instead of stderr; a file that cannot be opened fails communicator creation"),
                 "path with `%h` host, `%p` pid"),
      enumEntry(Id::Device, "HETCCL_DEVICE",
                {choice("auto", DeviceRequest::Auto), choice("host", DeviceRequest::Host),
                 choice("cuda", DeviceRequest::Cuda), choice("hip", DeviceRequest::Hip),
                 choice("host-strict", DeviceRequest::HostStrict)},
                "auto",
                "the rank's device; `auto` tries the CUDA module, then HIP, then the host; `host-strict` is the host "
                "with device memory the host cannot read, as a GPU's (for tests)"),
      rangeEntry(Id::DeviceId, "HETCCL_DEVICE_ID", K::Integer, 0, INT_MAX, nullptr,
                 "GPU index; overrides the node-local rank (launcher variables below) as the device index"),
      entry(Id::Algorithm, "HETCCL_ALGO", K::Enum, "auto",
            "force an algorithm (see above); `auto` lets the tuner choose"),
      withValues(rangeEntry(Id::ChunkBytes, "HETCCL_CHUNK_BYTES", K::ByteSize, 1, LLONG_MAX, "1M",
                            "pipeline chunk; setting it stops the tuner from choosing"),
                 "bytes, `K`/`M`/`G` suffixes (tuned: 256K–4M)"),
      rangeEntry(Id::PipelineDepth, "HETCCL_PIPELINE_DEPTH", K::Integer, 1, 64, "4", "chunks in flight per operation"),
      withValues(entry(Id::IslandLibrary, "HETCCL_ISLAND_LIBRARY", K::Text, "auto",
                       "the vendor library for island collectives and the native path: auto = NCCL for CUDA, "
                       "RCCL for HIP, none for host devices"),
                 "`auto` (default), `off`, a library name or path"),
      rangeEntry(Id::IslandSlices, "HETCCL_ISLAND_SLICES", K::Integer, 0, 16, "0",
                 "slices a hierarchical all-reduce is cut into so that the island library's steps overlap the "
                 "cross-island exchange; 0 = the tuner's choice, 1 = island steps whole"),
      enumEntry(
          Id::Staging, "HETCCL_STAGING",
          {choice("auto", StagingMode::Auto), choice("force", StagingMode::Force), choice("off", StagingMode::Off)},
          "auto",
          "host-staged transfers: auto stages device memory when MPI is not GPU-aware; force stages always "
          "(also host devices)"),
      enumEntry(Id::GpuAwareMpi, "HETCCL_GPU_AWARE_MPI",
                {choice("detect", GpuAwareMpiOverride::Detect), choice("0", GpuAwareMpiOverride::No),
                 choice("1", GpuAwareMpiOverride::Yes)},
                "detect",
                "override the detection of a GPU-aware MPI (Open MPI: `MPIX_Query_cuda_support`, "
                "`MPIX_Query_rocm_support`; MPICH: `MPIX_GPU_query_support`), asked for the rank's own device kind"),
      enumEntry(Id::IslandScope, "HETCCL_ISLAND_SCOPE",
                {choice("node", IslandScope::Node), choice("job", IslandScope::Job)}, "node",
                "islands per vendor and node, or per vendor across nodes"),
      entry(Id::LinkProbe, "HETCCL_LINK_PROBE", K::Bool, "0",
            "`1`: measure link latency and bandwidth at init instead of using defaults"),
      withValues(entry(Id::EmulateVendors, "HETCCL_EMULATE_VENDORS", K::RankList, nullptr,
                       "give ranks vendors (e.g. `nvidia:2,amd:2`, `nvidia,amd,nvidia,amd`)"),
                 "`name[:count],...` in world-rank order"),
      withValues(entry(Id::EmulateNodes, "HETCCL_EMULATE_NODES", K::RankList, nullptr, "give ranks node names"),
                 "`name[:count],...`"),
      withValues(
          entry(Id::EmulateLinks, "HETCCL_EMULATE_LINKS", K::Text, nullptr, "pace transfers within / across islands"),
          "`intra:BW:LAT,inter:BW:LAT` (e.g. `inter:1GB/s:20us`)"),
      rangeEntry(Id::TransportMaxMessageBytes, "HETCCL_TRANSPORT_MAX_MESSAGE_BYTES", K::ByteSize, 1, LLONG_MAX, "1G",
                 "largest single MPI message; larger ones are split (tests use it to exercise the split that "
                 "protects `int` counts)"),
      rangeEntry(Id::SharedMemoryMaxBytes, "HETCCL_SHM_MAX_BYTES", K::ByteSize, 0, LLONG_MAX, "64K",
                 "messages of at most this many bytes between ranks of one host travel through shared memory "
                 "rings instead of MPI (host-readable memory only; not with `HETCCL_WAIT=block`); 0 turns this "
                 "off"),
      enumEntry(Id::Progress, "HETCCL_PROGRESS",
                {choice("auto", ProgressMode::Auto), choice("thread", ProgressMode::Thread),
                 choice("caller", ProgressMode::Caller)},
                "auto",
                "who runs operations: `thread` = a progress thread per communicator, calls return once enqueued "
                "(as NCCL's); `caller` = the calling thread, calls return when done; `auto` = thread when MPI "
                "provides `MPI_THREAD_MULTIPLE`, else caller"),
      enumEntry(Id::Wait, "HETCCL_WAIT", {choice("poll", WaitMode::Poll), choice("block", WaitMode::Block)}, "poll",
                "how an operation waits for its transfers: `poll` tests them with a back-off; `block` sleeps in "
                "`MPI_Waitany` until one completes (for simulators such as SimGrid's SMPI, which charge every test; "
                "a blocked wait cannot time out or be aborted)"),
      enumEntry(Id::HostStreams, "HETCCL_HOST_STREAMS",
                {choice("worker", HostStreamMode::Worker), choice("inline", HostStreamMode::Inline)}, "worker",
                "the host device's streams: `worker` = a thread each, as a GPU stream; `inline` = tasks run on the "
                "thread that enqueues them (no threads: for a simulator; operations then run on the calling thread, "
                "and `HETCCL_PROGRESS=thread` is refused)"),
      enumEntry(Id::NodeName, "HETCCL_NODE_NAME",
                {choice("host", NodeNameSource::Host), choice("mpi", NodeNameSource::Mpi)}, "host",
                "what names a rank's node: `host` = the host name; `mpi` = `MPI_Get_processor_name` up to its first "
                "dot (a simulator's hosts)"),
      rangeEntry(Id::InlineBytes, "HETCCL_INLINE_BYTES", K::ByteSize, 0, LLONG_MAX, "64K",
                 "a collective of at most this many bytes on an idle stream, with nothing queued, runs on the "
                 "calling thread and is complete when the call returns (host-reachable memory only); 0 turns this "
                 "off"),
      rangeEntry(Id::QueueDepth, "HETCCL_QUEUE_DEPTH", K::Integer, 1, 1 << 20, "1024",
                 "operations a communicator's progress thread may have queued; a call beyond that waits for room"),
      rangeEntry(Id::Timeout, "HETCCL_TIMEOUT", K::Integer, 0, 1 << 30, "1800",
                 "seconds an operation may go without progress before it fails with `hetcclTimeout` and "
                 "poisons the communicator; 0 waits forever"),
      entry(Id::CheckCalls, "HETCCL_CHECK_CALLS", K::Bool, "0",
            "`1`: before each collective the ranks compare their calls (collective, count, type, op, root, "
            "number); a mismatch fails it on every rank with `hetcclInvalidUsage` naming both calls"),
      enumEntry(Id::Accumulate, "HETCCL_ACCUMULATE",
                {choice("native", AccumulateMode::Native), choice("float32", AccumulateMode::Float32)}, "native",
                "float16 and bfloat16 sums and averages (all-reduce, reduce-scatter): `native` = reduced in the "
                "type, rounded at every hop (as NCCL); `float32` = partial sums travel and are reduced in float32, "
                "rounded once, then gathered in the type: every rank the same bits, one rounding's error"),
      launcherEntry(Id::OmpiLocalRank, "OMPI_COMM_WORLD_LOCAL_RANK", "node-local rank from Open MPI's `mpirun`"),
      launcherEntry(Id::SlurmLocalId, "SLURM_LOCALID", "node-local rank from Slurm's `srun`"),
      launcherEntry(Id::HydraLocalRank, "MPI_LOCALRANKID", "node-local rank from MPICH's and Intel MPI's Hydra"),
      launcherEntry(Id::MvapichLocalRank, "MV2_COMM_WORLD_LOCAL_RANK", "node-local rank from MVAPICH"),
      dropInEntry(Id::OmpiWorldSize, "OMPI_COMM_WORLD_SIZE", "set by Open MPI's `mpirun`: the process is an MPI rank"),
      dropInEntry(Id::PmixRank, "PMIX_RANK", "set by PMIx launchers (`srun --mpi=pmix`, Open MPI): likewise"),
      dropInEntry(Id::PmiRank, "PMI_RANK", "set by PMI launchers (MPICH's Hydra, `srun --mpi=pmi2`): likewise"),
      dropInEntry(Id::PmiSize, "PMI_SIZE", "set by PMI launchers: likewise"),
      dropInEntry(Id::MpiStartedBy, "HETCCL_MPI_STARTED_BY_PID",
                  "set by the drop-in in a rank that started MPI at load: a program that rank runs (which "
                  "inherits the launcher's variables) is no rank and does not start MPI"),
      dropInEntry(Id::NcclDebug, "NCCL_DEBUG",
                  "`WARN`, `INFO`, `TRACE`: taken as `HETCCL_DEBUG` when that is unset (`VERSION` and others: "
                  "nothing)"),
      dropInEntry(Id::NcclDebugFile, "NCCL_DEBUG_FILE", "taken as `HETCCL_DEBUG_FILE` when that is unset"),
  };
  // Entries are indexed by id; a table out of order is a programming error caught at once.
  for (size_t i = 0; i < table.size(); ++i)
    if (static_cast<size_t>(table[i].id) != i) std::abort();
  if (table.size() != static_cast<size_t>(SettingId::Count)) std::abort();
  return table;
}

std::string joinNames(const std::vector<SettingChoice>& choices) {
  std::string text;
  for (size_t i = 0; i < choices.size(); ++i)
    text += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i].name;
  return text;
}

}  // namespace

const std::vector<SettingSpec>& settingsTable() {
  static const std::vector<SettingSpec> table = buildTable();
  return table;
}

const SettingSpec& settingSpec(SettingId id) { return settingsTable().at(static_cast<size_t>(id)); }

const std::vector<SettingChoice>& choicesOf(const SettingSpec& spec, const HandedInChoices& handedIn) {
  if (!spec.choices.empty()) return spec.choices;
  const auto found = handedIn.find(spec.id);
  return found != handedIn.end() ? found->second : spec.choices;
}

bool matchChoice(const std::vector<SettingChoice>& choices, const std::string& text, int* value) {
  for (const SettingChoice& choice : choices) {
    bool same = choice.name.size() == text.size();
    for (size_t i = 0; same && i < text.size(); ++i)
      same =
          std::tolower(static_cast<unsigned char>(choice.name[i])) == std::tolower(static_cast<unsigned char>(text[i]));
    if (same) {
      *value = choice.value;
      return true;
    }
  }
  return false;
}

std::string acceptedValues(const SettingSpec& spec, const std::vector<SettingChoice>& choices) {
  switch (spec.kind) {
    case SettingKind::Bool: return "0 or 1";
    case SettingKind::Integer:
      if (spec.maximum == INT_MAX) return "an integer >= " + std::to_string(spec.minimum);
      return "an integer from " + std::to_string(spec.minimum) + " to " + std::to_string(spec.maximum);
    case SettingKind::ByteSize:
      return "a byte count >= " + std::to_string(spec.minimum) + " (digits with an optional K, M or G suffix)";
    case SettingKind::Enum: return choices.empty() ? "a name" : joinNames(choices);
    case SettingKind::RankList: return "name[:count],... (e.g. nvidia:2,amd:2)";
    case SettingKind::Text: return "any text";
  }
  return "?";
}

}  // namespace hetccl
