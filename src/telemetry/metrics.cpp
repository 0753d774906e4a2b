#include "telemetry/metrics.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cassert>
#include <cmath>
#include <functional>
#include <iterator>
#include <mutex>
#include <shared_mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

namespace llmux::telemetry {
namespace {

// Enough shards that two I/O threads resolving different label sets almost never meet on a lock.
constexpr std::size_t kShardCount = 16;

using LabelValues = std::vector<std::string>;
using LabelView = std::span<std::string_view const>;

// A label set is hashed once per lookup: the hash picks the shard and is carried in the key, so
// the map does not hash the strings again.
std::size_t hashLabels(LabelView values) {
  std::size_t h = 0x243f6a8885a308d3ull;
  for (std::string_view v : values) {
    h ^= std::hash<std::string_view>{}(v) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  }
  return h;
}

struct StoredKey {
  std::size_t hash;
  LabelValues values;
};

struct LookupKey {
  std::size_t hash;
  LabelView values;
};

struct KeyHash {
  using is_transparent = void;
  std::size_t operator()(StoredKey const& k) const { return k.hash; }
  std::size_t operator()(LookupKey const& k) const { return k.hash; }
};

struct KeyEqual {
  using is_transparent = void;
  static bool same(LabelValues const& a, LabelView b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (std::string_view(a[i]) != b[i]) return false;
    return true;
  }
  bool operator()(StoredKey const& a, StoredKey const& b) const {
    return a.hash == b.hash && a.values == b.values;
  }
  bool operator()(StoredKey const& a, LookupKey const& b) const {
    return a.hash == b.hash && same(a.values, b.values);
  }
  bool operator()(LookupKey const& a, StoredKey const& b) const { return (*this)(b, a); }
};

// --- The calling thread's cache of resolved label sets --------------------------------------------

/// One resolved label set: its family's id, its hash, the stored values (to compare, since
/// hashes collide) and the child. Children and their stored values live as long as their family.
struct CachedChild {
  std::uint64_t family = 0;  // 0: empty (family ids start at 1)
  std::size_t hash = 0;
  LabelValues const* values = nullptr;
  void* child = nullptr;
};

/// Direct-mapped: a request's dozen label sets rarely share a slot, and a clash only costs the
/// shard lookup it replaces.
constexpr std::size_t kCachedChildren = 256;
thread_local std::array<CachedChild, kCachedChildren> t_cached_children;

std::atomic<std::uint64_t> g_next_family_id{1};

CachedChild& cacheSlot(std::uint64_t family, std::size_t hash) {
  return t_cached_children[(hash ^ (family * 0x9e3779b97f4a7c15ull)) % kCachedChildren];
}

void appendEscapedHelp(std::string& out, std::string_view help) {
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
}

std::string_view typeName(MetricType type) {
  switch (type) {
    case MetricType::Counter:
      return "counter";
    case MetricType::Gauge:
      return "gauge";
    case MetricType::Histogram:
      return "histogram";
  }
  return "untyped";
}

// `{a="x",b="y"` without the closing brace, or nothing when there are no labels and no extra.
void appendLabels(std::string& out, MetricSpec const& spec, LabelValues const& values,
                  std::string_view extra_name = {}, std::string_view extra_value = {}) {
  std::size_t n = spec.labelCount();
  if (n == 0 && extra_name.empty()) return;
  out.push_back('{');
  for (std::size_t i = 0; i < n; ++i) {
    if (i > 0) out.push_back(',');
    out += spec.labels[i];
    out += "=\"";
    appendPrometheusLabelValue(out, values[i]);
    out.push_back('"');
  }
  if (!extra_name.empty()) {
    if (n > 0) out.push_back(',');
    out += extra_name;
    out += "=\"";
    out += extra_value;
    out.push_back('"');
  }
  out.push_back('}');
}

void appendUnsigned(std::string& out, std::uint64_t v) {
  fmt::format_to(std::back_inserter(out), "{}", v);
}

void renderSamples(std::string& out, MetricSpec const& spec, LabelValues const& values,
                   Counter const& c) {
  out += spec.name;
  appendLabels(out, spec, values);
  out.push_back(' ');
  appendUnsigned(out, c.value());
  out.push_back('\n');
}

void renderSamples(std::string& out, MetricSpec const& spec, LabelValues const& values,
                   Gauge const& g) {
  out += spec.name;
  appendLabels(out, spec, values);
  out.push_back(' ');
  appendPrometheusNumber(out, g.value());
  out.push_back('\n');
}

void renderSamples(std::string& out, MetricSpec const& spec, LabelValues const& values,
                   Histogram const& h) {
  std::string le;
  std::uint64_t cumulative = 0;
  auto bounds = h.bounds();
  for (std::size_t i = 0; i <= bounds.size(); ++i) {
    cumulative += h.bucketCount(i);
    le.clear();
    if (i < bounds.size()) {
      appendPrometheusNumber(le, bounds[i]);
    } else {
      le = "+Inf";
    }
    out += spec.name;
    out += "_bucket";
    appendLabels(out, spec, values, "le", le);
    out.push_back(' ');
    appendUnsigned(out, cumulative);
    out.push_back('\n');
  }
  out += spec.name;
  out += "_sum";
  appendLabels(out, spec, values);
  out.push_back(' ');
  appendPrometheusNumber(out, h.sum());
  out.push_back('\n');
  out += spec.name;
  out += "_count";
  appendLabels(out, spec, values);
  out.push_back(' ');
  appendUnsigned(out, cumulative);  // the buckets just summed: _count == +Inf bucket exactly
  out.push_back('\n');
}

template <class Family>
void renderFamily(std::string& out, Family const& family) {
  MetricSpec const& spec = family.spec();
  out += "# HELP ";
  out += spec.name;
  out.push_back(' ');
  appendEscapedHelp(out, spec.help);
  out += "\n# TYPE ";
  out += spec.name;
  out.push_back(' ');
  out += typeName(spec.type);
  out.push_back('\n');
  for (auto const& entry : family.snapshot()) renderSamples(out, spec, *entry.values, *entry.child);
}

}  // namespace

// --- Counter, Histogram -------------------------------------------------------------------------

void Counter::advanceTo(std::uint64_t total) {
  std::uint64_t current = value_.load(std::memory_order_relaxed);
  while (current < total &&
         !value_.compare_exchange_weak(current, total, std::memory_order_relaxed)) {
  }
}

Histogram::Histogram(std::span<double const> bounds)
    : bounds_(bounds), counts_(new std::atomic<std::uint64_t>[bounds.size() + 1]) {
  for (std::size_t i = 0; i <= bounds.size(); ++i) counts_[i].store(0, std::memory_order_relaxed);
}

void Histogram::observe(double value) {
  // First bound >= value: Prometheus buckets are "less than or equal". NaN lands in +Inf.
  std::size_t i = 0;
  while (i < bounds_.size() && !(value <= bounds_[i])) ++i;
  counts_[i].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(value, std::memory_order_relaxed);
}

std::uint64_t Histogram::count() const {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) total += bucketCount(i);
  return total;
}

