// Reading small files whole (certificates, tokens, documents given on a command line).
#ifndef RPSUM_BASE_FILES_H_
#define RPSUM_BASE_FILES_H_

#include <string>

#include "absl/status/statusor.h"

namespace rpsum {

// The bytes of the file at `path`. NotFound, naming the path and the reason, when it cannot be
// opened or read. Thread-safe.
absl::StatusOr<std::string> ReadFile(const std::string& path);

}  // namespace rpsum

#endif  // RPSUM_BASE_FILES_H_
