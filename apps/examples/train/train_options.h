// hetccl-train's command line.
#pragma once

#include <cstdint>
#include <string>

namespace hetccl_train {

struct TrainOptions {
  int steps = 40;
  uint64_t batch = 256;  // global: all ranks' samples of one step together
  float learningRate = 0.1f;
  int hidden = 32;
  uint64_t seed = 1;
  std::string split = "even";  // see batch_split.h
  std::string vendor;          // this rank's vendor; "" = from the emulated layout
  // Allowed |loss - reference| / |reference| at any step; see main.cpp for the reasoning.
  double tolerance = 1e-5;
  int printEvery = 0;  // table rows; 0 = about 20 rows whatever --steps is
  bool help = false;
};

// Parses argv; returns "" or a message naming the bad argument.
std::string parseTrainOptions(int argc, char** argv, TrainOptions* options);
const char* trainUsage();

}  // namespace hetccl_train
