#include "model/torch/safetensors.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace rpsum::net {
namespace {

using nlohmann::json;

struct DtypeInfo {
  const char* name;
  at::ScalarType type;
  int64_t size;
};
constexpr DtypeInfo kDtypes[] = {
    {"F32", at::kFloat, 4}, {"F64", at::kDouble, 8}, {"I64", at::kLong, 8}, {"BOOL", at::kBool, 1}};

const DtypeInfo* ByType(at::ScalarType t) {
  for (const auto& d : kDtypes) {
    if (d.type == t) return &d;
  }
  return nullptr;
}
const DtypeInfo* ByName(const std::string& n) {
  for (const auto& d : kDtypes) {
    if (n == d.name) return &d;
  }
  return nullptr;
}

}  // namespace

absl::Status WriteSafetensors(const std::string& path, const NamedTensors& tensors,
                              const std::map<std::string, std::string>& metadata) {
  try {
    json header = json::object();
    if (!metadata.empty()) header["__metadata__"] = metadata;
    std::vector<at::Tensor> cpu;
    int64_t offset = 0;
    for (const auto& [name, t] : tensors) {
      const DtypeInfo* d = ByType(t.scalar_type());
      if (d == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("safetensors: tensor '", name, "' has an unsupported dtype"));
      }
      cpu.push_back(t.detach().to(at::kCPU).contiguous());
      const int64_t bytes = t.numel() * d->size;
      header[name] = {{"dtype", d->name},
                      {"shape", t.sizes().vec()},
                      {"data_offsets", {offset, offset + bytes}}};
      offset += bytes;
    }
    std::string h = header.dump();
    h.append((8 - h.size() % 8) % 8, ' ');  // align the data to 8 bytes
    const std::string tmp = path + ".tmp";
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) {
        return absl::UnavailableError(
            absl::StrCat("cannot write ", tmp, ": ", std::strerror(errno)));
      }
      uint64_t n = h.size();
      unsigned char le[8];
      for (int i = 0; i < 8; ++i) le[i] = static_cast<unsigned char>(n >> (8 * i));
      out.write(reinterpret_cast<const char*>(le), 8);
      out.write(h.data(), static_cast<std::streamsize>(h.size()));
      for (const at::Tensor& t : cpu) {
        out.write(static_cast<const char*>(t.data_ptr()),
                  static_cast<std::streamsize>(t.numel() * t.element_size()));
      }
      if (!out.flush()) return absl::UnavailableError(absl::StrCat("write failed: ", tmp));
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
      return absl::UnavailableError(absl::StrCat("cannot rename ", tmp, " to ", path));
    }
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("safetensors: ", e.what()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::map<std::string, at::Tensor>> ReadSafetensors(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string data = buffer.str();
  auto bad = [&](const std::string& why) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a valid safetensors file: ", why));
  };
  if (data.size() < 8) return bad("shorter than its 8-byte header size");
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | static_cast<unsigned char>(data[i]);
  if (n > data.size() - 8 || n > (100u << 20)) {
    return bad(absl::StrCat("header size ", n, " exceeds the file (", data.size(), " bytes)"));
  }
  const size_t base = 8 + n;
  const size_t payload = data.size() - base;
  std::map<std::string, at::Tensor> out;
  try {
    const json header = json::parse(data.substr(8, n));
    if (!header.is_object()) return bad("header is not a JSON object");
    for (const auto& [name, spec] : header.items()) {
      if (name == "__metadata__") continue;
      const DtypeInfo* d = ByName(spec.at("dtype").get<std::string>());
      if (d == nullptr) return bad(absl::StrCat("tensor '", name, "' has an unsupported dtype"));
      const auto shape = spec.at("shape").get<std::vector<int64_t>>();
      const auto offsets = spec.at("data_offsets").get<std::vector<uint64_t>>();
      if (offsets.size() != 2 || offsets[0] > offsets[1] || offsets[1] > payload) {
        return bad(absl::StrCat("tensor '", name, "' has offsets outside the data"));
      }
      uint64_t numel = 1;
      for (int64_t s : shape) {
        if (s < 0) return bad(absl::StrCat("tensor '", name, "' has a negative dimension"));
        numel *= static_cast<uint64_t>(s);
      }
      if (numel * d->size != offsets[1] - offsets[0]) {
        return bad(absl::StrCat("tensor '", name, "' has ", offsets[1] - offsets[0],
                                " bytes for its shape, expected ", numel * d->size));
      }
      at::Tensor t = at::empty(shape, at::TensorOptions().dtype(d->type));
      if (numel > 0) std::memcpy(t.data_ptr(), data.data() + base + offsets[0], numel * d->size);
      out.emplace(name, std::move(t));
    }
  } catch (const std::exception& e) {
    return bad(e.what());
  }
  return out;
}

}  // namespace rpsum::net
