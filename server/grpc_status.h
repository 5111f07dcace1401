// The one place where absl::Status meets grpc::Status (the server's edge).
#ifndef RPSUM_SERVER_GRPC_STATUS_H_
#define RPSUM_SERVER_GRPC_STATUS_H_

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace rpsum::server {

// Same code, same message. The canonical codes share numbers in both libraries. Thread-safe.
grpc::Status ToGrpcStatus(const absl::Status& status);

// The inverse of ToGrpcStatus, for clients and tests. Thread-safe.
absl::Status FromGrpcStatus(const grpc::Status& status);

}  // namespace rpsum::server

#endif  // RPSUM_SERVER_GRPC_STATUS_H_
