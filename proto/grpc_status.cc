#include "proto/grpc_status.h"

#include <string>

namespace rpsum {

grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  const int code = static_cast<int>(status.code());
  // Codes outside gRPC's canonical range (0..16) cannot cross the wire as themselves.
  const grpc::StatusCode grpc_code =
      code >= 1 && code <= 16 ? static_cast<grpc::StatusCode>(code) : grpc::StatusCode::UNKNOWN;
  const std::string message(status.message());
  return {grpc_code, message};
}

absl::Status FromGrpcStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  const int code = static_cast<int>(status.error_code());
  const absl::StatusCode absl_code =
      code >= 1 && code <= 16 ? static_cast<absl::StatusCode>(code) : absl::StatusCode::kUnknown;
  return absl::Status(absl_code, status.error_message());
}

}  // namespace rpsum
