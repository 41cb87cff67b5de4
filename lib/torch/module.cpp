// The Python module hetccl._C: the process group class torch.distributed's backend registry
// creates (python/hetccl/torch.py registers it), and the MPI lifetime functions.
#include <pybind11/chrono.h>
#include <torch/csrc/utils/pybind.h>

#include "client/mpi_startup.h"
#include "mpi_launch.h"
#include "process_group.h"

namespace py = pybind11;

PYBIND11_MODULE(_C, module) {
  module.doc() = "hetccl's torch.distributed backend (import hetccl.torch to register it)";
  // torch's c10d bindings (our base class among them) must be registered before ours.
  py::module::import("torch.distributed");
  py::class_<hetccl_torch::HetcclProcessGroup, hetccl_torch::BackendBase,
             c10::intrusive_ptr<hetccl_torch::HetcclProcessGroup>>(module, "ProcessGroupHetccl")
      .def(py::init<const c10::intrusive_ptr<c10d::Store>&, int, int, std::chrono::milliseconds>(), py::arg("store"),
           py::arg("rank"), py::arg("size"), py::arg("timeout"), py::call_guard<py::gil_scoped_release>())
      .def("last_algorithm", &hetccl_torch::HetcclProcessGroup::lastAlgorithm,
           "hetccl's algorithm for the group's last operation (e.g. \"hier\")")
      .def("shutdown", &hetccl_torch::HetcclProcessGroup::shutdown, py::call_guard<py::gil_scoped_release>());
  module.def(
      "mpi_world",
      [] {
        int rank = 0, size = 1;
        hetccl_torch::mpiWorld(&rank, &size);
        return py::make_tuple(rank, size);
      },
      "(rank, size) in MPI_COMM_WORLD, initialising MPI (MPI_THREAD_MULTIPLE) if needed");
  module.def(
      "shutdown",
      [] {
        hetccl_torch::shutdownAllGroups();
        hetccl_client::finalizeMpiIfStartedHere();
      },
      py::call_guard<py::gil_scoped_release>(),
      "frees every group's communicator, then finalises MPI if hetccl initialised it (run at exit)");
}
