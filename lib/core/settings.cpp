#include "core/settings.h"

#include "base/byte_size.h"

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>

namespace hetccl {

const char* availableAlgorithms() { return "auto, ring, hier, torus, small, native"; }

TunerSettings tunerSettings(const Settings& settings) {
  TunerSettings tuning;
  Algorithm forced;
  if (settings.algorithm != "auto" && parseAlgorithm(settings.algorithm, &forced)) tuning.forced = forced;
  tuning.forcedBy = settings.algorithmSource;
  tuning.chunkBytes = settings.chunkBytes;
  tuning.chunkBytesSet = settings.chunkBytesSet;
  tuning.pipelineDepth = settings.pipelineDepth;
  return tuning;
}

namespace {

Status byteSizeFromEnv(const char* name, size_t minimum, size_t* value) {
  const char* text = std::getenv(name);
  if (!text || !*text) return Status::ok();
  size_t parsed = 0;
  if (!parseByteSize(text, &parsed) || parsed < minimum)
    return HETCCL_STATUS(Code::InvalidArgument, "%s=%s: expected a byte count >= %zu (suffixes K, M, G)",
                         name, text, minimum);
  *value = parsed;
  return Status::ok();
}

Status checkDepth(int depth, const char* source) {
  if (depth < 1 || depth > 64)
    return HETCCL_STATUS(Code::InvalidArgument, "%s: pipeline depth %d outside 1..64", source, depth);
  return Status::ok();
}

Status checkAlgorithm(const std::string& name, const char* source) {
  for (const char* known : {"auto", "ring", "hier", "torus", "small", "native"})
    if (name == known) return Status::ok();
  return HETCCL_STATUS(Code::InvalidArgument, "%s=%s: unknown algorithm; this build has %s", source,
                       name.c_str(), availableAlgorithms());
}

}  // namespace

Status loadSettings(const hetcclConfig_t* config, Settings* settings) {
  Settings s;
  HETCCL_TRY(byteSizeFromEnv("HETCCL_CHUNK_BYTES", 1, &s.chunkBytes));
  if (const char* chunk = std::getenv("HETCCL_CHUNK_BYTES"); chunk && *chunk) s.chunkBytesSet = true;
  HETCCL_TRY(byteSizeFromEnv("HETCCL_TRANSPORT_MAX_MESSAGE_BYTES", 1, &s.maxMessageBytes));
  if (const char* depth = std::getenv("HETCCL_PIPELINE_DEPTH"); depth && *depth) {
    char* end = nullptr;
    long value = std::strtol(depth, &end, 10);
    if (*end != '\0') value = 0;
    HETCCL_TRY(checkDepth(static_cast<int>(value), "HETCCL_PIPELINE_DEPTH"));
    s.pipelineDepth = static_cast<int>(value);
  }
  if (const char* staging = std::getenv("HETCCL_STAGING"); staging && *staging) {
    s.staging = staging;
    if (s.staging != "auto" && s.staging != "force" && s.staging != "off")
      return HETCCL_STATUS(Code::InvalidArgument, "HETCCL_STAGING=%s: expected auto, force or off", staging);
  }
  if (const char* aware = std::getenv("HETCCL_GPU_AWARE_MPI"); aware && *aware) {
    if (std::strcmp(aware, "0") != 0 && std::strcmp(aware, "1") != 0)
      return HETCCL_STATUS(Code::InvalidArgument, "HETCCL_GPU_AWARE_MPI=%s: expected 0 or 1", aware);
    s.gpuAwareMpi = aware[0] - '0';
  }
  if (const char* library = std::getenv("HETCCL_ISLAND_LIBRARY"); library && *library) s.islandLibrary = library;
  if (const char* algorithm = std::getenv("HETCCL_ALGO"); algorithm && *algorithm) {
    s.algorithm = algorithm;
    for (char& c : s.algorithm) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
    s.algorithmSource = "HETCCL_ALGO";
    HETCCL_TRY(checkAlgorithm(s.algorithm, "HETCCL_ALGO"));
  }
  if (config) {
    if (config->magic != HETCCL_CONFIG_MAGIC || config->size < sizeof(hetcclConfig_t))
      return HETCCL_STATUS(Code::InvalidArgument,
                           "config was not initialised with HETCCL_CONFIG_INITIALIZER (bad magic or size)");
    if (config->chunkBytes != HETCCL_CONFIG_UNDEF_INT) {
      if (config->chunkBytes < 1)
        return HETCCL_STATUS(Code::InvalidArgument, "config.chunkBytes=%d must be positive", config->chunkBytes);
      s.chunkBytes = static_cast<size_t>(config->chunkBytes);
      s.chunkBytesSet = true;
    }
    if (config->pipelineDepth != HETCCL_CONFIG_UNDEF_INT) {
      HETCCL_TRY(checkDepth(config->pipelineDepth, "config.pipelineDepth"));
      s.pipelineDepth = config->pipelineDepth;
    }
    if (config->algorithm) {
      s.algorithm = config->algorithm;
      for (char& c : s.algorithm) c = static_cast<char>(tolower(static_cast<unsigned char>(c)));
      s.algorithmSource = "config.algorithm";
      HETCCL_TRY(checkAlgorithm(s.algorithm, "config.algorithm"));
    }
  }
  *settings = s;
  return Status::ok();
}

}  // namespace hetccl
