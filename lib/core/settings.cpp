#include "core/settings.h"

#include <cstddef>

#include "base/log.h"

namespace hetccl {

namespace {

// algorithmChoices()' value for "auto".
constexpr int kTunerChooses = -1;

std::optional<Algorithm> forcedAlgorithm(int choice) {
  if (choice == kTunerChooses) return std::nullopt;
  return static_cast<Algorithm>(choice);
}

// "auto" and "off" are words (any case); anything else names a library.
IslandLibraryChoice islandLibraryChoice(const std::string& text) {
  static const std::vector<SettingChoice> modes{{"auto", static_cast<int>(IslandLibraryChoice::Mode::Auto)},
                                                {"off", static_cast<int>(IslandLibraryChoice::Mode::Off)}};
  IslandLibraryChoice choice;
  int mode = 0;
  if (matchChoice(modes, text, &mode)) {
    choice.mode = static_cast<IslandLibraryChoice::Mode>(mode);
  } else {
    choice.mode = IslandLibraryChoice::Mode::Named;
    choice.name = text;
  }
  return choice;
}

Status checkDepth(long long depth, const char* source) {
  const SettingSpec& spec = settingSpec(SettingId::PipelineDepth);
  if (depth < spec.minimum || depth > spec.maximum)
    return HETCCL_STATUS(Code::InvalidArgument, "%s=%lld: expected %s", source, depth,
                         acceptedValues(spec, {}).c_str());
  return Status::ok();
}

Status applyEnvironment(Settings* s) {
  HETCCL_TRY(readByteSize(SettingId::ChunkBytes, &s->chunkBytes));
  s->chunkBytesSource = settingSource(SettingId::ChunkBytes);
  long long depth = s->pipelineDepth;
  HETCCL_TRY(readInteger(SettingId::PipelineDepth, &depth));
  s->pipelineDepth = static_cast<int>(depth);
  s->pipelineDepthSource = settingSource(SettingId::PipelineDepth);
  int algorithm = kTunerChooses;
  HETCCL_TRY(readEnum(SettingId::Algorithm, &algorithm, handedInSettingChoices()));
  s->algorithm = forcedAlgorithm(algorithm);
  s->algorithmSource = settingSource(SettingId::Algorithm);
  HETCCL_TRY(readEnum(SettingId::Staging, &s->staging));
  HETCCL_TRY(readEnum(SettingId::GpuAwareMpi, &s->gpuAwareMpi));
  s->islandLibrary = islandLibraryChoice(readText(SettingId::IslandLibrary));
  HETCCL_TRY(readByteSize(SettingId::TransportMaxMessageBytes, &s->maxMessageBytes));
  HETCCL_TRY(readEnum(SettingId::Progress, &s->progress));
  HETCCL_TRY(readByteSize(SettingId::InlineBytes, &s->inlineBytes));
  long long queueDepth = s->queueDepth;
  HETCCL_TRY(readInteger(SettingId::QueueDepth, &queueDepth));
  s->queueDepth = static_cast<int>(queueDepth);
  long long timeout = static_cast<long long>(s->timeoutSeconds);
  HETCCL_TRY(readInteger(SettingId::Timeout, &timeout));
  s->timeoutSeconds = static_cast<double>(timeout);
  s->timeoutSource = settingSource(SettingId::Timeout);
  HETCCL_TRY(readBool(SettingId::CheckCalls, &s->checkCalls));
  s->checkCallsSource = settingSource(SettingId::CheckCalls);
  return Status::ok();
}

// The config's first layout ended after `algorithm`; fields added since are read only when
// the caller's `size` covers them (an older program's config leaves them undefined).
constexpr size_t kFirstConfigSize = offsetof(hetcclConfig_t, algorithm) + sizeof(const char*);

int configField(const hetcclConfig_t& config, const int hetcclConfig_t::*field, size_t offset) {
  return config.size >= offset + sizeof(int) ? config.*field : HETCCL_CONFIG_UNDEF_INT;
}

Status applyConfig(const hetcclConfig_t& config, Settings* s) {
  if (config.magic != HETCCL_CONFIG_MAGIC || config.size < kFirstConfigSize)
    return HETCCL_STATUS(Code::InvalidArgument,
                         "config was not initialised with HETCCL_CONFIG_INITIALIZER (bad magic or size)");
  if (config.size > sizeof(hetcclConfig_t))
    return HETCCL_STATUS(Code::InvalidArgument,
                         "config of %zu bytes comes from a newer hetccl header than this library's (%zu bytes): "
                         "its newer fields would be ignored",
                         config.size, sizeof(hetcclConfig_t));
  if (config.chunkBytes != HETCCL_CONFIG_UNDEF_INT) {
    if (config.chunkBytes < 1)
      return HETCCL_STATUS(Code::InvalidArgument, "config.chunkBytes=%d must be positive", config.chunkBytes);
    s->chunkBytes = static_cast<size_t>(config.chunkBytes);
    s->chunkBytesSource = SettingSource::Config;
  }
  if (config.pipelineDepth != HETCCL_CONFIG_UNDEF_INT) {
    HETCCL_TRY(checkDepth(config.pipelineDepth, "config.pipelineDepth"));
    s->pipelineDepth = config.pipelineDepth;
    s->pipelineDepthSource = SettingSource::Config;
  }
  if (config.algorithm) {
    int algorithm = kTunerChooses;
    if (!matchChoice(algorithmChoices(), config.algorithm, &algorithm))
      return HETCCL_STATUS(Code::InvalidArgument, "config.algorithm=%s: expected %s", config.algorithm,
                           acceptedValues(settingSpec(SettingId::Algorithm), algorithmChoices()).c_str());
    s->algorithm = forcedAlgorithm(algorithm);
    s->algorithmSource = SettingSource::Config;
  }
  const int timeout = configField(config, &hetcclConfig_t::timeoutSeconds, offsetof(hetcclConfig_t, timeoutSeconds));
  if (timeout != HETCCL_CONFIG_UNDEF_INT) {
    const SettingSpec& spec = settingSpec(SettingId::Timeout);
    if (timeout < spec.minimum || timeout > spec.maximum)
      return HETCCL_STATUS(Code::InvalidArgument, "config.timeoutSeconds=%d: expected %s", timeout,
                           acceptedValues(spec, {}).c_str());
    s->timeoutSeconds = timeout;
    s->timeoutSource = SettingSource::Config;
  }
  const int check = configField(config, &hetcclConfig_t::checkCalls, offsetof(hetcclConfig_t, checkCalls));
  if (check != HETCCL_CONFIG_UNDEF_INT) {
    if (check != 0 && check != 1)
      return HETCCL_STATUS(Code::InvalidArgument, "config.checkCalls=%d: expected 0 or 1", check);
    s->checkCalls = check == 1;
    s->checkCallsSource = SettingSource::Config;
  }
  return Status::ok();
}

}  // namespace

const std::vector<SettingChoice>& algorithmChoices() {
  static const std::vector<SettingChoice> choices = [] {
    std::vector<SettingChoice> all{{"auto", kTunerChooses}};
    for (Algorithm algorithm : allAlgorithms()) all.push_back({algorithmName(algorithm), static_cast<int>(algorithm)});
    return all;
  }();
  return choices;
}

HandedInChoices handedInSettingChoices() { return {{SettingId::Algorithm, algorithmChoices()}}; }

std::string algorithmSettingName(const Settings& settings) {
  return settings.algorithm ? algorithmName(*settings.algorithm) : "auto";
}

Status loadSettings(const hetcclConfig_t* config, Settings* settings) {
  // Every variable, also those read elsewhere or only on some paths (the log level was read
  // before any communicator existed): a bad value fails here, at creation, whatever reads it.
  HETCCL_TRY(checkSettingsEnvironment(handedInSettingChoices()));
  HETCCL_TRY(logDestinationStatus());
  Settings s;
  HETCCL_TRY(applyEnvironment(&s));
  if (config) HETCCL_TRY(applyConfig(*config, &s));
  *settings = s;
  return Status::ok();
}

TunerSettings tunerSettings(const Settings& settings) {
  TunerSettings tuning;
  tuning.forced = settings.algorithm;
  tuning.forcedBy = settings.algorithmSource == SettingSource::Config ? "config.algorithm" : "HETCCL_ALGO";
  tuning.chunkBytes = settings.chunkBytes;
  tuning.chunkBytesSet = settings.chunkBytesSet();
  tuning.pipelineDepth = settings.pipelineDepth;
  return tuning;
}

std::vector<EffectiveSetting> effectiveSettings(const Settings& settings) {
  std::vector<EffectiveSetting> all;
  for (const SettingSpec& spec : settingsTable()) {
    if (spec.section != SettingSection::Hetccl) continue;
    EffectiveSetting setting{spec.name, effectiveSettingText(spec.id), settingSource(spec.id)};
    // Those a config can override: what the communicator runs with.
    if (spec.id == SettingId::ChunkBytes) {
      setting.value = std::to_string(settings.chunkBytes) + (settings.chunkBytesSet() ? "" : " (tuned per operation)");
      setting.source = settings.chunkBytesSource;
    } else if (spec.id == SettingId::PipelineDepth) {
      setting.value = std::to_string(settings.pipelineDepth);
      setting.source = settings.pipelineDepthSource;
    } else if (spec.id == SettingId::Algorithm) {
      setting.value = algorithmSettingName(settings);
      setting.source = settings.algorithmSource;
    } else if (spec.id == SettingId::Timeout) {
      setting.value = std::to_string(static_cast<long long>(settings.timeoutSeconds));
      setting.source = settings.timeoutSource;
    } else if (spec.id == SettingId::CheckCalls) {
      setting.value = settings.checkCalls ? "1" : "0";
      setting.source = settings.checkCallsSource;
    }
    all.push_back(setting);
  }
  return all;
}

}  // namespace hetccl
