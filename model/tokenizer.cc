// Loads the SentencePiece plugin (see spm_plugin.cc for why it is a separate module).
#include "model/tokenizer.h"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <mutex>

namespace rpsum::model {
namespace {

using LoadFn = Tokenizer* (*)(const std::string*, const std::string*, std::string*);
using TrainFn = bool (*)(const TokenizerTrainOptions*, std::string*);

struct Plugin {
  LoadFn load = nullptr;
  TrainFn train = nullptr;
  std::string error;
};

std::string ExecutableDir() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return ".";
  std::string path(buf, static_cast<size_t>(n));
  return path.substr(0, path.find_last_of('/'));
}

const Plugin& GetPlugin() {
  static const Plugin* plugin = [] {
    auto* p = new Plugin();
    std::vector<std::string> candidates;
    if (const char* env = std::getenv("RPSUM_SPM_PLUGIN")) candidates.push_back(env);
    const std::string exe = ExecutableDir();
    candidates.push_back(exe + "/librpsum_spm.so");
    candidates.push_back(exe + "/../lib/rpsum/librpsum_spm.so");
    candidates.push_back(RPSUM_SPM_PLUGIN_BUILD_PATH);
#ifdef RPSUM_SPM_NO_DEEPBIND
    const int flags = RTLD_NOW | RTLD_LOCAL;  // sanitizers refuse RTLD_DEEPBIND
#else
    const int flags = RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND;
#endif
    void* handle = nullptr;
    std::string tried;
    for (const std::string& c : candidates) {
      if (access(c.c_str(), R_OK) != 0) {
        tried += " " + c;
        continue;
      }
      handle = dlopen(c.c_str(), flags);
      if (handle != nullptr) break;
      tried += " " + c + " (" + dlerror() + ")";
    }
    if (handle == nullptr) {
      p->error = "cannot load the SentencePiece plugin librpsum_spm.so; tried:" + tried +
                 " (set RPSUM_SPM_PLUGIN to its path)";
      return p;
    }
    p->load = reinterpret_cast<LoadFn>(dlsym(handle, "RpsumSpmLoad"));
    p->train = reinterpret_cast<TrainFn>(dlsym(handle, "RpsumSpmTrain"));
    if (p->load == nullptr || p->train == nullptr) {
      p->error = "librpsum_spm.so lacks its entry points";
    }
    return p;
  }();
  return *plugin;
}

}  // namespace

std::unique_ptr<Tokenizer> Tokenizer::Load(const std::string& path, std::string* error) {
  const Plugin& p = GetPlugin();
  if (p.load == nullptr) {
    *error = p.error;
    return nullptr;
  }
  return std::unique_ptr<Tokenizer>(p.load(&path, nullptr, error));
}

std::unique_ptr<Tokenizer> Tokenizer::FromBytes(const std::string& bytes, std::string* error) {
  const Plugin& p = GetPlugin();
  if (p.load == nullptr) {
    *error = p.error;
    return nullptr;
  }
  return std::unique_ptr<Tokenizer>(p.load(nullptr, &bytes, error));
}

bool TrainTokenizer(const TokenizerTrainOptions& options, std::string* error) {
  const Plugin& p = GetPlugin();
  if (p.train == nullptr) {
    *error = p.error;
    return false;
  }
  return p.train(&options, error);
}

}  // namespace rpsum::model
