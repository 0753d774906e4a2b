#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "telemetry/metric_catalog.h"

namespace llmux::telemetry {

/// A monotonic count. Increments are relaxed atomics: no lock, safe from any thread.
class Counter {
 public:
  void inc(std::uint64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  std::uint64_t value() const { return value_.load(std::memory_order_relaxed); }
  /// Raises the count to `total` if it is lower: mirrors a count kept elsewhere (a sink's drop
  /// counter) just before a scrape, without ever going backwards.
  void advanceTo(std::uint64_t total);

 private:
  std::atomic<std::uint64_t> value_{0};
};

/// A value that goes up and down. Lock-free.
class Gauge {
 public:
  void set(double v) { value_.store(v, std::memory_order_relaxed); }
  void inc(double d = 1) { value_.fetch_add(d, std::memory_order_relaxed); }
  void dec(double d = 1) { value_.fetch_sub(d, std::memory_order_relaxed); }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

/// Fixed-bucket histogram. `observe` is one bucket search over a handful of bounds plus two
/// relaxed atomic adds; the count is the sum of the buckets, so `_count` always equals the
/// "+Inf" bucket in an exposition.
class Histogram {
 public:
  /// `bounds` must outlive the histogram (the catalog's static arrays do).
  explicit Histogram(std::span<double const> bounds);

  void observe(double value);
  std::span<double const> bounds() const { return bounds_; }
  /// Observations in bucket `i` alone (not cumulative); `i == bounds().size()` is the overflow.
  std::uint64_t bucketCount(std::size_t i) const {
    return counts_[i].load(std::memory_order_relaxed);
  }
  std::uint64_t count() const;
  double sum() const { return sum_.load(std::memory_order_relaxed); }

 private:
  std::span<double const> bounds_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> counts_;
  std::atomic<double> sum_{0};
};

/// The children of one family, one per label-value set. Resolving a label set hashes the values
/// and looks them up in the calling thread's cache of recent label sets (no lock, no shared cache
/// line: a request resolves a dozen); on a miss, in one of several shards under a shared (reader)
/// lock; only the first use of a new label set takes a shard's writer lock. Children are never removed, so the returned
/// reference stays valid for the registry's life and callers on hot paths may cache it.
template <class Child>
class MetricFamily {
 public:
  explicit MetricFamily(MetricSpec const& spec);
  ~MetricFamily();
  MetricFamily(MetricFamily const&) = delete;
  MetricFamily& operator=(MetricFamily const&) = delete;

  /// The child for these label values, in the order of the spec's label names. A wrong number of
  /// values is a bug: it asserts in checked builds; otherwise missing values are "" and extra
  /// ones ignored.
  Child& labels(std::span<std::string_view const> values);
  Child& labels(std::initializer_list<std::string_view> values) {
    return labels(std::span<std::string_view const>(values.begin(), values.size()));
  }
  /// The child of a family without labels.
  Child& get() { return labels(std::span<std::string_view const>{}); }

  MetricSpec const& spec() const { return spec_; }

  /// Every child with its label values, sorted by the values (for exposition and tests).
  struct Entry {
    std::vector<std::string> const* values;
    Child const* child;
  };
  std::vector<Entry> snapshot() const;

 private:
  struct Shard;
  Child& lookUp(std::size_t hash, std::span<std::string_view const> values);

  MetricSpec spec_;
  /// Unique in the process, never reused: a thread's cache entry names its family by it, so an
  /// entry of a destroyed family can never match a new one at the same address.
  std::uint64_t id_;
  std::unique_ptr<Shard[]> shards_;
};

using CounterFamily = MetricFamily<Counter>;
using GaugeFamily = MetricFamily<Gauge>;
using HistogramFamily = MetricFamily<Histogram>;

extern template class MetricFamily<Counter>;
extern template class MetricFamily<Gauge>;
extern template class MetricFamily<Histogram>;

/// All metric families of a process, created up front from a catalog. Thread-safe; `app/` owns
/// one and passes it down.
class MetricsRegistry {
 public:
  /// The gateway's catalog (`kGatewayMetrics`).
  MetricsRegistry();
  /// Another catalog (tests, tools): `MetricId{i}` then names `specs[i]`. `specs` must outlive
  /// the registry. Throws std::invalid_argument on an invalid spec or a duplicate name (start-up).
  explicit MetricsRegistry(std::span<MetricSpec const> specs);
  ~MetricsRegistry();
  MetricsRegistry(MetricsRegistry const&) = delete;
  MetricsRegistry& operator=(MetricsRegistry const&) = delete;

  /// The family `id`, which must have the matching type (asserted).
  CounterFamily& counter(MetricId id);
  GaugeFamily& gauge(MetricId id);
  HistogramFamily& histogram(MetricId id);

  std::span<MetricSpec const> specs() const { return specs_; }

  /// Prometheus text exposition format 0.0.4 of every family, in catalog order.
  std::string renderPrometheus() const;

 private:
  std::span<MetricSpec const> specs_;
  std::vector<std::unique_ptr<CounterFamily>> counters_;  // by spec index; null if not a counter
  std::vector<std::unique_ptr<GaugeFamily>> gauges_;
  std::vector<std::unique_ptr<HistogramFamily>> histograms_;
};

/// Label value escaping of the text format: backslash, double quote and newline.
void appendPrometheusLabelValue(std::string& out, std::string_view value);

/// A sample value as the text format writes it: "+Inf", "-Inf", "NaN" or the shortest decimal.
void appendPrometheusNumber(std::string& out, double value);

}  // namespace llmux::telemetry
