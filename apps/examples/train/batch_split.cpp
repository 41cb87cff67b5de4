#include "batch_split.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "base/numbers.h"
#include "base/quantities.h"

namespace hetccl_train {

namespace {

using hetccl::splitText;

bool parseWeight(const std::string& text, double* weight) { return hetccl::parseReal(text, weight) && *weight >= 0; }

std::vector<std::string> vendorsInOrder(const std::vector<std::string>& vendorOfRank) {
  std::vector<std::string> order;
  for (const std::string& v : vendorOfRank)
    if (std::find(order.begin(), order.end(), v) == order.end()) order.push_back(v);
  return order;
}

std::string joined(const std::vector<std::string>& words) {
  std::string s;
  for (const std::string& w : words) s += (s.empty() ? "" : ",") + w;
  return s;
}

std::string byVendorName(const std::string& spec, const std::vector<std::string>& vendorOfRank,
                         std::vector<double>* weights) {
  std::map<std::string, double> weightOf;
  for (const std::string& entry : splitText(spec, ',')) {
    const size_t eq = entry.find('=');
    double w = 0;
    if (eq == std::string::npos || eq == 0 || !parseWeight(entry.substr(eq + 1), &w))
      return "--split " + spec + ": bad entry '" + entry + "' (expected VENDOR=WEIGHT)";
    weightOf[entry.substr(0, eq)] = w;
  }
  for (const std::string& v : vendorOfRank) {
    auto it = weightOf.find(v);
    if (it == weightOf.end())
      return "--split " + spec + ": no weight for vendor '" + v +
             "' (the job's vendors: " + joined(vendorsInOrder(vendorOfRank)) + ")";
    weights->push_back(it->second);
  }
  return "";
}

std::string proportional(const std::string& spec, const std::string& list, const std::vector<std::string>& vendorOfRank,
                         std::vector<double>* weights) {
  std::vector<double> given;
  for (const std::string& entry : splitText(list, ',')) {
    double w = 0;
    if (!parseWeight(entry, &w)) return "--split " + spec + ": bad weight '" + entry + "'";
    given.push_back(w);
  }
  const std::vector<std::string> vendors = vendorsInOrder(vendorOfRank);
  if (given.size() == vendorOfRank.size()) {
    *weights = given;
    return "";
  }
  // When both lengths match (every rank its own vendor) the two readings agree.
  if (given.size() == vendors.size()) {
    for (const std::string& v : vendorOfRank)
      weights->push_back(given[static_cast<size_t>(std::find(vendors.begin(), vendors.end(), v) - vendors.begin())]);
    return "";
  }
  return "--split " + spec + ": " + std::to_string(given.size()) + " weights, but the job has " +
         std::to_string(vendorOfRank.size()) + " ranks and " + std::to_string(vendors.size()) + " vendors (" +
         joined(vendors) + ")";
}

}  // namespace

std::string splitWeights(const std::string& spec, const std::vector<std::string>& vendorOfRank,
                         std::vector<double>* weights) {
  weights->clear();
  std::string error;
  const std::string prefix = "proportional:";
  if (spec == "even") {
    weights->assign(vendorOfRank.size(), 1.0);
  } else if (spec.compare(0, prefix.size(), prefix) == 0) {
    error = proportional(spec, spec.substr(prefix.size()), vendorOfRank, weights);
  } else if (spec.find('=') != std::string::npos) {
    error = byVendorName(spec, vendorOfRank, weights);
  } else {
    error = "--split " + spec + ": expected even, proportional:W,W,... or VENDOR=W,VENDOR=W";
  }
  if (error.empty() && std::accumulate(weights->begin(), weights->end(), 0.0) <= 0)
    error = "--split " + spec + ": the weights must not all be zero";
  return error;
}

std::vector<uint64_t> divideBatch(uint64_t batch, const std::vector<double>& weights) {
  const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
  std::vector<uint64_t> counts(weights.size());
  std::vector<double> remainder(weights.size());
  uint64_t assigned = 0;
  for (size_t r = 0; r < weights.size(); ++r) {
    const double exact = static_cast<double>(batch) * weights[r] / total;
    counts[r] = static_cast<uint64_t>(std::floor(exact));
    remainder[r] = exact - std::floor(exact);
    assigned += counts[r];
  }
  std::vector<size_t> order(weights.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return remainder[a] > remainder[b]; });
  for (size_t i = 0; assigned < batch; i = (i + 1) % order.size(), ++assigned) ++counts[order[i]];
  return counts;
}

}  // namespace hetccl_train
