// hetccl-settings: the settings table (lib/base/settings_table.h) for people.  With
// --markdown it prints the README's "Settings" tables exactly (a test compares the two);
// without, every variable with its value in this environment and whether hetccl accepts it.
// Exit status: 0 printed (and every value accepted), 1 a value hetccl would refuse, 2 bad
// command line.
#include <cstdio>
#include <string>
#include <vector>

#include "base/settings_markdown.h"
#include "base/settings_reader.h"
#include "common/command_line.h"
#include "core/settings.h"

namespace {

constexpr int kMarkdownKey = hetccl_apps::kLongOnlyKey;

const std::vector<hetccl_apps::Flag>& settingsFlags() {
  static const std::vector<hetccl_apps::Flag> flags{
      {kMarkdownKey, "markdown", nullptr, "print the README's settings tables"},
      {'h', "help", nullptr, "this text"},
  };
  return flags;
}

std::string usage() {
  return "usage: hetccl-settings [--markdown]\n"
         "  Without options: every variable, its value here and where it comes from; checks them.\n" +
         hetccl_apps::describeFlags(settingsFlags());
}

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
  std::vector<hetccl_apps::Argument> arguments;
  std::string why;
  if (hetccl_apps::parseCommandLine(argc, argv, settingsFlags(), &arguments, &why))
    for (const hetccl_apps::Argument& argument : arguments)
      if (argument.key == hetccl_apps::Argument::kOperand) why = "unknown argument '" + argument.value + "'";
  if (!why.empty()) {
    std::fprintf(stderr, "hetccl-settings: %s\n%s", why.c_str(), usage().c_str());
    return 2;
  }
  bool markdown = false;
  for (const hetccl_apps::Argument& argument : arguments) {
    if (argument.key == 'h') {
      std::fputs(usage().c_str(), stdout);
      return 0;
    }
    markdown = argument.key == kMarkdownKey;
  }
  if (!markdown) return printEnvironment();
  std::fputs(hetccl::settingsMarkdown(hetccl::handedInSettingChoices()).c_str(), stdout);
  return 0;
}
