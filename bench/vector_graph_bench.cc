// The KNN engine as the server uses it (src/vector/vector_index.h over hnswlib 0.6.2, the
// parameters of vector_index.h and knn_plan.h), driven directly: building N vectors of DIM
// dimensions through a 1M x 768 graph cannot finish through the API in bounded time on a
// 2-core machine (BENCHMARKS.md, "Search: aggregations and KNN"). Reports, one JSON line each:
//   build: vectors inserted, seconds, vectors/s (stopped at --build-seconds: then the count
//          reached and an extrapolation to N, marked as such), graph bytes, process RSS;
//   exact: the brute-force scan per query (the cost exact ranking pays per document);
//   ann:   per ef: recall@10 against the exact answer, p50/p99 ms, q/s (one thread);
//   filtered: per selectivity (labels % m == 0): the graph with the filter walked through
//          (ef as PlanKnn picks it) against exact ranking over the filtered labels;
//   save/load: the checkpoint's seconds and bytes.
// Data: seeded; "clustered" is a mixture of 100 Gaussian clusters (closer to embeddings),
// "random" i.i.d. Gaussian (the hardest case for any graph).
//
//   g++ -O2 -std=c++20 -Isrc bench/vector_graph_bench.cc src/vector/vector_index.cc \
//       src/vector/knn_plan.cc -o /tmp/vector_graph_bench
//   nice -n 10 /tmp/vector_graph_bench N DIM QUERIES clustered|random l2|cos BUILD_SECONDS
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "vector/knn_plan.h"
#include "vector/vector_index.h"

using namespace ttlstore::vector;
using Clock = std::chrono::steady_clock;

