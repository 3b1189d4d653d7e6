// The measurement behind the choice of the vector engine (docs/vector-engine.md): hnswlib 0.6.2
// (Debian's libhnswlib-dev, header-only) against Faiss 1.7.3 (libfaiss-dev: IndexHNSWFlat and
// IndexIVFFlat) on the same generated data, single-threaded (the server builds an index on one
// background thread): build rate, recall@10 against an exact scan, p50/p99 query latency, q/s
// and the resident memory each index adds.
//
// Not part of the build (Faiss is not a dependency of ttlstore); compiled by hand:
//   g++ -O2 -std=c++20 -fopenmp [-mavx2 -mfma] bench/vector_spike.cc -o /tmp/vector_spike \
//       -lfaiss -lblas -llapack
//   /tmp/vector_spike N DIM QUERIES random|clustered l2|ip|cos ENGINES...
// ENGINES: hnsw, faiss-hnsw, faiss-ivf (any subset).
#include <faiss/IndexFlat.h>
#include <faiss/IndexHNSW.h>
#include <faiss/IndexIVFFlat.h>
#include <hnswlib/hnswlib.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Resident set size in bytes.
size_t Rss() {
  std::ifstream f("/proc/self/statm");
  size_t pages = 0, resident = 0;
  f >> pages >> resident;
  return resident * 4096;
}

std::vector<float> Generate(size_t n, size_t dim, bool clustered, uint32_t seed,
                            const std::vector<float>* centers) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0, 1);
  std::uniform_int_distribution<size_t> pick(0, 99);
  std::vector<float> out(n * dim);
  for (size_t i = 0; i < n; ++i) {
    const float* c = clustered ? centers->data() + pick(rng) * dim : nullptr;
    for (size_t d = 0; d < dim; ++d) {
      out[i * dim + d] = clustered ? c[d] + 0.25f * g(rng) : g(rng);
    }
  }
  return out;
}

void Normalize(std::vector<float>& v, size_t dim) {
  for (size_t i = 0; i < v.size() / dim; ++i) {
    float s = 0;
    for (size_t d = 0; d < dim; ++d) s += v[i * dim + d] * v[i * dim + d];
    s = std::sqrt(s);
    if (s > 0) for (size_t d = 0; d < dim; ++d) v[i * dim + d] /= s;
  }
}

struct Report {
  std::string engine, params;
  double recall = 0, p50_ms = 0, p99_ms = 0, qps = 0;
};

template <typename Search>
Report Measure(const std::string& engine, const std::string& params, const float* queries,
               size_t nq, size_t dim, const std::vector<std::vector<int64_t>>& truth,
               Search search) {
  std::vector<double> lat;
  size_t hits = 0;
  auto t0 = Clock::now();
  for (size_t q = 0; q < nq; ++q) {
    auto a = Clock::now();
    std::vector<int64_t> got = search(queries + q * dim);
    lat.push_back(Seconds(a, Clock::now()) * 1000);
    std::set<int64_t> want(truth[q].begin(), truth[q].end());
    for (int64_t id : got) hits += want.count(id);
  }
  double total = Seconds(t0, Clock::now());
  std::sort(lat.begin(), lat.end());
  Report r{engine, params};
  r.recall = double(hits) / double(nq * 10);
  r.p50_ms = lat[lat.size() / 2];
  r.p99_ms = lat[std::min(lat.size() - 1, size_t(lat.size() * 0.99))];
  r.qps = double(nq) / total;
  return r;
}

