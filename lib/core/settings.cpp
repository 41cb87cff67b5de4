#include "core/settings.h"

#include <cstddef>
#include <cstdlib>

#include "base/log.h"
#include "core/settings_bindings.h"

namespace hetccl {

namespace {

// The config's first layout ended after `algorithm`; fields added since are read only when
// the caller's `size` covers them (configOverride: an older program's config lacks them).
constexpr size_t kFirstConfigSize = offsetof(hetcclConfig_t, algorithm) + sizeof(const char*);

Status checkConfigLayout(const hetcclConfig_t& config) {
  if (config.magic != HETCCL_CONFIG_MAGIC || config.size < kFirstConfigSize)
    return HETCCL_STATUS(Code::InvalidArgument,
                         "config was not initialised with HETCCL_CONFIG_INITIALIZER (bad magic or size)");
  if (config.size > sizeof(hetcclConfig_t))
    return HETCCL_STATUS(Code::InvalidArgument,
                         "config of %zu bytes comes from a newer hetccl header than this library's (%zu bytes): "
                         "its newer fields would be ignored",
                         config.size, sizeof(hetcclConfig_t));
  return Status::ok();
}

// The config's overrides, each parsed by the rule the variable's own value passes.
Status applyConfig(const hetcclConfig_t& config, Settings* settings) {
  HETCCL_TRY(checkConfigLayout(config));
  const HandedInChoices handedIn = handedInSettingChoices();
  for (const SettingBinding& binding : settingBindings()) {
    std::string text;
    if (!configOverride(config, binding.config, &text)) continue;
    const SettingSpec& spec = settingSpec(binding.id);
    const std::string shownAs = std::string("config.") + binding.config.name;
    SettingValue value;
    HETCCL_TRY(parseSetting(spec, text.c_str(), shownAs.c_str(), choicesOf(spec, handedIn), &value));
    binding.store(value, settings);
    settings->sources[static_cast<size_t>(binding.id)] = SettingSource::Config;
  }
  return Status::ok();
}

}  // namespace

Settings::Settings() {
  const HandedInChoices handedIn = handedInSettingChoices();
  for (const SettingBinding& binding : settingBindings()) {
    const SettingSpec& spec = settingSpec(binding.id);
    SettingValue value;
    // A default its own row refuses is a mistake in the table (the unit tests parse them all).
    if (!parseSetting(spec, spec.defaultValue, spec.name, choicesOf(spec, handedIn), &value).isOk()) std::abort();
    binding.store(value, this);
  }
}

const std::vector<SettingChoice>& algorithmChoices() {
  static const std::vector<SettingChoice> choices = [] {
    std::vector<SettingChoice> all{{"auto", kAlgorithmAuto}};
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
  const HandedInChoices handedIn = handedInSettingChoices();
  Settings s;
  for (const SettingBinding& binding : settingBindings()) {
    SettingValue value;
    HETCCL_TRY(readSetting(binding.id, handedIn, &value));
    binding.store(value, &s);
    s.sources[static_cast<size_t>(binding.id)] = settingSource(binding.id);
  }
  HETCCL_TRY(logDestinationStatus());
  if (config) HETCCL_TRY(applyConfig(*config, &s));
  *settings = s;
  return Status::ok();
}

TunerSettings tunerSettings(const Settings& settings) {
  TunerSettings tuning;
  tuning.forced = settings.algorithm;
  tuning.forcedBy = settings.source(SettingId::Algorithm) == SettingSource::Config ? "config.algorithm" : "HETCCL_ALGO";
  tuning.chunkBytes = settings.chunkBytes;
  tuning.chunkBytesSet = settings.chunkBytesSet();
  tuning.pipelineDepth = settings.pipelineDepth;
  tuning.islandSlices = settings.islandSlices;
  return tuning;
}

std::vector<EffectiveSetting> effectiveSettings(const Settings& settings) {
  const HandedInChoices handedIn = handedInSettingChoices();
  std::vector<EffectiveSetting> all;
  for (const SettingBinding& binding : settingBindings()) {
    const SettingSpec& spec = settingSpec(binding.id);
    EffectiveSetting setting{spec.name, settingValueText(spec, choicesOf(spec, handedIn), binding.value(settings)),
                             settings.source(binding.id)};
    if (binding.defaultNote && setting.source == SettingSource::Default)
      setting.value += std::string(" (") + binding.defaultNote + ")";
    all.push_back(setting);
  }
  return all;
}

}  // namespace hetccl
