// The one place that tells PyTorch 1.x from 2.x.  A third-party backend subclasses
// c10d::ProcessGroup in 1.x and c10d::Backend in 2.x (where ProcessGroup became a dispatcher
// over backends).  The choice is made by TORCH_VERSION_MAJOR, not by looking for Backend.hpp:
// Debian's 1.13 ships a Backend.hpp skeleton that is not yet the base class.
#pragma once

#include <torch/version.h>

#if TORCH_VERSION_MAJOR >= 2
#include <torch/csrc/distributed/c10d/Backend.hpp>
#else
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#endif
#include <torch/csrc/distributed/c10d/Store.hpp>
#include <torch/csrc/distributed/c10d/Types.hpp>
#include <torch/csrc/distributed/c10d/Work.hpp>

namespace hetccl_torch {

#if TORCH_VERSION_MAJOR >= 2
using BackendBase = c10d::Backend;
#else
using BackendBase = c10d::ProcessGroup;
#endif

}  // namespace hetccl_torch