namespace {

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

long RssMb() {
  std::ifstream f("/proc/self/statm");
  long pages = 0, rss = 0;
  f >> pages >> rss;
  return rss * 4096 / (1 << 20);
}

double Pct(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, size_t(p * double(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7) {
    std::fprintf(stderr, "usage: %s N DIM QUERIES clustered|random l2|cos BUILD_SECONDS\n", argv[0]);
    return 2;
  }
  const size_t n = std::strtoull(argv[1], nullptr, 10);
  const size_t dim = std::strtoull(argv[2], nullptr, 10);
  const size_t nq = std::strtoull(argv[3], nullptr, 10);
  const bool clustered = std::string(argv[4]) == "clustered";
  const Metric metric = std::string(argv[5]) == "cos" ? Metric::kCosine : Metric::kEuclidean;
  const double build_limit = std::atof(argv[6]);
  std::mt19937 rng(20261127);
  std::normal_distribution<float> g(0, 1);
  std::vector<float> centers(100 * dim);
  for (auto& x : centers) x = g(rng);
  auto draw = [&](float* out) {
    if (clustered) {
      const float* c = &centers[(rng() % 100) * dim];
      for (size_t i = 0; i < dim; ++i) out[i] = c[i] + 0.5f * g(rng);
    } else {
      for (size_t i = 0; i < dim; ++i) out[i] = g(rng);
    }
  };
  long rss0 = RssMb();
  std::vector<float> data(n * dim);
  for (size_t i = 0; i < n; ++i) draw(&data[i * dim]);
  long rss_data = RssMb();
  VectorIndex index(dim, metric);
  auto t0 = Clock::now();
  size_t built = 0;
  for (; built < n; ++built) {
    index.Upsert(built + 1, &data[built * dim]);
    if ((built & 255) == 0 && build_limit > 0 && Seconds(t0, Clock::now()) > build_limit) break;
  }
  double build_s = Seconds(t0, Clock::now());
  double rate = double(built) / build_s;
  std::printf("{\"phase\":\"build\",\"n\":%zu,\"dim\":%zu,\"data\":\"%s\",\"metric\":\"%s\",\"inserted\":%zu,"
              "\"seconds\":%.1f,\"vectors_per_s\":%.0f,\"complete\":%s,\"extrapolated_seconds_for_n\":%.0f,"
              "\"graph_mb\":%zu,\"rss_mb\":%ld,\"rss_data_mb\":%ld,\"rss_graph_mb\":%ld}\n",
              n, dim, argv[4], argv[5], built, build_s, rate, built == n ? "true" : "false",
              built == n ? build_s : double(n) / rate, index.MemoryBytes() >> 20, RssMb(),
              rss_data - rss0, RssMb() - rss_data);
  std::fflush(stdout);
  // Queries: drawn like the data.
  std::vector<float> qs(nq * dim);
  for (size_t i = 0; i < nq; ++i) draw(&qs[i * dim]);
  std::vector<uint64_t> labels(built);
  for (size_t i = 0; i < built; ++i) labels[i] = i + 1;
  std::vector<std::vector<uint64_t>> truth(nq);
  std::vector<double> exact_ms;
  for (size_t q = 0; q < nq; ++q) {
    auto a = Clock::now();
    for (const auto& nb : index.Exact(&qs[q * dim], 10, labels)) truth[q].push_back(nb.label);
    exact_ms.push_back(Seconds(a, Clock::now()) * 1000);
  }
  std::printf("{\"phase\":\"exact\",\"vectors\":%zu,\"p50_ms\":%.2f,\"p99_ms\":%.2f,\"us_per_vector\":%.4f}\n",
              built, Pct(exact_ms, 0.5), Pct(exact_ms, 0.99), Pct(exact_ms, 0.5) * 1000 / double(built));
  std::fflush(stdout);
  for (size_t ef : {64, 128, 256, 512}) {
    std::vector<double> ms;
    size_t found = 0;
    auto start = Clock::now();
    for (size_t q = 0; q < nq; ++q) {
      auto a = Clock::now();
      auto got = index.Search(&qs[q * dim], 10, nullptr, ef);
      ms.push_back(Seconds(a, Clock::now()) * 1000);
      for (const auto& nb : got) found += std::count(truth[q].begin(), truth[q].end(), nb.label);
    }
    double total = Seconds(start, Clock::now());
    std::printf("{\"phase\":\"ann\",\"ef\":%zu,\"recall_at_10\":%.3f,\"p50_ms\":%.2f,\"p99_ms\":%.2f,\"qps\":%.0f}\n",
                ef, double(found) / double(10 * nq), Pct(ms, 0.5), Pct(ms, 0.99), double(nq) / total);
    std::fflush(stdout);
  }
  // Filtered: every m-th label (selectivity 1/m).
  for (size_t m : {2, 10, 50}) {
    std::vector<uint64_t> allowed;
    for (uint64_t l = m; l <= built; l += m) allowed.push_back(l);
    KnnPlan plan = PlanKnn(allowed.size(), built, 10, 0);
    LabelFilter f = [m](uint64_t l) { return l % m == 0; };
    std::vector<double> gms, ems;
    size_t found = 0;
    for (size_t q = 0; q < nq; ++q) {
      auto a = Clock::now();
      auto ex = index.Exact(&qs[q * dim], 10, allowed);
      ems.push_back(Seconds(a, Clock::now()) * 1000);
      if (plan.exact) continue;
      auto b = Clock::now();
      auto got = index.Search(&qs[q * dim], 10, &f, plan.ef);
      gms.push_back(Seconds(b, Clock::now()) * 1000);
      for (const auto& nb : got) {
        for (const auto& e : ex) found += e.label == nb.label;
      }
    }
    std::printf("{\"phase\":\"filtered\",\"selectivity\":%.3f,\"matches\":%zu,\"plan\":\"%s\",\"ef\":%zu,"
                "\"recall_at_10\":%.3f,\"graph_p50_ms\":%.2f,\"graph_p99_ms\":%.2f,\"exact_p50_ms\":%.2f,"
                "\"exact_p99_ms\":%.2f}\n",
                1.0 / double(m), allowed.size(), plan.exact ? "exact" : "graph", plan.ef,
                plan.exact ? 1.0 : double(found) / double(10 * nq), Pct(gms, 0.5), Pct(gms, 0.99),
                Pct(ems, 0.5), Pct(ems, 0.99));
    std::fflush(stdout);
  }
  std::string path = "/tmp/vector_graph_bench.hnsw";
  auto a = Clock::now();
  auto st = index.Save(path);
  double save_s = Seconds(a, Clock::now());
  std::error_code ec;
  auto bytes = std::filesystem::file_size(path, ec);
  a = Clock::now();
  auto loaded = VectorIndex::Load(path, dim, metric);
  double load_s = Seconds(a, Clock::now());
  std::printf("{\"phase\":\"checkpoint\",\"saved\":%s,\"save_s\":%.1f,\"load_s\":%.1f,\"file_mb\":%llu}\n",
              st.ok() ? "true" : "false", save_s, load_s, (unsigned long long)(bytes >> 20));
  std::filesystem::remove(path, ec);
  return 0;
}
