// The command line of train/'s tools (rpsum-train, rpsum-eval, rpsum-inspect): the usage message,
// and --help listing the flags the tool's own train/*_main.cc defines (abseil's default lists only
// a file named like the program, so none). train.tool_flags checks what --help lists.
#ifndef RPSUM_TRAIN_TOOL_MAIN_H_
#define RPSUM_TRAIN_TOOL_MAIN_H_

#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"

namespace rpsum::train {

inline void ParseToolFlags(int argc, char** argv, absl::string_view usage_message) {
  absl::SetProgramUsageMessage(usage_message);
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view path) {
    return absl::StrContains(path, "train/") && absl::EndsWith(path, "_main.cc");
  };
  absl::SetFlagsUsageConfig(usage);
  absl::ParseCommandLine(argc, argv);
}

}  // namespace rpsum::train

#endif  // RPSUM_TRAIN_TOOL_MAIN_H_
