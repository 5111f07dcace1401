// The unit features of a prepared document (model/model_config.h lists the columns): the
// second half of model::Prepare, after the units are tokenized and the kept ones chosen.
// Internal to model/.
#ifndef RPSUM_MODEL_INTERNAL_FEATURES_H_
#define RPSUM_MODEL_INTERNAL_FEATURES_H_

#include <bitset>
#include <cstdint>
#include <vector>

#include "model/document.h"

namespace rpsum::model {

// Appends each kept unit (`keep`) to `out`'s model input: its marker, its `pieces`, its features
// (kNumFeatures; the columns `want` does not ask for stay 0).
void AddModelInput(const DocumentInput& in, const Tokenizer& tokenizer,
                   const std::vector<std::vector<int32_t>>& pieces, const std::vector<char>& keep,
                   const std::bitset<kNumFeatures>& want, PreparedDocument* out);

}  // namespace rpsum::model

#endif  // RPSUM_MODEL_INTERNAL_FEATURES_H_
