// Prometheus metrics of docs/design.md, section 5 (prometheus-cpp), served on their own port. Owns
// its registry (no global singletons). Implements the scheduler's observer. Thread-safe.
#ifndef RPSUM_SERVER_METRICS_H_
#define RPSUM_SERVER_METRICS_H_

#include <memory>
#include <string>

#include "prometheus/counter.h"
#include "prometheus/family.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/registry.h"
#include "server/scheduler/scheduler.h"

namespace rpsum::server {

struct BuildInfo {
  std::string version;
  std::string torch;
  std::string device;
};

class Metrics : public SchedulerObserver {
 public:
  explicit Metrics(const BuildInfo& build);

  // The registry to expose (with process metrics registered alongside by the caller).
  std::shared_ptr<prometheus::Registry> registry() const { return registry_; }

  // One finished RPC: its method ("Summarize", ...), gRPC code name and duration.
  void OnRequest(const std::string& method, const std::string& code, double seconds);
  // Why a request failed (bounded set: invalid_argument, queue_full, deadline, cancelled,
  // unauthenticated, unavailable, model_error, too_large).
  void OnFailure(const std::string& reason);
  void OnPrepared(double seconds, int64_t tokens, int64_t clip_distance);
  // Text extracted from a Markdown, HTML or PDF document (`format`: markdown, html, pdf).
  void OnExtracted(const std::string& format, double seconds);
  // A document that overran the small documents' read budget, read again on the large pool.
  void OnMovedToLargePool();
  void SetDraining(bool draining);
  // The admission limits (--max_queue_requests, --max_queue_cost), exported so that alerts and
  // dashboards can show the queue as a fraction of what it may hold.
  void SetQueueLimits(int requests, int64_t cost);

  // SchedulerObserver.
  void OnQueueChanged(int requests, int64_t cost) override;
  void OnRunningChanged(int requests) override;
  void OnBatch(const BatchInfo& info) override;
  void OnQueueWait(absl::Duration wait) override;
  void OnOomSplit() override;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  prometheus::Family<prometheus::Counter>& requests_;
  prometheus::Family<prometheus::Counter>& failures_;
  prometheus::Histogram& duration_;
  prometheus::Histogram& queue_wait_;
  prometheus::Histogram& prepare_;
  prometheus::Family<prometheus::Histogram>& extract_;
  prometheus::Histogram& inference_;
  prometheus::Histogram& input_tokens_;
  prometheus::Histogram& batch_size_;
  prometheus::Histogram& padding_;
  prometheus::Histogram& clip_distance_;
  prometheus::Gauge& queue_requests_;
  prometheus::Gauge& queue_cost_;
  prometheus::Gauge& running_;
  prometheus::Gauge& draining_;
  prometheus::Gauge& queue_limit_requests_;
  prometheus::Gauge& queue_limit_cost_;
  prometheus::Counter& oom_;
  prometheus::Counter& moved_;
};

// A collectable with process_cpu_seconds_total, process_resident_memory_bytes,
// process_virtual_memory_bytes, process_open_fds and process_start_time_seconds, read from
// /proc on each scrape, and rpsum_heap_allocated_bytes, read from the allocator.
std::shared_ptr<prometheus::Collectable> MakeProcessCollector();

}  // namespace rpsum::server

#endif  // RPSUM_SERVER_METRICS_H_
