// libFuzzer target for the settings parsers.  An input is `NAME=value`: NAME one of the
// settings table's variables, value anything up to the first NUL (an environment value holds
// none).  The value is put in the environment and read by the reader the library uses for that
// variable's kind, then the whole table is checked, and a communicator's settings loaded from
// it as creation does, and, for a setting a hetcclConfig_t field overrides, from that field
// instead.  A value must be accepted or refused with InvalidArgument, by the check, the loading
// and the config alike; a crash, a sanitizer report, an unbounded allocation, any other result
// code or a disagreement fails the run.
#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "base/numbers.h"
#include "base/rank_list.h"
#include "base/settings_reader.h"
#include "base/settings_table.h"
#include "core/emulation.h"
#include "core/settings.h"
#include "core/settings_bindings.h"

namespace {

using namespace hetccl;

void expectAcceptedOrRefused(const Status& status) {
  if (!status.isOk() && status.code() != Code::InvalidArgument) std::abort();
}

void expectRunnable(const LinkPacing& link) {
  if (link.paced && (!std::isfinite(link.bytesPerSecond) || link.bytesPerSecond <= 0 ||
                     !std::isfinite(link.latencySeconds) || link.latencySeconds < 0))
    std::abort();
}

// What checkSettingsEnvironment (run next, as communicator creation does) does not do with the
// value: it reads every kind with its own reader already, so only the rank lists' expansion and
// the emulated links' meaning are added here.
void useAsItsReaderWould(const SettingSpec& spec, const std::string& value) {
  if (spec.kind == SettingKind::RankList) {
    // Expanded for a small job: counts far beyond it must be refused without allocating.
    std::vector<std::string> names;
    for (int nranks : {1, 4, 17}) expectAcceptedOrRefused(expandRankList(value, nranks, spec.name, &names));
  } else if (spec.id == SettingId::EmulateLinks) {
    // Accepted links must be ones the pacing can run: finite, positive speeds.
    EmulatedLinks links;
    const Status status = emulatedLinksFromSettings(&links);
    expectAcceptedOrRefused(status);
    if (status.isOk()) {
      expectRunnable(links.intraIsland);
      expectRunnable(links.interIsland);
    }
  }
}

// The value handed in by the config field that overrides the setting, with the variable unset:
// accepted or refused as the variable's own value was.  An int field takes the values whose
// decimal spelling is exactly the text (the config's int is parsed in that spelling).  An
// empty variable is an unset one, which an empty config string is not: left out.
void expectConfigAgrees(const SettingSpec& spec, const std::string& value, bool variableAccepted) {
  if (value.empty()) return;
  for (const SettingBinding& binding : settingBindings()) {
    if (binding.id != spec.id || !binding.config.name) continue;
    hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
    if (binding.config.text) config.*binding.config.text = value.c_str();
    if (binding.config.number) {
      long long number = 0;
      if (!parseInteger(value, INT_MIN + 1LL, INT_MAX, &number) || std::to_string(number) != value) return;
      config.*binding.config.number = static_cast<int>(number);
    }
    Settings settings;
    const Status loaded = loadSettings(&config, &settings);
    expectAcceptedOrRefused(loaded);
    if (loaded.isOk() != variableAccepted) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t equals = input.find('=');
  if (equals == std::string::npos) return 0;
  const std::string name = input.substr(0, equals);
  const std::string value = input.substr(equals + 1).c_str();  // up to the first NUL
  const SettingSpec* spec = nullptr;
  for (const SettingSpec& candidate : settingsTable())
    if (name == candidate.name) spec = &candidate;
  if (spec == nullptr || spec->id == SettingId::DebugFile) return -1;  // not a setting; or a file to create
  static const HandedInChoices handedIn = handedInSettingChoices();
  setenv(spec->name, value.c_str(), 1);
  useAsItsReaderWould(*spec, value);
  const Status checked = checkSettingsEnvironment(handedIn);
  expectAcceptedOrRefused(checked);
  // Core's loading reads every HETCCL_* variable through its binding: it refuses what the check does.
  Settings settings;
  const Status loaded = loadSettings(nullptr, &settings);
  expectAcceptedOrRefused(loaded);
  if (spec->section == SettingSection::Hetccl && loaded.isOk() != checked.isOk()) std::abort();
  unsetenv(spec->name);
  expectConfigAgrees(*spec, value, checked.isOk());
  return 0;
}
