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
// job's size is checked where they are expanded) and returns the first error.  Communicator
// creation calls it, so that a bad value of a variable read before (HETCCL_DEBUG) or only on
// some paths (HETCCL_DEVICE_ID on GPUs) still fails there.
Status checkSettingsEnvironment(const HandedInChoices& handedIn);

// The effective text of a setting as hetccl-info shows it: the variable's text, else the
// default, else "".
std::string effectiveSettingText(SettingId id);

}  // namespace hetccl
