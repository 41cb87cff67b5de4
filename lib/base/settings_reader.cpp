#include "base/settings_reader.h"

#include <cstdlib>
#include <utility>

#include "base/byte_size.h"
#include "base/numbers.h"
#include "base/rank_list.h"

namespace hetccl {

namespace {

Status badValue(const SettingSpec& spec, const char* shownAs, const char* text,
                const std::vector<SettingChoice>& choices) {
  return HETCCL_STATUS(Code::InvalidArgument, "%s=%s: expected %s", shownAs, text,
                       acceptedValues(spec, choices).c_str());
}

// The number `text` stands for as `spec`'s kind reads numbers; false when it is not one.
bool parseNumber(const SettingSpec& spec, const std::string& text, const std::vector<SettingChoice>& choices,
                 long long* number) {
  switch (spec.kind) {
    case SettingKind::Bool: *number = text == "1"; return text == "0" || text == "1";
    case SettingKind::Integer: return parseInteger(text, spec.minimum, spec.maximum, number);
    case SettingKind::ByteSize: {
      size_t bytes = 0;
      if (!parseByteSize(text, &bytes) || bytes < static_cast<unsigned long long>(spec.minimum) ||
          bytes > static_cast<unsigned long long>(spec.maximum))
        return false;
      *number = static_cast<long long>(bytes);
      return true;
    }
    case SettingKind::Enum: {
      int choice = 0;
      if (!matchChoice(choices, text, &choice)) return false;
      *number = choice;
      return true;
    }
    case SettingKind::RankList:
    case SettingKind::Text: break;
  }
  return false;
}

// "64K" for 65536: the largest of base/byte_size.h's suffixes that divides the count.
std::string byteCountText(unsigned long long bytes) {
  static const std::pair<unsigned long long, const char*> suffixes[] = {
      {1ull << 30, "G"}, {1ull << 20, "M"}, {1ull << 10, "K"}};
  for (const auto& [unit, suffix] : suffixes)
    if (bytes != 0 && bytes % unit == 0) return std::to_string(bytes / unit) + suffix;
  return std::to_string(bytes);
}

}  // namespace

const char* settingSourceName(SettingSource source) {
  switch (source) {
    case SettingSource::Default: return "default";
    case SettingSource::Environment: return "environment";
    case SettingSource::Config: return "config";
  }
  return "?";
}

const char* settingText(SettingId id) {
  // The one getenv of hetccl (a test checks that it stays the only one).
  const char* text = std::getenv(settingSpec(id).name);
  return text != nullptr && *text != '\0' ? text : nullptr;
}

SettingSource settingSource(SettingId id) {
  return settingText(id) ? SettingSource::Environment : SettingSource::Default;
}

Status parseSetting(const SettingSpec& spec, const char* text, const char* shownAs,
                    const std::vector<SettingChoice>& choices, SettingValue* value) {
  *value = SettingValue{};
  if (!text) return Status::ok();
  value->present = true;
  switch (spec.kind) {
    case SettingKind::Text: value->text = text; return Status::ok();
    case SettingKind::RankList: {
      std::vector<RankListEntry> entries;
      HETCCL_TRY(parseRankList(text, shownAs, &entries));
      value->text = text;
      return Status::ok();
    }
    case SettingKind::Enum:
      if (choices.empty())
        return HETCCL_STATUS(Code::InternalError, "%s: its accepted values were not handed in", spec.name);
      break;
    case SettingKind::Bool:
    case SettingKind::Integer:
    case SettingKind::ByteSize: break;
  }
  if (!parseNumber(spec, text, choices, &value->number)) return badValue(spec, shownAs, text, choices);
  return Status::ok();
}

Status readSetting(SettingId id, const HandedInChoices& handedIn, SettingValue* value) {
  const SettingSpec& spec = settingSpec(id);
  const char* text = settingText(id);
  return parseSetting(spec, text ? text : spec.defaultValue, spec.name, choicesOf(spec, handedIn), value);
}

std::string settingValueText(const SettingSpec& spec, const std::vector<SettingChoice>& choices,
                             const SettingValue& value) {
  if (!value.present) return "";
  switch (spec.kind) {
    case SettingKind::Bool:
    case SettingKind::Integer: return std::to_string(value.number);
    case SettingKind::ByteSize: return byteCountText(static_cast<unsigned long long>(value.number));
    case SettingKind::Enum:
      for (const SettingChoice& choice : choices)
        if (choice.value == value.number) return choice.name;
      return "?";
    case SettingKind::RankList:
    case SettingKind::Text: return value.text;
  }
  return "?";
}

Status readBool(SettingId id, bool* value, bool* set) {
  long long number = *value;
  HETCCL_TRY(readInteger(id, &number, set));
  *value = number != 0;
  return Status::ok();
}

// Bool, Integer and ByteSize entries alike: their number, as readSetting parses it.
Status readInteger(SettingId id, long long* value, bool* set) {
  SettingValue parsed;
  HETCCL_TRY(readSetting(id, {}, &parsed));
  if (set) *set = parsed.present;
  if (parsed.present) *value = parsed.number;
  return Status::ok();
}

Status readByteSize(SettingId id, size_t* value, bool* set) {
  long long number = static_cast<long long>(*value);
  HETCCL_TRY(readInteger(id, &number, set));
  *value = static_cast<size_t>(number);
  return Status::ok();
}

Status readEnum(SettingId id, int* value, const HandedInChoices& handedIn) {
  SettingValue parsed;
  HETCCL_TRY(readSetting(id, handedIn, &parsed));
  if (parsed.present) *value = static_cast<int>(parsed.number);
  return Status::ok();
}

std::string readText(SettingId id) {
  const SettingSpec& spec = settingSpec(id);
  const char* text = settingText(id);
  text = text ? text : spec.defaultValue;
  return text ? text : "";
}

Status checkSettingsEnvironment(const HandedInChoices& handedIn) {
  for (const SettingSpec& spec : settingsTable()) {
    if (spec.section != SettingSection::Hetccl) continue;
    SettingValue value;
    HETCCL_TRY(readSetting(spec.id, handedIn, &value));
  }
  return Status::ok();
}

std::string effectiveSettingText(SettingId id) { return readText(id); }

}  // namespace hetccl
