// The apps' command lines, read by getopt_long as nccl-tests reads its own: flags and operands
// in any order, "-b8" and "-b 8", "--name=value" and "--name value", unambiguous prefixes of
// long names.  Each app describes its flags in a table (Flag) and gets back what was given, in
// order (Argument); turning the values into settings stays with the app (option_values.h
// helps), and so does printing.
//
// getopt_long keeps its state in globals: parseCommandLine resets it on every call (so the
// unit tests may parse many command lines in one process) and must not run on two threads at
// once.
#pragma once

#include <string>
#include <vector>

namespace hetccl_apps {

// Keys of flags that have no short form start here, past every letter: hetccl's own flags
// on nccl-tests' command line stay long-only, so no future nccl-tests letter can clash.
constexpr int kLongOnlyKey = 256;

struct Flag {
  int key;                // the short letter ('b' for -b), or kLongOnlyKey + n
  const char* name;       // the long name ("minbytes" for --minbytes); nullptr: short form only
  const char* valueName;  // the value's name in the usage ("SIZE"); nullptr: takes no value
  std::string help;       // usage text; "\n" continues it on the next line, aligned
};

// One item of the command line, in the order given.
struct Argument {
  static constexpr int kOperand = 0;  // a word that is not a flag (a collective, a file)
  int key = kOperand;                 // the Flag's key, or kOperand
  std::string spelling;               // how the flag was written, for messages: "-b" or "--minbytes"
  std::string value;                  // the flag's value ("" for a flag without one), or the operand
};

// Parses argv[1..argc-1] against `flags`.  False with *error saying what is wrong and where:
// "unknown argument '--bogus'", "option '-b' needs a value", "option '--help' takes no value",
// "ambiguous option '--m' (--maxbytes, --minbytes)".  A "--" ends the flags: every word after
// it is an operand.
bool parseCommandLine(int argc, const char* const* argv, const std::vector<Flag>& flags,
                      std::vector<Argument>* arguments, std::string* error);

// The flags as usage lines, help texts aligned in one column:
//   "  -b, --minbytes SIZE   smallest size ..."
//   "      --baseline mpi    time ..."
std::string describeFlags(const std::vector<Flag>& flags);

}  // namespace hetccl_apps
