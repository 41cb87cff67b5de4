// Each HETCCL_* row of the settings table (base/settings_table.h) bound to the field of
// SettingValues (core/settings.h) that holds it, and to the hetcclConfig_t field that may
// override it.  The bindings live here, beside Settings, and name their rows by SettingId:
// the table is base's (the log and the device module read it below core) and may not see
// core's types (Algorithm, IslandLibraryChoice), so the rows cannot point at the fields
// themselves; Settings moving down to base would drag the algorithms' names with it.
#pragma once

#include <vector>

#include "base/settings_reader.h"
#include "core/settings.h"
#include "hetccl/hetccl.h"

namespace hetccl {

// The hetcclConfig_t field that overrides a setting: an int (HETCCL_CONFIG_UNDEF_INT:
// undefined) or a string (NULL: undefined); `name` is how errors call it ("config.<name>").
struct ConfigField {
  const char* name = nullptr;  // nullptr: no config field overrides the setting
  int hetcclConfig_t::*number = nullptr;
  const char* hetcclConfig_t::*text = nullptr;
};

// The config field's value as a user would write it in the variable; false when the config
// leaves it undefined, or was made by an older header that lacked it (its `size` ends before).
bool configOverride(const hetcclConfig_t& config, const ConfigField& field, std::string* text);

struct SettingBinding {
  SettingId id = SettingId::Count;
  ConfigField config;
  const char* defaultNote = nullptr;  // said after a defaulted value (hetccl-info): "tuned per operation"
  // The field, reached through its type's codec: whether the type holds values of a kind,
  // storing a parsed value, the value it holds, and its address (tests: one field per row).
  bool (*holds)(SettingKind kind) = nullptr;
  void (*store)(const SettingValue& value, SettingValues* values) = nullptr;
  SettingValue (*value)(const SettingValues& values) = nullptr;
  const void* (*field)(const SettingValues& values) = nullptr;
};

// One binding per HETCCL_* row, in the table's order (a unit test checks both).
const std::vector<SettingBinding>& settingBindings();

}  // namespace hetccl
