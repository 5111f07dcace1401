// rpsum-score: ROUGE of summaries made elsewhere (a served summary of a PDF, say) against their
// references, by the rules of rpsum-eval's tables (train/rouge.h). Reads JSON lines from
// standard input, each {"group": ..., "reference": ..., "summary": ...}, and prints one JSON
// object: per group, the documents and the mean ROUGE-1, -2, -L and -Lsum F1 (x 100).
//   rpsum-score < summaries.jsonl
#include <cstdio>
#include <exception>
#include <iostream>
#include <map>
#include <string>

#include "nlohmann/json.hpp"
#include "train/rouge.h"

namespace {

int Run() {
  struct Sums {
    int n = 0;
    double r1 = 0, r2 = 0, rl = 0, rlsum = 0;
  };
  std::map<std::string, Sums> groups;
  std::string line;
  int number = 0;
  while (std::getline(std::cin, line)) {
    ++number;
    if (line.empty()) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      std::fprintf(stderr, "rpsum-score: line %d is not JSON: %s\n", number, e.what());
      return 1;
    }
    if (!j.contains("reference") || !j.contains("summary")) {
      std::fprintf(stderr, "rpsum-score: line %d needs \"reference\" and \"summary\"\n", number);
      return 1;
    }
    const auto s =
        rpsum::train::Rouge(j["reference"].get<std::string>(), j["summary"].get<std::string>());
    Sums& g = groups[j.value("group", std::string("all"))];
    ++g.n;
    g.r1 += s.rouge1.f;
    g.r2 += s.rouge2.f;
    g.rl += s.rougeL.f;
    g.rlsum += s.rougeLsum.f;
  }
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [name, g] : groups) {
    out[name] = {{"n", g.n},
                 {"rouge1", 100 * g.r1 / g.n},
                 {"rouge2", 100 * g.r2 / g.n},
                 {"rougeL", 100 * g.rl / g.n},
                 {"rougeLsum", 100 * g.rlsum / g.n}};
  }
  std::cout << out.dump(1) << "\n";
  return 0;
}

}  // namespace

int main() {
  try {
    return Run();
  } catch (const std::exception& e) {  // a malformed field (not a string, say)
    std::fprintf(stderr, "rpsum-score: %s\n", e.what());
    return 1;
  }
}
