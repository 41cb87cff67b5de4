#include "perf/collective_shape.h"

namespace hetccl_perf {

CollectiveShape collectiveShape(Collective c, size_t requestedBytes, size_t elementSize, int nranks, int rank) {
  CollectiveShape s;
  const size_t n = static_cast<size_t>(nranks);
  const size_t r = static_cast<size_t>(rank);
  const size_t totalElements = requestedBytes / elementSize;
  switch (c) {
    case Collective::AllReduce:
    case Collective::Broadcast:
    case Collective::Reduce:
    case Collective::SendRecv:
      s.count = totalElements;
      s.sendElements = s.recvElements = s.inPlaceElements = s.count;
      break;
    case Collective::AllGather:
      s.count = totalElements / n;
      s.sendElements = s.count;
      s.recvElements = s.inPlaceElements = s.count * n;
      s.inPlaceSendOffset = r * s.count;  // sendbuff == recvbuff + rank * sendcount
      break;
    case Collective::ReduceScatter:
      s.count = totalElements / n;
      s.sendElements = s.inPlaceElements = s.count * n;
      s.recvElements = s.count;
      s.inPlaceRecvOffset = r * s.count;  // recvbuff == sendbuff + rank * recvcount
      break;
    case Collective::AlltoAll:
      s.count = totalElements / n;
      s.sendElements = s.recvElements = s.inPlaceElements = s.count * n;
      break;
  }
  s.bytes = (s.sendElements > s.recvElements ? s.sendElements : s.recvElements) * elementSize;
  return s;
}

double busBandwidthFactor(Collective c, int nranks) {
  const double n = nranks;
  switch (c) {
    case Collective::AllReduce: return 2.0 * (n - 1) / n;
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::AlltoAll: return (n - 1) / n;
    case Collective::Broadcast:
    case Collective::Reduce:
    case Collective::SendRecv: return 1.0;
  }
  return 1.0;
}

const char* busBandwidthFormula(Collective c) {
  switch (c) {
    case Collective::AllReduce: return "2(n-1)/n";
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::AlltoAll: return "(n-1)/n";
    default: return "1";
  }
}

}  // namespace hetccl_perf
