// hetccl-settings: the settings table (lib/base/settings_table.h) for people.  With
// --markdown it prints the README's "Settings" tables exactly (a test compares the two);
// without, every variable with its value in this environment and whether hetccl accepts it.
// Exit status: 0 printed (and every value accepted), 1 a value hetccl would refuse, 2 bad
// command line.
#include <cstdio>
#include <cstring>
#include <string>

#include "base/settings_markdown.h"
#include "base/settings_reader.h"
#include "core/settings.h"

namespace {

const char* kUsage =
    "usage: hetccl-settings [--markdown]\n"
    "  (no option)  every variable, its value here and where it comes from; checks them\n"
    "  --markdown   the README's settings tables\n";

int printEnvironment() {
  using namespace hetccl;
  for (const SettingSpec& spec : settingsTable()) {
    const std::string value = effectiveSettingText(spec.id);
    std::printf("%-36s %-24s %s\n", spec.name, value.empty() ? "-" : value.c_str(),
                settingSourceName(settingSource(spec.id)));
  }
  const Status status = checkSettingsEnvironment(handedInSettingChoices());
  if (!status.isOk()) {
    std::fprintf(stderr, "hetccl-settings: %s\n", status.message().c_str());
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 1) return printEnvironment();
  if (argc == 2 && std::strcmp(argv[1], "--markdown") == 0) {
    std::fputs(hetccl::settingsMarkdown(hetccl::handedInSettingChoices()).c_str(), stdout);
    return 0;
  }
  const bool help = argc == 2 && (std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0);
  std::fputs(kUsage, help ? stdout : stderr);
  return help ? 0 : 2;
}
