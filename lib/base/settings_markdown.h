// The settings table as Markdown: what the README's "Settings" section shows (a test checks
// that the README holds exactly this text, so the two cannot drift apart).
#pragma once

#include <string>

#include "base/settings_table.h"

namespace hetccl {

// The HETCCL_* table, then the launcher's variables, each a Markdown table with the columns
// variable, values (default), effect.
std::string settingsMarkdown(const HandedInChoices& handedIn);

}  // namespace hetccl
