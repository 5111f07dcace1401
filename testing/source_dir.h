// The checkout's root, for tests that read its files (the shipped model, docs, reference
// scripts): $RPSUM_SOURCE_DIR, which CTest sets for every test (cmake/RpsumTargets.cmake), else
// the working directory (CTest runs tests from the root). Read at run time: a compile-time define
// holding the checkout's path made every test unit miss ccache in a clone elsewhere.
#ifndef RPSUM_TESTING_SOURCE_DIR_H_
#define RPSUM_TESTING_SOURCE_DIR_H_

#include <cstdlib>
#include <string>

namespace rpsum::test {

inline std::string TestSourceDir() {
  const char* env = std::getenv("RPSUM_SOURCE_DIR");
  return env != nullptr && *env != '\0' ? env : ".";
}

}  // namespace rpsum::test

#endif  // RPSUM_TESTING_SOURCE_DIR_H_
