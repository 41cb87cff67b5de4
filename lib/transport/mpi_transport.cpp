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

// A posted send or receive fails only when its peer or the network does (hetccl checks the
// arguments before posting them): Code::PeerLost, a remote error to the caller.  Truncation is
// the exception, a peer sending more than was asked: the two ranks' calls disagree.
Code transferFailure(int mpiError) {
  int errorClass = mpiError;
  if (MPI_Error_class(mpiError, &errorClass) != MPI_SUCCESS) errorClass = mpiError;
  return errorClass == MPI_ERR_TRUNCATE ? Code::SystemError : Code::PeerLost;
}

// One message's requests: almost always a single piece, held inline (a small all-reduce posts
// two transfers per call, and their allocations showed in its profile); a split message's
// pieces are in `more`.
class MpiTransfer : public Transfer {
 public:
  MpiTransfer(size_t pieces, int peer, int tag)
      : peer_(peer), tag_(tag), more(pieces > 1 ? pieces - 1 : 0, MPI_REQUEST_NULL) {}
  MPI_Request& request(size_t i) { return i == 0 ? first : more[i - 1]; }
  bool complete() const {
    return first == MPI_REQUEST_NULL &&
           std::all_of(more.begin(), more.end(), [](MPI_Request r) { return r == MPI_REQUEST_NULL; });
  }
  // For a new message, once complete.
  void reuse(size_t pieces, int peer, int tag) {
    peer_ = peer;
    tag_ = tag;
    more.assign(pieces > 1 ? pieces - 1 : 0, MPI_REQUEST_NULL);
  }
  size_t pieces() const { return more.size() + 1; }

  Status test(bool* done) override {
    // A request already completed elsewhere (waitForAny) is MPI_REQUEST_NULL.  Not handed to
    // MPI_Test: SimGrid's SMPI leaves the flag unset for a null request.
    if (complete()) {
      *done = true;
      return Status::ok();
    }
    int flag = 0;
    if (more.empty()) {
      const int rc = MPI_Test(&first, &flag, MPI_STATUS_IGNORE);
      if (rc != MPI_SUCCESS)
        return HETCCL_STATUS(transferFailure(rc), "transfer with rank %d (tag %d) failed: %s", peer_, tag_,
                             mpiErrorText(rc).c_str());
      *done = flag != 0;
      return Status::ok();
    }
    std::vector<MPI_Request> all{first};
    all.insert(all.end(), more.begin(), more.end());
    std::vector<MPI_Status> statuses(all.size());
    const int rc = MPI_Testall(static_cast<int>(all.size()), all.data(), &flag, statuses.data());
    first = all[0];
    std::copy(all.begin() + 1, all.end(), more.begin());
    if (rc == MPI_ERR_IN_STATUS) {
      // Name the piece that failed (e.g. MPI_ERR_TRUNCATE: the peer sent more than expected).
      for (const MPI_Status& status : statuses)
        if (status.MPI_ERROR != MPI_SUCCESS && status.MPI_ERROR != MPI_ERR_PENDING)
          return HETCCL_STATUS(transferFailure(status.MPI_ERROR), "transfer with rank %d (tag %d) failed: %s",
                               status.MPI_SOURCE, status.MPI_TAG, mpiErrorText(status.MPI_ERROR).c_str());
    }
    if (rc != MPI_SUCCESS)
      return HETCCL_STATUS(transferFailure(rc), "MPI_Testall failed: %s", mpiErrorText(rc).c_str());
    *done = flag != 0;
    return Status::ok();
  }
  bool withdraw() override {
    bool stopped = true;
    for (size_t i = 0; i <= more.size(); ++i) {
      MPI_Request& pending = request(i);
      if (pending == MPI_REQUEST_NULL) continue;
      MPI_Cancel(&pending);
      int flag = 0;
      MPI_Test(&pending, &flag, MPI_STATUS_IGNORE);  // cancelled or completed: the request is freed
      if (!flag) stopped = false;
    }
    return stopped;
  }
  ~MpiTransfer() override {
    // A transfer dropped before completion (an aborted operation) must not leak requests:
    // what withdraw() could not stop, MPI finishes on its own.
    (void)withdraw();
    for (size_t i = 0; i <= more.size(); ++i)
      if (request(i) != MPI_REQUEST_NULL) MPI_Request_free(&request(i));
  }

 private:
  int peer_, tag_;  // for messages
  MPI_Request first = MPI_REQUEST_NULL;
  std::vector<MPI_Request> more;
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
  const size_t pieces = messagePieceCount(bytes, maxMessageBytes_);
  // A completed transfer handed back is posted again (the executor keeps its slots' transfers:
  // a small all-reduce posts two per call, and their allocations showed in its profile).
  auto* reused = dynamic_cast<MpiTransfer*>(transfer->get());
  if (reused && !reused->complete()) reused = nullptr;
  std::unique_ptr<MpiTransfer> fresh;
  if (reused)
    reused->reuse(pieces, peer, tag);
  else
    fresh = std::make_unique<MpiTransfer>(pieces, peer, tag);
  MpiTransfer* result = reused ? reused : fresh.get();
  for (size_t i = 0; i < pieces; ++i) {
    size_t offset = i * maxMessageBytes_;
    int length = static_cast<int>(std::min(maxMessageBytes_, bytes - offset));
    int rc = isSend ? MPI_Isend(buffer + offset, length, MPI_BYTE, peer, tag, comm_, &result->request(i))
                    : MPI_Irecv(buffer + offset, length, MPI_BYTE, peer, tag, comm_, &result->request(i));
    if (rc != MPI_SUCCESS)
      return HETCCL_STATUS(transferFailure(rc), "%s of %d bytes %s rank %d failed: %s",
                           isSend ? "MPI_Isend" : "MPI_Irecv", length, isSend ? "to" : "from", peer,
                           mpiErrorText(rc).c_str());
  }
  if (fresh) *transfer = std::move(fresh);
  return Status::ok();
}

Status MpiTransport::waitForAny(Transfer* const* transfers, size_t count, bool* blocked) {
  *blocked = false;
  // MPI_Waitany takes one array: the pending handles are copied out, and the one it completes
  // (and frees: MPI_REQUEST_NULL) is written back to its transfer, whose next test() sees it.
  std::vector<MPI_Request*> owners;
  for (size_t t = 0; t < count; ++t) {
    auto* mpi = dynamic_cast<MpiTransfer*>(transfers[t]);
    if (mpi == nullptr) return Status::ok();  // not ours: the caller polls
    for (size_t i = 0; i < mpi->pieces(); ++i)
      if (mpi->request(i) != MPI_REQUEST_NULL) owners.push_back(&mpi->request(i));
  }
  *blocked = true;
  if (owners.empty()) return Status::ok();  // all complete already: the next test says so
  std::vector<MPI_Request> handles(owners.size());
  for (size_t i = 0; i < owners.size(); ++i) handles[i] = *owners[i];
  int index = MPI_UNDEFINED;
  const int rc = MPI_Waitany(static_cast<int>(handles.size()), handles.data(), &index, MPI_STATUS_IGNORE);
  if (index != MPI_UNDEFINED) *owners[static_cast<size_t>(index)] = handles[static_cast<size_t>(index)];
  if (rc != MPI_SUCCESS) return HETCCL_STATUS(transferFailure(rc), "MPI_Waitany failed: %s", mpiErrorText(rc).c_str());
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
