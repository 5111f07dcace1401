// Helpers shared by the benchmark programs that measure each case in a child process.
#ifndef RPSUM_BENCH_BENCH_UTIL_H_
#define RPSUM_BENCH_BENCH_UTIL_H_

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace rpsum::bench {

// Peak resident set of this process so far (VmHWM), in KiB.
inline long PeakRssKb() {
  std::ifstream f("/proc/self/status");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atol(line.c_str() + 6);
  }
  return 0;
}

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// What a child prints: "seconds rss_kb". Negative when the child failed.
struct ChildResult {
  double seconds = -1;
  long rss_kb = -1;
  double extra = -1;  // a third value, for children that print one
};

// Runs `command` (this binary re-executed with --child ...) and reads its one result line, so
// that each measurement's peak RSS is its own process's.
inline ChildResult RunChild(const std::string& command) {
  FILE* p = popen(command.c_str(), "r");
  ChildResult r;
  if (p == nullptr) return r;
  if (std::fscanf(p, "%lf %ld %lf", &r.seconds, &r.rss_kb, &r.extra) < 2) r = ChildResult();
  pclose(p);
  return r;
}

// The parent's command line: [--runs N] [--threads N] [--out DIR].
struct ParentArgs {
  int runs;
  int threads = 2;
  std::string out = "bench/results";
};

inline ParentArgs ParseParentArgs(int argc, char** argv, int default_runs) {
  ParentArgs a{default_runs};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--runs") a.runs = std::atoi(argv[i + 1]);
    if (flag == "--threads") a.threads = std::atoi(argv[i + 1]);
    if (flag == "--out") a.out = argv[i + 1];
  }
  return a;
}

// Writes DIR/NAME.json and DIR/NAME.md and prints the markdown.
inline void WriteResults(const std::string& dir, const std::string& name, const std::string& json,
                         const std::string& markdown) {
  std::printf("%s", markdown.c_str());
  std::ofstream(dir + "/" + name + ".json") << json << "\n";
  std::ofstream(dir + "/" + name + ".md") << markdown;
}

}  // namespace rpsum::bench

#endif  // RPSUM_BENCH_BENCH_UTIL_H_
