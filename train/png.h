// A minimal PNG writer (8-bit RGB, zlib-compressed, no filtering) for debugging images.
#ifndef RPSUM_TRAIN_PNG_H_
#define RPSUM_TRAIN_PNG_H_

#include <cstdint>
#include <string>
#include <vector>

namespace rpsum::train {

// `rgb` holds height rows of width pixels, 3 bytes each. Returns false if the file cannot be
// written.
bool WritePng(const std::string& path, int width, int height, const std::vector<uint8_t>& rgb);

}  // namespace rpsum::train

#endif  // RPSUM_TRAIN_PNG_H_
