#include "core/settings_bindings.h"

#include <cstddef>
#include <string>
#include <type_traits>
#include <utility>

namespace hetccl {

namespace {

using K = SettingKind;

SettingValue numberValue(long long number) {
  SettingValue value;
  value.present = true;
  value.number = number;
  return value;
}

SettingValue textValue(const std::string& text) {
  SettingValue value;
  value.present = true;
  value.text = text;
  return value;
}

// How a field's type holds a parsed value: which kinds of row it can hold, and the
// conversions both ways.  A present value is always of the kind `holds` accepts (the row's).
template <typename T, typename = void>
struct FieldCodec;

template <>
struct FieldCodec<size_t> {
  static bool holds(K kind) { return kind == K::ByteSize; }
  static void decode(const SettingValue& v, size_t* field) { *field = static_cast<size_t>(v.number); }
  static SettingValue encode(size_t field) { return numberValue(static_cast<long long>(field)); }
};

template <>
struct FieldCodec<int> {
  static bool holds(K kind) { return kind == K::Integer; }
  static void decode(const SettingValue& v, int* field) { *field = static_cast<int>(v.number); }
  static SettingValue encode(int field) { return numberValue(field); }
};

// Whole seconds, held as the double the runtime compares with its clocks.
template <>
struct FieldCodec<double> {
  static bool holds(K kind) { return kind == K::Integer; }
  static void decode(const SettingValue& v, double* field) { *field = static_cast<double>(v.number); }
  static SettingValue encode(double field) { return numberValue(static_cast<long long>(field)); }
};

template <>
struct FieldCodec<bool> {
  static bool holds(K kind) { return kind == K::Bool; }
  static void decode(const SettingValue& v, bool* field) { *field = v.number != 0; }
  static SettingValue encode(bool field) { return numberValue(field ? 1 : 0); }
};

template <typename E>
struct FieldCodec<E, std::enable_if_t<std::is_enum_v<E>>> {
  static bool holds(K kind) { return kind == K::Enum; }
  static void decode(const SettingValue& v, E* field) { *field = static_cast<E>(v.number); }
  static SettingValue encode(E field) { return numberValue(static_cast<long long>(field)); }
};

// HETCCL_ALGO: empty is "auto".
template <>
struct FieldCodec<std::optional<Algorithm>> {
  static bool holds(K kind) { return kind == K::Enum; }
  static void decode(const SettingValue& v, std::optional<Algorithm>* field) {
    *field = v.number == kAlgorithmAuto ? std::nullopt : std::optional<Algorithm>(static_cast<Algorithm>(v.number));
  }
  static SettingValue encode(const std::optional<Algorithm>& field) {
    return numberValue(field ? static_cast<long long>(*field) : kAlgorithmAuto);
  }
};

// An integer setting without a default (HETCCL_DEVICE_ID): empty when unset.
template <>
struct FieldCodec<std::optional<int>> {
  static bool holds(K kind) { return kind == K::Integer; }
  static void decode(const SettingValue& v, std::optional<int>* field) {
    *field = v.present ? std::optional<int>(static_cast<int>(v.number)) : std::nullopt;
  }
  static SettingValue encode(const std::optional<int>& field) { return field ? numberValue(*field) : SettingValue{}; }
};

template <>
struct FieldCodec<std::string> {
  static bool holds(K kind) { return kind == K::Text || kind == K::RankList; }
  static void decode(const SettingValue& v, std::string* field) { *field = v.text; }
  static SettingValue encode(const std::string& field) { return field.empty() ? SettingValue{} : textValue(field); }
};

// HETCCL_ISLAND_LIBRARY: "auto" and "off" are words (any case); anything else names a library.
template <>
struct FieldCodec<IslandLibraryChoice> {
  static bool holds(K kind) { return kind == K::Text; }
  static const std::vector<SettingChoice>& modes() {
    static const std::vector<SettingChoice> words{{"auto", static_cast<int>(IslandLibraryChoice::Mode::Auto)},
                                                  {"off", static_cast<int>(IslandLibraryChoice::Mode::Off)}};
    return words;
  }
  static void decode(const SettingValue& v, IslandLibraryChoice* field) {
    int mode = 0;
    *field = IslandLibraryChoice{};
    if (matchChoice(modes(), v.text, &mode)) {
      field->mode = static_cast<IslandLibraryChoice::Mode>(mode);
    } else {
      field->mode = IslandLibraryChoice::Mode::Named;
      field->name = v.text;
    }
  }
  static SettingValue encode(const IslandLibraryChoice& field) {
    if (field.mode == IslandLibraryChoice::Mode::Named) return textValue(field.name);
    for (const SettingChoice& word : modes())
      if (word.value == static_cast<int>(field.mode)) return textValue(word.name);
    return SettingValue{};
  }
};

// The binding of row `id` to the field `Field` of SettingValues, through the field's codec.
template <auto Field>
SettingBinding bind(SettingId id, ConfigField config = {}, const char* defaultNote = nullptr) {
  using Codec = FieldCodec<std::decay_t<decltype(std::declval<SettingValues&>().*Field)>>;
  SettingBinding binding;
  binding.id = id;
  binding.config = config;
  binding.defaultNote = defaultNote;
  binding.holds = &Codec::holds;
  binding.store = [](const SettingValue& value, SettingValues* values) { Codec::decode(value, &(values->*Field)); };
  binding.value = [](const SettingValues& values) { return Codec::encode(values.*Field); };
  binding.field = [](const SettingValues& values) -> const void* { return &(values.*Field); };
  return binding;
}

ConfigField numberField(const char* name, int hetcclConfig_t::*field) { return ConfigField{name, field, nullptr}; }
ConfigField textField(const char* name, const char* hetcclConfig_t::*field) {
  return ConfigField{name, nullptr, field};
}

std::vector<SettingBinding> buildBindings() {
  using Id = SettingId;
  using V = SettingValues;
  using C = hetcclConfig_t;
  return {
      bind<&V::logLevel>(Id::Debug),
      bind<&V::debugFile>(Id::DebugFile),
      bind<&V::device>(Id::Device),
      bind<&V::deviceId>(Id::DeviceId),
      bind<&V::algorithm>(Id::Algorithm, textField("algorithm", &C::algorithm)),
      bind<&V::chunkBytes>(Id::ChunkBytes, numberField("chunkBytes", &C::chunkBytes), "tuned per operation"),
      bind<&V::pipelineDepth>(Id::PipelineDepth, numberField("pipelineDepth", &C::pipelineDepth)),
      bind<&V::islandLibrary>(Id::IslandLibrary),
      bind<&V::islandSlices>(Id::IslandSlices, ConfigField{}, "tuned per operation"),
      bind<&V::staging>(Id::Staging),
      bind<&V::gpuAwareMpi>(Id::GpuAwareMpi),
      bind<&V::islandScope>(Id::IslandScope),
      bind<&V::linkProbe>(Id::LinkProbe),
      bind<&V::emulateVendors>(Id::EmulateVendors),
      bind<&V::emulateNodes>(Id::EmulateNodes),
      bind<&V::emulateLinks>(Id::EmulateLinks),
      bind<&V::maxMessageBytes>(Id::TransportMaxMessageBytes),
      bind<&V::sharedMemoryMaxBytes>(Id::SharedMemoryMaxBytes),
      bind<&V::progress>(Id::Progress),
      bind<&V::wait>(Id::Wait),
      bind<&V::hostStreams>(Id::HostStreams),
      bind<&V::nodeName>(Id::NodeName),
      bind<&V::inlineBytes>(Id::InlineBytes),
      bind<&V::queueDepth>(Id::QueueDepth),
      bind<&V::timeoutSeconds>(Id::Timeout, numberField("timeoutSeconds", &C::timeoutSeconds)),
      bind<&V::checkCalls>(Id::CheckCalls, numberField("checkCalls", &C::checkCalls)),
      bind<&V::accumulate>(Id::Accumulate, textField("accumulate", &C::accumulate)),
  };
}

// Where `member` of `config` ends: a config whose `size` stops short of it does not have it.
template <typename T>
size_t endOf(const hetcclConfig_t& config, const T& member) {
  return static_cast<size_t>(reinterpret_cast<const char*>(&member) - reinterpret_cast<const char*>(&config)) +
         sizeof(T);
}

}  // namespace

bool configOverride(const hetcclConfig_t& config, const ConfigField& field, std::string* text) {
  if (field.number) {
    const int& number = config.*field.number;
    if (config.size < endOf(config, number) || number == HETCCL_CONFIG_UNDEF_INT) return false;
    *text = std::to_string(number);
    return true;
  }
  if (field.text) {
    const char* const& given = config.*field.text;
    if (config.size < endOf(config, given) || given == nullptr) return false;
    *text = given;
    return true;
  }
  return false;
}

const std::vector<SettingBinding>& settingBindings() {
  static const std::vector<SettingBinding> bindings = buildBindings();
  return bindings;
}

}  // namespace hetccl
