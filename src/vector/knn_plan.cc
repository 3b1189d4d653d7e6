// PlanKnn and WidenEf (knn_plan.h).
#include "vector/knn_plan.h"

#include <algorithm>

namespace ttlstore::vector {

size_t BaseEf(size_t live, size_t k) {
  const size_t steps = std::max<size_t>(1, (live + kEfBaseVectors - 1) / kEfBaseVectors);
  return std::max(kEfBase * steps, 2 * k);
}

KnnPlan PlanKnn(size_t matches, size_t live, size_t k, size_t exact_up_to) {
  KnnPlan plan;
  if (live == 0 || k == 0 || matches <= exact_up_to) return plan;
  size_t base = BaseEf(live, k);
  // ef = base * live / matches, rounded up; matches > live (documents the graph has not seen
  // yet) counts as an unfiltered search.
  size_t m = std::min(matches, live);
  size_t ef = (base * live + m - 1) / m;
  if (ef > kEfMax || ef >= live) return plan;
  plan.exact = false;
  plan.ef = ef;
  return plan;
}

size_t WidenEf(size_t ef, size_t live) {
  size_t next = ef * 4;
  if (next > kEfMax || next >= live) return 0;
  return next;
}

}  // namespace ttlstore::vector
