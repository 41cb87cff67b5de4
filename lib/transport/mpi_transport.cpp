#include "transport/mpi_transport.h"

#include <algorithm>
#include <climits>
#include <vector>

namespace hetccl {

size_t messagePieceCount(size_t bytes, size_t maxMessageBytes) {
  if (bytes == 0) return 1;
  return (bytes + maxMessageBytes - 1) / maxMessageBytes;
}

namespace {

std::string mpiErrorText(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(code, text, &length) != MPI_SUCCESS) return "unknown MPI error";
  return std::string(text, length);
}

class MpiTransfer : public Transfer {
 public:
  std::vector<MPI_Request> requests;
  std::vector<MPI_Status> statuses;
  Status test(bool* done) override {
    int flag = 0;
    statuses.resize(requests.size());
    int rc = MPI_Testall(static_cast<int>(requests.size()), requests.data(), &flag, statuses.data());
    if (rc == MPI_ERR_IN_STATUS) {
      // Name the piece that failed (e.g. MPI_ERR_TRUNCATE: the peer sent more than expected).
      for (const MPI_Status& status : statuses)
        if (status.MPI_ERROR != MPI_SUCCESS && status.MPI_ERROR != MPI_ERR_PENDING)
          return HETCCL_STATUS(Code::SystemError, "transfer with rank %d (tag %d) failed: %s", status.MPI_SOURCE,
                               status.MPI_TAG, mpiErrorText(status.MPI_ERROR).c_str());
    }
    if (rc != MPI_SUCCESS) return HETCCL_STATUS(Code::SystemError, "MPI_Testall failed: %s", mpiErrorText(rc).c_str());
    *done = flag != 0;
    return Status::ok();
  }
  ~MpiTransfer() override {
    // A transfer dropped before completion (an aborted operation) must not leak requests.
    for (MPI_Request& request : requests) {
      if (request == MPI_REQUEST_NULL) continue;
      MPI_Cancel(&request);
      MPI_Request_free(&request);
    }
  }
};

}  // namespace

MpiTransport::MpiTransport(MPI_Comm comm, size_t maxMessageBytes)
    : comm_(comm), maxMessageBytes_(std::clamp<size_t>(maxMessageBytes, 1, INT_MAX)) {
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
  int* tagUpperBound = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm_, MPI_TAG_UB, &tagUpperBound, &found);
  if (found && tagUpperBound) maxTag_ = *tagUpperBound;
}

// Posts one message as its pieces, in order, on the same tag (see the header).
Status MpiTransport::postPieces(bool isSend, char* buffer, size_t bytes, int peer, int tag,
                                std::unique_ptr<Transfer>* transfer) {
  auto result = std::make_unique<MpiTransfer>();
  size_t pieces = messagePieceCount(bytes, maxMessageBytes_);
  result->requests.resize(pieces, MPI_REQUEST_NULL);
  for (size_t i = 0; i < pieces; ++i) {
    size_t offset = i * maxMessageBytes_;
    int length = static_cast<int>(std::min(maxMessageBytes_, bytes - offset));
    int rc = isSend ? MPI_Isend(buffer + offset, length, MPI_BYTE, peer, tag, comm_, &result->requests[i])
                    : MPI_Irecv(buffer + offset, length, MPI_BYTE, peer, tag, comm_, &result->requests[i]);
    if (rc != MPI_SUCCESS)
      return HETCCL_STATUS(Code::SystemError, "%s of %d bytes %s rank %d failed: %s",
                           isSend ? "MPI_Isend" : "MPI_Irecv", length, isSend ? "to" : "from", peer,
                           mpiErrorText(rc).c_str());
  }
  *transfer = std::move(result);
  return Status::ok();
}

Status MpiTransport::postSend(const void* buffer, size_t bytes, int peer, int tag,
                              std::unique_ptr<Transfer>* transfer) {
  // MPI_Isend only reads the buffer; one posting routine serves both directions.
  return postPieces(true, const_cast<char*>(static_cast<const char*>(buffer)), bytes, peer, tag, transfer);
}

Status MpiTransport::postRecv(void* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer) {
  return postPieces(false, static_cast<char*>(buffer), bytes, peer, tag, transfer);
}

}  // namespace hetccl