void Print(const Report& r) {
  std::printf("| %s | %s | %.3f | %.2f | %.2f | %.0f |\n", r.engine.c_str(), r.params.c_str(),
              r.recall, r.p50_ms, r.p99_ms, r.qps);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 7) {
    std::fprintf(stderr, "usage: %s N DIM QUERIES random|clustered l2|ip|cos ENGINES...\n",
                 argv[0]);
    return 2;
  }
  size_t n = std::stoul(argv[1]), dim = std::stoul(argv[2]), nq = std::stoul(argv[3]);
  bool clustered = std::string(argv[4]) == "clustered";
  std::string metric = argv[5];
  std::set<std::string> engines(argv + 6, argv + argc);
  omp_set_num_threads(1);

  std::vector<float> centers = Generate(100, dim, false, 7, nullptr);
  for (auto& c : centers) c *= 1.0f;
  std::vector<float> data = Generate(n, dim, clustered, 11, &centers);
  std::vector<float> queries = Generate(nq, dim, clustered, 13, &centers);
  if (metric == "cos") {
    Normalize(data, dim);
    Normalize(queries, dim);
  }
  bool ip = metric != "l2";
  std::printf("# n=%zu dim=%zu queries=%zu data=%s metric=%s\n", n, dim, nq, argv[4],
              metric.c_str());

  // Exact answers (Faiss' flat index: a plain scan).
  std::vector<std::vector<int64_t>> truth(nq);
  {
    std::unique_ptr<faiss::Index> flat;
    if (ip) flat = std::make_unique<faiss::IndexFlatIP>(dim);
    else flat = std::make_unique<faiss::IndexFlatL2>(dim);
    flat->add(n, data.data());
    std::vector<float> dist(nq * 10);
    std::vector<faiss::Index::idx_t> ids(nq * 10);
    auto t0 = Clock::now();
    flat->search(nq, queries.data(), 10, dist.data(), ids.data());
    double s = Seconds(t0, Clock::now());
    for (size_t q = 0; q < nq; ++q) truth[q].assign(ids.begin() + q * 10, ids.begin() + q * 10 + 10);
    std::printf("# exact scan: %.2f ms per query\n", s * 1000 / nq);
  }
  std::printf("| engine | parameters | recall@10 | p50 ms | p99 ms | q/s |\n|---|---|---|---|---|---|\n");

  if (engines.count("hnsw")) {
    size_t before = Rss();
    std::unique_ptr<hnswlib::SpaceInterface<float>> space;
    if (ip) space = std::make_unique<hnswlib::InnerProductSpace>(dim);
    else space = std::make_unique<hnswlib::L2Space>(dim);
    hnswlib::HierarchicalNSW<float> index(space.get(), n, 16, 200);
    auto t0 = Clock::now();
    for (size_t i = 0; i < n; ++i) index.addPoint(data.data() + i * dim, i);
    double build = Seconds(t0, Clock::now());
    std::printf("# hnswlib M=16 efC=200: build %.1f s, %.0f vectors/s, memory +%.0f MB\n", build,
                n / build, double(Rss() - before) / 1e6);
    for (size_t ef : {32, 64, 128, 256}) {
      index.setEf(ef);
      Print(Measure("hnswlib", "M=16 efC=200 ef=" + std::to_string(ef), queries.data(), nq, dim,
                    truth, [&](const float* q) {
                      auto pq = index.searchKnn(q, 10);
                      std::vector<int64_t> out;
                      while (!pq.empty()) { out.push_back(int64_t(pq.top().second)); pq.pop(); }
                      return out;
                    }));
    }
    // Save and load: the restart path.
    auto s0 = Clock::now();
    index.saveIndex("/tmp/vector_spike.hnsw");
    double save = Seconds(s0, Clock::now());
    auto l0 = Clock::now();
    hnswlib::HierarchicalNSW<float> loaded(space.get(), "/tmp/vector_spike.hnsw");
    double load = Seconds(l0, Clock::now());
    std::printf("# hnswlib save %.2f s, load %.2f s, file %.0f MB\n", save, load,
                double(std::ifstream("/tmp/vector_spike.hnsw", std::ios::ate).tellg()) / 1e6);
    std::remove("/tmp/vector_spike.hnsw");
  }
  if (engines.count("faiss-hnsw")) {
    size_t before = Rss();
    faiss::IndexHNSWFlat index(dim, 16, ip ? faiss::METRIC_INNER_PRODUCT : faiss::METRIC_L2);
    index.hnsw.efConstruction = 200;
    auto t0 = Clock::now();
    // Added in chunks as a server would (every chunk is a separate add).
    for (size_t i = 0; i < n; i += 1000) {
      index.add(std::min<size_t>(1000, n - i), data.data() + i * dim);
    }
    double build = Seconds(t0, Clock::now());
    std::printf("# faiss IndexHNSWFlat M=16 efC=200: build %.1f s, %.0f vectors/s, memory +%.0f MB\n",
                build, n / build, double(Rss() - before) / 1e6);
    for (int ef : {32, 64, 128, 256}) {
      index.hnsw.efSearch = ef;
      Print(Measure("faiss HNSWFlat", "M=16 efC=200 ef=" + std::to_string(ef), queries.data(), nq,
                    dim, truth, [&](const float* q) {
                      std::vector<float> d(10);
                      std::vector<faiss::Index::idx_t> ids(10);
                      index.search(1, q, 10, d.data(), ids.data());
                      return std::vector<int64_t>(ids.begin(), ids.end());
                    }));
    }
  }
  if (engines.count("faiss-ivf")) {
    size_t before = Rss();
    size_t nlist = std::max<size_t>(16, size_t(4 * std::sqrt(double(n))));
    faiss::IndexFlat* quantizer =
        ip ? static_cast<faiss::IndexFlat*>(new faiss::IndexFlatIP(dim))
           : static_cast<faiss::IndexFlat*>(new faiss::IndexFlatL2(dim));
    faiss::IndexIVFFlat index(quantizer, dim, nlist,
                              ip ? faiss::METRIC_INNER_PRODUCT : faiss::METRIC_L2);
    index.own_fields = true;
    auto t0 = Clock::now();
    size_t ntrain = std::min<size_t>(n, nlist * 40);
    index.train(ntrain, data.data());
    double train = Seconds(t0, Clock::now());
    for (size_t i = 0; i < n; i += 1000) {
      index.add(std::min<size_t>(1000, n - i), data.data() + i * dim);
    }
    double build = Seconds(t0, Clock::now());
    std::printf("# faiss IndexIVFFlat nlist=%zu: train %.1f s, build %.1f s total, %.0f vectors/s, "
                "memory +%.0f MB\n", nlist, train, build, n / build,
                double(Rss() - before) / 1e6);
    for (size_t nprobe : {8, 16, 32, 64}) {
      index.nprobe = nprobe;
      Print(Measure("faiss IVFFlat", "nlist=" + std::to_string(nlist) + " nprobe=" +
                        std::to_string(nprobe), queries.data(), nq, dim, truth,
                    [&](const float* q) {
                      std::vector<float> d(10);
                      std::vector<faiss::Index::idx_t> ids(10);
                      index.search(1, q, 10, d.data(), ids.data());
                      return std::vector<int64_t>(ids.begin(), ids.end());
                    }));
    }
  }
  return 0;
}
