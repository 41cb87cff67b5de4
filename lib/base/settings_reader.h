// Typed readers of the variables in the settings table (settings_table.h): the only code of
// hetccl that reads the environment.  Each reader parses the variable as its table entry
// says; an unset or empty variable yields the entry's default; a bad value is an
// InvalidArgument naming the variable, the value and what the variable accepts.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/settings_table.h"
#include "base/status.h"

namespace hetccl {

// Where a setting's value came from; Config is core's (hetcclConfig_t overrides).
enum class SettingSource { Default, Environment, Config };
const char* settingSourceName(SettingSource source);  // "default", "environment", "config"

// The variable's text, or nullptr when it is unset or empty (empty means unset).
const char* settingText(SettingId id);
SettingSource settingSource(SettingId id);

// One setting's value, parsed as its entry says: `number` for Bool (0 or 1), Integer, ByteSize
// and Enum (the choice's value); `text` for Text and RankList.  `present` is false for a
// variable that is unset and whose entry has no default.
struct SettingValue {
  bool present = false;
  long long number = 0;
  std::string text;
};

// The one rule every value of a setting passes, whoever hands it in: parses `text` (nullptr:
// absent) as `spec` says, with `choices` for an enum.  A bad value is an InvalidArgument
// "<shownAs>=<text>: expected <what spec accepts>"; shownAs is the variable's name for the
// environment, the config field's ("config.pipelineDepth") for core's hetcclConfig_t overrides.
Status parseSetting(const SettingSpec& spec, const char* text, const char* shownAs,
                    const std::vector<SettingChoice>& choices, SettingValue* value);
// The variable's value: its text, else its entry's default, parsed by parseSetting.
Status readSetting(SettingId id, const HandedInChoices& handedIn, SettingValue* value);
// A value as a user would write it, in one spelling whatever was typed: an enum's first name,
// a byte count with the largest suffix that divides it ("64K"); "" when absent.
std::string settingValueText(const SettingSpec& spec, const std::vector<SettingChoice>& choices,
                             const SettingValue& value);

// Each leaves *value alone when the variable is unset and its entry has no default, and
// then sets *set (when given) to false.
Status readBool(SettingId id, bool* value, bool* set = nullptr);
Status readInteger(SettingId id, long long* value, bool* set = nullptr);
Status readByteSize(SettingId id, size_t* value, bool* set = nullptr);
// Enum settings: the chosen value's enum value.  `handedIn`: the choices of a setting whose
// values belong to a higher layer (settings_table.h).
Status readEnum(SettingId id, int* value, const HandedInChoices& handedIn = {});
template <typename E>
Status readEnum(SettingId id, E* value, const HandedInChoices& handedIn = {}) {
  int raw = 0;
  HETCCL_TRY(readEnum(id, &raw, handedIn));
  *value = static_cast<E>(raw);
  return Status::ok();
}
// Text and rank-list settings: the text, or the default ("" when none).
std::string readText(SettingId id);

// Reads every HETCCL_* variable as its entry says (rank lists for their grammar only: the
// job's size is checked where they are expanded) and returns the first error.  hetccl-settings
// and the fuzz target check the environment with it; communicator creation reads every
// variable into its settings (core/settings.h), which checks the same.
Status checkSettingsEnvironment(const HandedInChoices& handedIn);

// The effective text of a setting as hetccl-settings shows it: the variable's text, else the
// default, else "".
std::string effectiveSettingText(SettingId id);

}  // namespace hetccl
