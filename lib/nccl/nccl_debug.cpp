// NCCL_DEBUG and NCCL_DEBUG_FILE, which the drop-in's users set out of habit, become hetccl's
// own HETCCL_DEBUG and HETCCL_DEBUG_FILE where those are unset: set once, when the library
// loads, before hetccl reads its log settings (at its first message).  NCCL's levels map onto
// hetccl's: WARN, INFO and TRACE to the same; VERSION (the version line only) to nothing; any
// other value is left alone, as NCCL ignores what it does not know.  NCCL_DEBUG_FILE's %h and
// %p mean what HETCCL_DEBUG_FILE's do (host, pid).
#include <cstdlib>
#include <initializer_list>

#include <strings.h>

#include "base/settings_reader.h"
#include "base/settings_table.h"

namespace {

__attribute__((constructor)) void takeNcclDebugSettings() {
  using hetccl::SettingId;
  const char* level = hetccl::settingText(SettingId::NcclDebug);
  if (level && !hetccl::settingText(SettingId::Debug)) {
    for (const char* known : {"WARN", "INFO", "TRACE"})
      if (strcasecmp(level, known) == 0) ::setenv(hetccl::settingSpec(SettingId::Debug).name, known, 0);
  }
  const char* file = hetccl::settingText(SettingId::NcclDebugFile);
  if (file && !hetccl::settingText(SettingId::DebugFile))
    ::setenv(hetccl::settingSpec(SettingId::DebugFile).name, file, 0);
}

}  // namespace
