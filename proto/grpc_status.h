// The one place where absl::Status meets grpc::Status (the server and the client).
#ifndef RPSUM_PROTO_GRPC_STATUS_H_
#define RPSUM_PROTO_GRPC_STATUS_H_

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace rpsum {

// Same code, same message. The canonical codes share numbers in both libraries. Thread-safe.
grpc::Status ToGrpcStatus(const absl::Status& status);

// The inverse of ToGrpcStatus, for clients and tests. Thread-safe.
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace rpsum

#endif  // RPSUM_PROTO_GRPC_STATUS_H_
