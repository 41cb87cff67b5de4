// The one collective a data-parallel trainer needs: sum a float32 buffer across ranks.  The
// buffer lives in device memory of this rank's device, as a real trainer's gradients would;
// hetccl reduces it in place, and every rank receives the same bits whatever its vendor.
#pragma once

#include <hetccl/hetccl.h>

#include <string>
#include <vector>

namespace hetccl_train {

class GradientAllReduce {
 public:
  // Collective over `comm`: creates the hetccl communicator and a device buffer of `count`
  // floats.  Throws std::runtime_error with hetccl's message on failure.
  GradientAllReduce(MPI_Comm comm, size_t count);
  ~GradientAllReduce();
  GradientAllReduce(const GradientAllReduce&) = delete;
  GradientAllReduce& operator=(const GradientAllReduce&) = delete;

  // values <- the element-wise float32 sum of every rank's values (collective).
  void sum(std::vector<float>* values);

  // The algorithm hetccl chose for the last sum ("ring", "hier", ...).
  std::string algorithm() const;

 private:
  hetcclComm_t comm_ = nullptr;
  void* device_ = nullptr;
  size_t count_ = 0;
};

}  // namespace hetccl_train
