#include "cli/progress_bar.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace ttlstore::cli {

void ProgressBar::Update(int64_t done) {
  auto now = std::chrono::steady_clock::now();
  if (done < total_ && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  constexpr int kWidth = 30;
  int64_t shown_total = std::max<int64_t>(total_, done);
  int percent = shown_total == 0 ? 100 : static_cast<int>(done * 100 / shown_total);
  int filled = percent * kWidth / 100;
  std::fprintf(stderr, "\r%s [%s%s] %3d%%  %lld/%lld items", verb_,
               std::string(filled, '#').c_str(), std::string(kWidth - filled, '.').c_str(),
               percent, static_cast<long long>(done), static_cast<long long>(shown_total));
  std::fflush(stderr);
}

void ProgressBar::Done(int64_t done) {
  last_ = {};
  Update(done);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::fprintf(stderr, "\n%s %lld items in %.2f s (%.0f items/s)\n", verb_,
               static_cast<long long>(done), seconds, seconds > 0 ? done / seconds : 0.0);
}

}  // namespace ttlstore::cli