// --- MetricFamily -------------------------------------------------------------------------------

template <class Child>
struct MetricFamily<Child>::Shard {
  mutable std::shared_mutex mutex;
  std::unordered_map<StoredKey, std::unique_ptr<Child>, KeyHash, KeyEqual> children;
};

template <class Child>
MetricFamily<Child>::MetricFamily(MetricSpec const& spec)
    : spec_(spec),
      id_(g_next_family_id.fetch_add(1, std::memory_order_relaxed)),
      shards_(new Shard[kShardCount]) {
  if (spec_.labelCount() == 0) get();  // a family without labels always shows its one sample
}

template <class Child>
MetricFamily<Child>::~MetricFamily() = default;

template <class Child>
Child& MetricFamily<Child>::labels(std::span<std::string_view const> values) {
  std::size_t n = spec_.labelCount();
  assert(values.size() == n && "label value count does not match the metric's label names");
  std::array<std::string_view, kMaxMetricLabels> fixed{};
  std::copy_n(values.begin(), std::min(values.size(), n), fixed.begin());
  LabelView const view(fixed.data(), n);
  std::size_t const hash = hashLabels(view);
  CachedChild& cached = cacheSlot(id_, hash);
  if (cached.family == id_ && cached.hash == hash && KeyEqual::same(*cached.values, view)) {
    return *static_cast<Child*>(cached.child);
  }
  return lookUp(hash, view);
}

