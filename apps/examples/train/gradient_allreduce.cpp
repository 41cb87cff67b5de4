#include "gradient_allreduce.h"

#include <stdexcept>

namespace hetccl_train {

namespace {

void check(hetcclResult_t result, const char* call, hetcclComm_t comm) {
  if (result == hetcclSuccess) return;
  throw std::runtime_error(std::string(call) + " failed: " + hetcclGetErrorString(result) + ": " +
                           hetcclGetLastError(comm));
}

}  // namespace

GradientAllReduce::GradientAllReduce(MPI_Comm comm, size_t count) : count_(count) {
  check(hetcclCommInitMPI(&comm_, comm, nullptr), "hetcclCommInitMPI", nullptr);
  const hetcclResult_t allocated = hetcclMemAlloc(&device_, count * sizeof(float));
  if (allocated != hetcclSuccess) {
    hetcclCommDestroy(comm_);
    check(allocated, "hetcclMemAlloc", nullptr);
  }
}

GradientAllReduce::~GradientAllReduce() {
  hetcclMemFree(device_);
  hetcclCommDestroy(comm_);
}

void GradientAllReduce::sum(std::vector<float>* values) {
  if (values->size() != count_) throw std::logic_error("GradientAllReduce::sum: wrong buffer size");
  const size_t bytes = count_ * sizeof(float);
  check(hetcclMemcpyToDevice(device_, values->data(), bytes), "hetcclMemcpyToDevice", comm_);
  // In place, on the default stream: the call returns when the sum is complete.
  check(hetcclAllReduce(device_, device_, count_, hetcclFloat32, hetcclSum, comm_, nullptr), "hetcclAllReduce", comm_);
  check(hetcclMemcpyFromDevice(values->data(), device_, bytes), "hetcclMemcpyFromDevice", comm_);
}

std::string GradientAllReduce::algorithm() const {
  const char* name = "?";
  hetcclCommGetAlgorithm(comm_, &name);
  return name;
}

}  // namespace hetccl_train
