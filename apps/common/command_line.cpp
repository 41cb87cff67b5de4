#include "common/command_line.h"

#include <getopt.h>

#include <algorithm>

namespace hetccl_apps {

namespace {

// getopt's option string: '-' returns operands in place (key 1) instead of moving them to the
// end, ':' reports a missing value apart from an unknown flag and keeps getopt from printing;
// then each short letter, with ':' when it takes a value.
std::string shortOptions(const std::vector<Flag>& flags) {
  std::string text = "-:";
  for (const Flag& flag : flags) {
    if (flag.key >= kLongOnlyKey) continue;
    text += static_cast<char>(flag.key);
    if (flag.valueName != nullptr) text += ':';
  }
  return text;
}

std::vector<option> longOptions(const std::vector<Flag>& flags) {
  std::vector<option> options;
  for (const Flag& flag : flags)
    if (flag.name != nullptr)
      options.push_back(
          option{flag.name, flag.valueName != nullptr ? required_argument : no_argument, nullptr, flag.key});
  options.push_back(option{nullptr, 0, nullptr, 0});
  return options;
}

// "--name=value" -> "--name".
std::string longSpelling(const std::string& word) { return word.substr(0, word.find('=')); }

std::string shortSpelling(int key) { return std::string("-") + static_cast<char>(key); }

// Why getopt refused `word` (its '?'); `key` is getopt's optopt: the flag's key when the flag
// is known but was given a value it does not take, else the unknown letter (0 for a long name).
std::string refusal(const std::string& word, int key, const std::vector<Flag>& flags) {
  if (word.compare(0, 2, "--") != 0) return "unknown argument '" + shortSpelling(key) + "'";
  const std::string spelling = longSpelling(word);
  if (key != 0) return "option '" + spelling + "' takes no value";
  const std::string prefix = spelling.substr(2);
  std::string candidates;
  int matches = 0;
  for (const Flag& flag : flags)
    if (flag.name != nullptr && std::string(flag.name).compare(0, prefix.size(), prefix) == 0) {
      candidates += std::string(matches++ ? ", " : "") + "--" + flag.name;
    }
  if (matches > 1) return "ambiguous option '" + spelling + "' (" + candidates + ")";
  return "unknown argument '" + spelling + "'";
}

}  // namespace

bool parseCommandLine(int argc, const char* const* argv, const std::vector<Flag>& flags,
                      std::vector<Argument>* arguments, std::string* error) {
  // getopt may reorder the pointer array (never the strings): it gets a copy.
  std::vector<char*> words;
  for (int i = 0; i < argc; ++i) words.push_back(const_cast<char*>(argv[i]));
  words.push_back(nullptr);
  const std::string shorts = shortOptions(flags);
  const std::vector<option> longs = longOptions(flags);

  std::vector<Argument> given;
  optind = 0;  // GNU: start afresh, whatever an earlier parse left behind
  opterr = 0;
  while (true) {
    // The word getopt looks at (optind 0 means "not started": the first word, 1).
    const int at = optind == 0 ? 1 : optind;
    int longIndex = -1;
    const int key = getopt_long(argc, words.data(), shorts.c_str(), longs.data(), &longIndex);
    if (key == -1) break;
    const std::string word = at < argc ? argv[at] : "";
    if (key == '?') {
      *error = refusal(word, optopt, flags);
      return false;
    }
    if (key == ':') {
      const std::string spelling = word.compare(0, 2, "--") == 0 ? longSpelling(word) : shortSpelling(optopt);
      *error = "option '" + spelling + "' needs a value";
      return false;
    }
    Argument argument;
    if (key == 1) {
      argument.value = optarg;
    } else {
      argument.key = key;
      argument.spelling =
          longIndex >= 0 ? std::string("--") + longs[static_cast<size_t>(longIndex)].name : shortSpelling(key);
      if (optarg != nullptr) argument.value = optarg;
    }
    given.push_back(std::move(argument));
  }
  // After "--", getopt stops and leaves the rest: all operands.
  for (int i = optind; i < argc; ++i) given.push_back(Argument{Argument::kOperand, "", argv[i]});
  *arguments = std::move(given);
  return true;
}

std::string describeFlags(const std::vector<Flag>& flags) {
  std::vector<std::string> lefts;
  size_t width = 0;
  for (const Flag& flag : flags) {
    std::string left = flag.key < kLongOnlyKey ? "  " + shortSpelling(flag.key) : "    ";
    if (flag.name != nullptr) left += std::string(flag.key < kLongOnlyKey ? ", " : "  ") + "--" + flag.name;
    if (flag.valueName != nullptr) left += std::string(" ") + flag.valueName;
    width = std::max(width, left.size());
    lefts.push_back(std::move(left));
  }
  const size_t column = width + 2;
  std::string text;
  for (size_t i = 0; i < flags.size(); ++i) {
    std::string line = lefts[i];
    const std::string& help = flags[i].help;
    size_t start = 0;
    while (true) {
      const size_t end = help.find('\n', start);
      line.append(column - line.size(), ' ');
      line += help.substr(start, end == std::string::npos ? std::string::npos : end - start);
      text += line + "\n";
      if (end == std::string::npos) break;
      line.clear();
      start = end + 1;
    }
  }
  return text;
}

}  // namespace hetccl_apps
