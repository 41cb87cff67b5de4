#include "base/settings_markdown.h"

#include <climits>

namespace hetccl {

namespace {

std::string code(const std::string& text) { return "`" + text + "`"; }

std::string defaultSuffix(const SettingSpec& spec) {
  return spec.defaultValue ? " (" + code(spec.defaultValue) + ")" : "";
}

// The "values (default)" cell: the entry's own words, else generated from its type.
std::string valuesCell(const SettingSpec& spec, const HandedInChoices& handedIn) {
  if (spec.values) return spec.values;
  switch (spec.kind) {
    case SettingKind::Bool:
    case SettingKind::Enum: {
      std::vector<SettingChoice> choices = choicesOf(spec, handedIn);
      if (spec.kind == SettingKind::Bool) choices = {{"0", 0}, {"1", 1}};
      std::string cell;
      for (const SettingChoice& choice : choices) {
        cell += (cell.empty() ? "" : ", ") + code(choice.name);
        if (spec.defaultValue && choice.name == spec.defaultValue) cell += " (default)";
      }
      return cell;
    }
    case SettingKind::Integer:
      if (spec.maximum == INT_MAX) return "integer ≥ " + std::to_string(spec.minimum) + defaultSuffix(spec);
      return std::to_string(spec.minimum) + "–" + std::to_string(spec.maximum) + defaultSuffix(spec);
    case SettingKind::ByteSize: return "bytes, `K`/`M`/`G` suffixes" + defaultSuffix(spec);
    case SettingKind::RankList: return "`name[:count],...`";
    case SettingKind::Text: return "text" + defaultSuffix(spec);
  }
  return "?";
}

std::string table(SettingSection section, const HandedInChoices& handedIn) {
  std::string text = "| variable | values (default) | effect |\n| --- | --- | --- |\n";
  for (const SettingSpec& spec : settingsTable())
    if (spec.section == section)
      text += "| " + code(spec.name) + " | " + valuesCell(spec, handedIn) + " | " + spec.help + " |\n";
  return text;
}

}  // namespace

std::string settingsMarkdown(const HandedInChoices& handedIn) {
  return table(SettingSection::Hetccl, handedIn) +
         "\nWithout `HETCCL_DEVICE_ID`, a GPU rank takes the first of these that its launcher set as its "
         "node-local rank, modulo the devices it sees:\n\n" +
         table(SettingSection::Launcher, handedIn) + "\nThe NCCL drop-in also reads these (docs/NCCL-DROPIN.md):\n\n" +
         table(SettingSection::DropIn, handedIn);
}

}  // namespace hetccl