template <class Child>
Child& MetricFamily<Child>::lookUp(std::size_t hash, std::span<std::string_view const> values) {
  LookupKey const key{hash, values};
  Shard& shard = shards_[(key.hash >> 32) % kShardCount];  // the map uses the low bits
  auto remember = [&](StoredKey const& stored, Child& child) -> Child& {
    cacheSlot(id_, hash) = CachedChild{id_, hash, &stored.values, &child};
    return child;
  };
  {
    std::shared_lock lock(shard.mutex);
    auto it = shard.children.find(key);
    if (it != shard.children.end()) return remember(it->first, *it->second);
  }
  std::unique_lock lock(shard.mutex);
  auto it = shard.children.find(key);
  if (it != shard.children.end()) return remember(it->first, *it->second);  // made meanwhile
  std::unique_ptr<Child> child;
  if constexpr (std::is_same_v<Child, Histogram>) {
    child = std::make_unique<Histogram>(spec_.buckets);
  } else {
    child = std::make_unique<Child>();
  }
  auto made = shard.children
                  .emplace(StoredKey{key.hash, LabelValues(key.values.begin(), key.values.end())},
                           std::move(child))
                  .first;
  return remember(made->first, *made->second);
}

template <class Child>
std::vector<typename MetricFamily<Child>::Entry> MetricFamily<Child>::snapshot() const {
  std::vector<Entry> entries;
  for (std::size_t s = 0; s < kShardCount; ++s) {
    std::shared_lock lock(shards_[s].mutex);
    for (auto const& [key, child] : shards_[s].children)
      entries.push_back(Entry{&key.values, child.get()});
  }
  std::sort(entries.begin(), entries.end(),
            [](Entry const& a, Entry const& b) { return *a.values < *b.values; });
  return entries;
}

template class MetricFamily<Counter>;
template class MetricFamily<Gauge>;
template class MetricFamily<Histogram>;

// --- MetricsRegistry ----------------------------------------------------------------------------

MetricsRegistry::MetricsRegistry()
    : MetricsRegistry(std::span<MetricSpec const>(kGatewayMetrics)) {}

MetricsRegistry::MetricsRegistry(std::span<MetricSpec const> specs)
    : specs_(specs), counters_(specs.size()), gauges_(specs.size()), histograms_(specs.size()) {
  std::unordered_set<std::string_view> names;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    MetricSpec const& spec = specs[i];
    if (!isValidMetricSpec(spec))
      throw std::invalid_argument(fmt::format("invalid metric spec '{}'", spec.name));
    if (!names.insert(spec.name).second)
      throw std::invalid_argument(fmt::format("metric '{}' declared twice", spec.name));
    switch (spec.type) {
      case MetricType::Counter:
        counters_[i] = std::make_unique<CounterFamily>(spec);
        break;
      case MetricType::Gauge:
        gauges_[i] = std::make_unique<GaugeFamily>(spec);
        break;
      case MetricType::Histogram:
        histograms_[i] = std::make_unique<HistogramFamily>(spec);
        break;
    }
  }
}

MetricsRegistry::~MetricsRegistry() = default;

CounterFamily& MetricsRegistry::counter(MetricId id) {
  auto i = static_cast<std::size_t>(id);
  assert(i < specs_.size() && counters_[i] && "not a counter");
  return *counters_[i];
}

GaugeFamily& MetricsRegistry::gauge(MetricId id) {
  auto i = static_cast<std::size_t>(id);
  assert(i < specs_.size() && gauges_[i] && "not a gauge");
  return *gauges_[i];
}

HistogramFamily& MetricsRegistry::histogram(MetricId id) {
  auto i = static_cast<std::size_t>(id);
  assert(i < specs_.size() && histograms_[i] && "not a histogram");
  return *histograms_[i];
}

std::string MetricsRegistry::renderPrometheus() const {
  std::string out;
  out.reserve(4096);
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    if (counters_[i]) renderFamily(out, *counters_[i]);
    if (gauges_[i]) renderFamily(out, *gauges_[i]);
    if (histograms_[i]) renderFamily(out, *histograms_[i]);
  }
  return out;
}

// --- Text format helpers ------------------------------------------------------------------------

void appendPrometheusLabelValue(std::string& out, std::string_view value) {
  for (char c : value) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\n':
        out += "\\n";
        break;
      default:
        out.push_back(c);
    }
  }
}

void appendPrometheusNumber(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "NaN";
  } else if (std::isinf(value)) {
    out += value > 0 ? "+Inf" : "-Inf";
  } else {
    fmt::format_to(std::back_inserter(out), "{}", value);
  }
}

}  // namespace llmux::telemetry
