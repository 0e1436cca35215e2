// safetensors files (memory-mapped reader, writer) and Hugging Face
// checkpoints that shard them through model.safetensors.index.json.
// Format: 8-byte little-endian header length N, N bytes of JSON mapping each
// tensor name to {dtype, shape, data_offsets: [begin, end)} relative to the
// data that follows (plus an optional "__metadata__" string map), then data.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"

namespace tritonrl::model {

enum class DType { kF64, kF32, kF16, kBF16, kI64, kI32, kI16, kI8, kU8, kBool };

const char* DTypeName(DType dtype);  // the safetensors spelling: "F32", "BF16", ...
size_t DTypeSize(DType dtype);
Result<DType> ParseDType(const std::string& name);

struct TensorInfo {
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;  // byte range within the data section
  int64_t numel() const;
};

struct MappedFile;  // an mmap'd file, unmapped when the last reference goes

struct SafetensorsFile {
  std::string path;
  std::map<std::string, TensorInfo> tensors;
  std::map<std::string, std::string> metadata;
  std::shared_ptr<const MappedFile> mapping;
  const uint8_t* data = nullptr;  // start of the data section, inside the mapping

  const uint8_t* TensorData(const TensorInfo& t) const { return data + t.begin; }
};

// Validates the header: JSON shape, known dtypes, offsets inside the file that
// match dtype x shape, no overlaps and no holes.
Result<SafetensorsFile> OpenSafetensors(const std::string& path);

struct TensorToWrite {
  std::string name;
  DType dtype = DType::kF32;
  std::vector<int64_t> shape;
  const void* data = nullptr;  // numel x DTypeSize bytes
};

// Writes atomically; tensors in name order, data 8-byte aligned.
Status WriteSafetensors(const std::string& path, const std::vector<TensorToWrite>& tensors,
                        const std::map<std::string, std::string>& metadata = {});

// All tensors of a checkpoint directory: model.safetensors, or the shards
// listed by model.safetensors.index.json.
struct Checkpoint {
  std::vector<SafetensorsFile> files;
  std::map<std::string, std::pair<size_t, TensorInfo>> tensors;  // name -> (file index, info)

  const uint8_t* TensorData(const std::string& name) const;
};

Result<Checkpoint> OpenCheckpoint(const std::string& dir);

}  // namespace tritonrl::model
