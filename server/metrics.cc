#include "server/metrics.h"

#include <dirent.h>
#include <dlfcn.h>
#include <malloc.h>
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "prometheus/metric_family.h"

namespace rpsum::server {
namespace {

using prometheus::Histogram;

Histogram::BucketBoundaries Exponential(double start, double factor, int count) {
  Histogram::BucketBoundaries b;
  double v = start;
  for (int i = 0; i < count; ++i, v *= factor) b.push_back(v);
  return b;
}

// Seconds: 1 ms to about 2 minutes (long documents on CPU take seconds).
const Histogram::BucketBoundaries kSeconds = Exponential(0.001, 2, 18);

Histogram& MakeHistogram(prometheus::Registry& r, const std::string& name, const std::string& help,
                         const Histogram::BucketBoundaries& buckets) {
  return prometheus::BuildHistogram().Name(name).Help(help).Register(r).Add({}, buckets);
}

prometheus::Gauge& MakeGauge(prometheus::Registry& r, const std::string& name,
                             const std::string& help) {
  return prometheus::BuildGauge().Name(name).Help(help).Register(r).Add({});
}

// Bytes the allocator has handed out and not had back. Under tcmalloc (linked into the
// programs that run the model, CMakeLists.txt) that is its generic.current_allocated_bytes,
// found at run time so that a build without it still links; else glibc's mallinfo2. Unlike
// RSS, which with either allocator stays at the heap's high-water mark, this returns to the
// same level whenever the same work is done and nothing leaks (tests/soak/soak.py relies on
// it; docs/design.md, "Metrics").
double HeapAllocatedBytes() {
  using GetProperty = int (*)(const char*, size_t*);
  static const auto kTcmallocGetProperty =
      reinterpret_cast<GetProperty>(dlsym(RTLD_DEFAULT, "MallocExtension_GetNumericProperty"));
  if (kTcmallocGetProperty != nullptr) {
    size_t bytes = 0;
    if (kTcmallocGetProperty("generic.current_allocated_bytes", &bytes) != 0) {
      return static_cast<double>(bytes);
    }
  }
  const struct mallinfo2 info = mallinfo2();
  return static_cast<double>(info.uordblks + info.hblkhd);
}

class ProcessCollector : public prometheus::Collectable {
 public:
  std::vector<prometheus::MetricFamily> Collect() const override {
    std::vector<prometheus::MetricFamily> out;
    auto add = [&](const char* name, const char* help, prometheus::MetricType type, double v) {
      prometheus::MetricFamily f;
      f.name = name;
      f.help = help;
      f.type = type;
      prometheus::ClientMetric m;
      if (type == prometheus::MetricType::Counter) {
        m.counter.value = v;
      } else {
        m.gauge.value = v;
      }
      f.metric.push_back(m);
      out.push_back(std::move(f));
    };
    const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
    const double page = static_cast<double>(sysconf(_SC_PAGESIZE));
    std::ifstream stat("/proc/self/stat");
    std::string line;
    std::getline(stat, line);
    const size_t close = line.rfind(')');
    if (close != std::string::npos) {
      std::istringstream in(line.substr(close + 2));
      std::vector<std::string> f;
      std::string x;
      while (in >> x) f.push_back(x);
      // Fields after the command: state(0) ... utime(11) stime(12) ... starttime(19) vsize(20)
      // rss(21).
      if (f.size() > 21) {
        add("process_cpu_seconds_total", "User and system CPU time spent in seconds.",
            prometheus::MetricType::Counter, (std::stod(f[11]) + std::stod(f[12])) / tick);
        add("process_virtual_memory_bytes", "Virtual memory size in bytes.",
            prometheus::MetricType::Gauge, std::stod(f[20]));
        add("process_resident_memory_bytes", "Resident memory size in bytes.",
            prometheus::MetricType::Gauge, std::stod(f[21]) * page);
        std::ifstream uptime_file("/proc/uptime");
        double uptime = 0;
        uptime_file >> uptime;
        const double boot = static_cast<double>(time(nullptr)) - uptime;
        add("process_start_time_seconds", "Start time of the process since unix epoch in seconds.",
            prometheus::MetricType::Gauge, boot + std::stod(f[19]) / tick);
      }
    }
    int fds = 0;
    if (DIR* d = opendir("/proc/self/fd")) {
      while (readdir(d) != nullptr) ++fds;
      closedir(d);
      fds -= 3;  // ".", ".." and the directory's own descriptor
    }
    add("process_open_fds", "Number of open file descriptors.", prometheus::MetricType::Gauge, fds);
    add("rpsum_heap_allocated_bytes",
        "Heap bytes allocated and not yet freed (the allocator's count; RSS keeps the peak).",
        prometheus::MetricType::Gauge, HeapAllocatedBytes());
    return out;
  }
};

}  // namespace

Metrics::Metrics(const BuildInfo& build)
    : registry_(std::make_shared<prometheus::Registry>()),
      requests_(prometheus::BuildCounter()
                    .Name("rpsum_requests_total")
                    .Help("Finished RPCs by method and gRPC status code.")
                    .Register(*registry_)),
      failures_(prometheus::BuildCounter()
                    .Name("rpsum_request_failures_total")
                    .Help("Failed requests by reason.")
                    .Register(*registry_)),
      duration_(MakeHistogram(*registry_, "rpsum_request_duration_seconds",
                              "Time from receipt to response.", kSeconds)),
      queue_wait_(MakeHistogram(*registry_, "rpsum_queue_wait_seconds",
                                "Time prepared requests waited for a batch and a worker.",
                                kSeconds)),
      prepare_(MakeHistogram(*registry_, "rpsum_prepare_seconds",
                             "Time spent splitting and tokenizing a document.", kSeconds)),
      extract_(prometheus::BuildHistogram()
                   .Name("rpsum_extract_seconds")
                   .Help("Time spent extracting the text of a Markdown, HTML or PDF document.")
                   .Register(*registry_)),
      inference_(MakeHistogram(*registry_, "rpsum_inference_seconds",
                               "Time of one batch's forward pass.", kSeconds)),
      input_tokens_(MakeHistogram(*registry_, "rpsum_input_tokens", "Tokens per prepared request.",
                                  Exponential(64, 2, 11))),
      batch_size_(MakeHistogram(*registry_, "rpsum_batch_size", "Requests per batch.",
                                {1, 2, 4, 8, 16, 32, 64})),
      padding_(MakeHistogram(*registry_, "rpsum_batch_padding_ratio",
                             "Padded share of the tokens in a batch.",
                             {0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1})),
      clip_distance_(MakeHistogram(*registry_, "rpsum_clip_distance",
                                   "Relative-attention clip distance k per request.",
                                   {1, 2, 4, 8, 16, 32, 64, 128, 256})),
      queue_requests_(MakeGauge(*registry_, "rpsum_queue_requests", "Requests queued now.")),
      queue_cost_(
          MakeGauge(*registry_, "rpsum_queue_cost_tokens", "Cost (token-equivalents) queued now.")),
      running_(MakeGauge(*registry_, "rpsum_running_requests", "Requests in a running batch.")),
      draining_(MakeGauge(*registry_, "rpsum_draining", "1 while the server drains.")),
      queue_limit_requests_(MakeGauge(*registry_, "rpsum_queue_limit_requests",
                                      "Requests the queue admits at most.")),
      queue_limit_cost_(MakeGauge(*registry_, "rpsum_queue_limit_cost_tokens",
                                  "Cost (token-equivalents) the queue admits at most.")),
      oom_(prometheus::BuildCounter()
               .Name("rpsum_oom_retries_total")
               .Help("Batches split in halves after running out of memory.")
               .Register(*registry_)
               .Add({})),
      moved_(prometheus::BuildCounter()
                 .Name("rpsum_prepare_moved_total")
                 .Help("Documents read again on the large-document pool after overrunning the "
                       "small documents' read budget.")
                 .Register(*registry_)
                 .Add({})) {
  prometheus::BuildGauge()
      .Name("rpsum_build_info")
      .Help("Build and runtime of this server (value 1).")
      .Register(*registry_)
      .Add({{"version", build.version}, {"torch", build.torch}, {"device", build.device}})
      .Set(1);
}

void Metrics::OnRequest(const std::string& method, const std::string& code, double seconds) {
  requests_.Add({{"method", method}, {"code", code}}).Increment();
  if (method == "Summarize") duration_.Observe(seconds);
}

void Metrics::OnFailure(const std::string& reason) {
  failures_.Add({{"reason", reason}}).Increment();
}

void Metrics::OnPrepared(double seconds, int64_t tokens, int64_t clip_distance) {
  prepare_.Observe(seconds);
  input_tokens_.Observe(static_cast<double>(tokens));
  clip_distance_.Observe(static_cast<double>(clip_distance));
}

void Metrics::OnExtracted(const std::string& format, double seconds) {
  extract_.Add({{"format", format}}, kSeconds).Observe(seconds);
}

void Metrics::SetDraining(bool draining) { draining_.Set(draining ? 1 : 0); }

void Metrics::SetQueueLimits(int requests, int64_t cost) {
  queue_limit_requests_.Set(requests);
  queue_limit_cost_.Set(static_cast<double>(cost));
}

void Metrics::OnQueueChanged(int requests, int64_t cost) {
  queue_requests_.Set(requests);
  queue_cost_.Set(static_cast<double>(cost));
}

void Metrics::OnRunningChanged(int requests) { running_.Set(requests); }

void Metrics::OnBatch(const BatchInfo& info) {
  batch_size_.Observe(info.size);
  padding_.Observe(info.padding_ratio);
  inference_.Observe(absl::ToDoubleSeconds(info.inference));
}

void Metrics::OnQueueWait(absl::Duration wait) { queue_wait_.Observe(absl::ToDoubleSeconds(wait)); }

void Metrics::OnOomSplit() { oom_.Increment(); }
void Metrics::OnMovedToLargePool() { moved_.Increment(); }

std::shared_ptr<prometheus::Collectable> MakeProcessCollector() {
  return std::make_shared<ProcessCollector>();
}

}  // namespace rpsum::server
