#include "base/settings_reader.h"

#include <cctype>
#include <cstdlib>

#include "base/byte_size.h"
#include "base/numbers.h"
#include "base/rank_list.h"

namespace hetccl {

namespace {

Status badValue(const SettingSpec& spec, const char* text, const std::vector<SettingChoice>& choices) {
  return HETCCL_STATUS(Code::InvalidArgument, "%s=%s: expected %s", spec.name, text,
                       acceptedValues(spec, choices).c_str());
}

// The text to parse: the variable's, else the entry's default; nullptr when neither.
const char* textOrDefault(const SettingSpec& spec, bool* set) {
  const char* text = settingText(spec.id);
  if (set) *set = text != nullptr || spec.defaultValue != nullptr;
  return text ? text : spec.defaultValue;
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

Status readBool(SettingId id, bool* value, bool* set) {
  const SettingSpec& spec = settingSpec(id);
  const char* text = textOrDefault(spec, set);
  if (!text) return Status::ok();
  const std::string word(text);
  if (word != "0" && word != "1") return badValue(spec, text, {});
  *value = word == "1";
  return Status::ok();
}

Status readInteger(SettingId id, long long* value, bool* set) {
  const SettingSpec& spec = settingSpec(id);
  const char* text = textOrDefault(spec, set);
  if (!text) return Status::ok();
  long long parsed = 0;
  if (!parseInteger(text, spec.minimum, spec.maximum, &parsed)) return badValue(spec, text, {});
  *value = parsed;
  return Status::ok();
}

Status readByteSize(SettingId id, size_t* value, bool* set) {
  const SettingSpec& spec = settingSpec(id);
  const char* text = textOrDefault(spec, set);
  if (!text) return Status::ok();
  size_t parsed = 0;
  if (!parseByteSize(text, &parsed) || parsed < static_cast<unsigned long long>(spec.minimum) ||
      parsed > static_cast<unsigned long long>(spec.maximum))
    return badValue(spec, text, {});
  *value = parsed;
  return Status::ok();
}

Status readEnum(SettingId id, int* value, const HandedInChoices& handedIn) {
  const SettingSpec& spec = settingSpec(id);
  const std::vector<SettingChoice>& choices = choicesOf(spec, handedIn);
  const char* text = textOrDefault(spec, nullptr);
  if (!text) return Status::ok();
  if (matchChoice(choices, text, value)) return Status::ok();
  if (choices.empty())
    return HETCCL_STATUS(Code::InternalError, "%s: its accepted values were not handed in", spec.name);
  return badValue(spec, text, choices);
}

std::string readText(SettingId id) {
  const char* text = textOrDefault(settingSpec(id), nullptr);
  return text ? text : "";
}

Status checkSettingsEnvironment(const HandedInChoices& handedIn) {
  for (const SettingSpec& spec : settingsTable()) {
    if (spec.section != SettingSection::Hetccl) continue;
    switch (spec.kind) {
      case SettingKind::Bool: {
        bool value = false;
        HETCCL_TRY(readBool(spec.id, &value));
        break;
      }
      case SettingKind::Integer: {
        long long value = 0;
        HETCCL_TRY(readInteger(spec.id, &value));
        break;
      }
      case SettingKind::ByteSize: {
        size_t value = 0;
        HETCCL_TRY(readByteSize(spec.id, &value));
        break;
      }
      case SettingKind::Enum: {
        int value = 0;
        HETCCL_TRY(readEnum(spec.id, &value, handedIn));
        break;
      }
      case SettingKind::RankList:
        if (const char* text = settingText(spec.id)) {
          std::vector<RankListEntry> entries;
          HETCCL_TRY(parseRankList(text, spec.name, &entries));
        }
        break;
      case SettingKind::Text: break;  // its reader gives it meaning and checks it (links: core/emulation.h)
    }
  }
  return Status::ok();
}

std::string effectiveSettingText(SettingId id) { return readText(id); }

}  // namespace hetccl
