// hetccl-accuracy: how far a half/bfloat16 sum or average lands from the exact one, rounded at
// every hop (native) against accumulated in float32 and rounded once (HETCCL_ACCUMULATE), per
// rank count and algorithm.  The ranks are threads of this process, so it reaches the hundreds
// of ranks a rounding error grows with, on any host; the error does not depend on timing, so
// threads measure it as well as processes would.  Times are hetccl-sim's business.
#include <cstdio>
#include <string>

#include "accuracy/accuracy_options.h"
#include "accuracy/error_run.h"

namespace {

using hetccl_accuracy::ErrorRun;

std::string errorCell(const ErrorRun& run) {
  if (!run.failure.empty()) return "failed";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f", run.maxUlp);
  return text;
}

// The first line of what failed, for the notes under the table.
std::string firstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

int main(int argc, char** argv) {
  hetccl_accuracy::AccuracyOptions o;
  std::string error;
  if (!hetccl_accuracy::parseAccuracyOptions(argc, argv, &o, &error)) {
    std::fprintf(stderr, "hetccl-accuracy: %s\n%s", error.c_str(), hetccl_accuracy::accuracyUsage().c_str());
    return 2;
  }
  if (o.help) {
    std::printf("%s", hetccl_accuracy::accuracyUsage().c_str());
    return 0;
  }
  std::printf(
      "# hetccl-accuracy: %s, %s, %s, %zu elements; maxulp: the largest error of any element on any\n"
      "# rank against the exact result; differing: ranks whose all-reduce bits differ from rank 0's,\n"
      "# native / float32.  Exit status 1 if a job failed, or float32 accumulation was more than\n"
      "# one rounding (0.5 ulp) off or left ranks with different bits: what HETCCL_ACCUMULATE promises.\n",
      hetccl_perf::collectiveName(o.collective), hetccl_perf::dataTypeName(o.type), hetccl_perf::redOpName(o.op),
      o.count);
  std::printf("| ranks | layout | algo | native: ran | native maxulp | float32: ran | float32 maxulp | differing |\n");
  std::printf("| ---: | --- | --- | --- | ---: | --- | ---: | ---: |\n");
  std::string notes;
  bool anyFailed = false;
  for (int nranks : o.rankCounts) {
    const std::string layout = hetccl_accuracy::setEmulatedLayout(nranks, o.nodeRanks);
    for (const std::string& algorithm : o.algorithms) {
      const ErrorRun native = hetccl_accuracy::measureError(o, nranks, algorithm, "native");
      const ErrorRun wide = hetccl_accuracy::measureError(o, nranks, algorithm, "float32");
      const auto note = [&](const char* mode, const std::string& what) {
        anyFailed = true;
        notes += "# " + std::to_string(nranks) + " ranks, " + algorithm + ", " + mode + ": " + what + "\n";
      };
      if (!native.failure.empty()) note("native", firstLine(native.failure));
      if (!wide.failure.empty()) note("float32", firstLine(wide.failure));
      if (wide.failure.empty() && (wide.maxUlp > 0.5 || wide.ranksDiffering > 0))
        note("float32", "more than one rounding off, or ranks with different bits");
      std::printf("| %d | %s | %s | %s | %s | %s | %s | %d / %d |\n", nranks, layout.c_str(), algorithm.c_str(),
                  native.ran.c_str(), errorCell(native).c_str(), wide.ran.c_str(), errorCell(wide).c_str(),
                  native.ranksDiffering, wide.ranksDiffering);
      std::fflush(stdout);
    }
  }
  std::printf("%s", notes.c_str());
  return anyFailed ? 1 : 0;
}
