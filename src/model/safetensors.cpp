#include "model/safetensors.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "base/file.h"

namespace tritonrl::model {

namespace {

using json = nlohmann::json;

// A header larger than this is certainly not a checkpoint (the spec caps it at 100 MB).
constexpr uint64_t kMaxHeaderBytes = 100u << 20;

struct DTypeEntry {
  DType dtype;
  const char* name;
  size_t size;
};
constexpr DTypeEntry kDTypes[] = {
    {DType::kF64, "F64", 8},   {DType::kF32, "F32", 4}, {DType::kF16, "F16", 2},
    {DType::kBF16, "BF16", 2}, {DType::kI64, "I64", 8}, {DType::kI32, "I32", 4},
    {DType::kI16, "I16", 2},   {DType::kI8, "I8", 1},   {DType::kU8, "U8", 1},
    {DType::kBool, "BOOL", 1},
};

}  // namespace

struct MappedFile {
  void* addr = nullptr;
  size_t size = 0;
  ~MappedFile() {
    if (addr && size) munmap(addr, size);
  }
};

const char* DTypeName(DType dtype) {
  for (const auto& e : kDTypes) {
    if (e.dtype == dtype) return e.name;
  }
  return "?";
}

size_t DTypeSize(DType dtype) {
  for (const auto& e : kDTypes) {
    if (e.dtype == dtype) return e.size;
  }
  return 0;
}

Result<DType> ParseDType(const std::string& name) {
  for (const auto& e : kDTypes) {
    if (name == e.name) return e.dtype;
  }
  return Status::InvalidArgument("unknown safetensors dtype '" + name + "'");
}

int64_t TensorInfo::numel() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

Result<SafetensorsFile> OpenSafetensors(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return errno == ENOENT ? Status::NotFound(path + ": no such file")
                           : Status::IoError(path + ": " + std::strerror(errno));
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    int e = errno;
    ::close(fd);
    return Status::IoError(path + ": " + std::strerror(e));
  }
  auto file_size = static_cast<uint64_t>(st.st_size);
  if (file_size < 8) {
    ::close(fd);
    return Status::Corruption(path + ": too short for a safetensors header (" +
                              std::to_string(file_size) + " bytes)");
  }
  void* addr = mmap(nullptr, file_size, PROT_READ, MAP_PRIVATE, fd, 0);
  int map_errno = errno;
  ::close(fd);
  if (addr == MAP_FAILED) return Status::IoError(path + ": mmap: " + std::strerror(map_errno));
  auto mapping = std::make_shared<MappedFile>();
  mapping->addr = addr;
  mapping->size = file_size;
  const auto* bytes = static_cast<const uint8_t*>(addr);

  uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | bytes[i];
  if (header_len > kMaxHeaderBytes || header_len > file_size - 8) {
    return Status::Corruption(path + ": header length " + std::to_string(header_len) +
                              " does not fit in the file (" + std::to_string(file_size) +
                              " bytes)");
  }
  SafetensorsFile f;
  f.path = path;
  f.data = bytes + 8 + header_len;
  const uint64_t data_size = file_size - 8 - header_len;
  json header;
  try {
    header = json::parse(reinterpret_cast<const char*>(bytes + 8),
                         reinterpret_cast<const char*>(bytes + 8 + header_len));
  } catch (const json::exception& e) {
    return Status::Corruption(path + ": header is not JSON: " + e.what());
  }
  if (!header.is_object()) return Status::Corruption(path + ": header is not a JSON object");
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (const auto& [name, value] : header.items()) {
    if (name == "__metadata__") {
      if (!value.is_object()) return Status::Corruption(path + ": __metadata__ is not an object");
      for (const auto& [k, v] : value.items()) {
        if (!v.is_string()) {
          return Status::Corruption(path + ": __metadata__ value for '" + k + "' is not a string");
        }
        f.metadata[k] = v.get<std::string>();
      }
      continue;
    }
    const std::string where = path + ": tensor '" + name + "'";
    if (!value.is_object() || !value.contains("dtype") || !value.contains("shape") ||
        !value.contains("data_offsets") || !value["dtype"].is_string() ||
        !value["shape"].is_array() || !value["data_offsets"].is_array() ||
        value["data_offsets"].size() != 2) {
      return Status::Corruption(where + ": needs dtype, shape and data_offsets [begin, end]");
    }
    auto dtype = ParseDType(value["dtype"].get<std::string>());
    if (!dtype.ok()) return Status::Corruption(where + ": " + dtype.status().message());
    TensorInfo info;
    info.dtype = *dtype;
    for (const auto& d : value["shape"]) {
      if (!d.is_number_unsigned()) return Status::Corruption(where + ": bad shape entry");
      info.shape.push_back(d.get<int64_t>());
    }
    const auto& off = value["data_offsets"];
    if (!off[0].is_number_unsigned() || !off[1].is_number_unsigned()) {
      return Status::Corruption(where + ": bad data_offsets");
    }
    info.begin = off[0].get<uint64_t>();
    info.end = off[1].get<uint64_t>();
    if (info.begin > info.end || info.end > data_size) {
      return Status::Corruption(where + ": data_offsets [" + std::to_string(info.begin) + ", " +
                                std::to_string(info.end) + ") outside the data section (" +
                                std::to_string(data_size) + " bytes)");
    }
    uint64_t want = static_cast<uint64_t>(info.numel()) * DTypeSize(info.dtype);
    if (info.end - info.begin != want) {
      return Status::Corruption(where + ": holds " + std::to_string(info.end - info.begin) +
                                " bytes but dtype x shape needs " + std::to_string(want));
    }
    ranges.emplace_back(info.begin, info.end);
    f.tensors.emplace(name, std::move(info));
  }
  std::sort(ranges.begin(), ranges.end());
  uint64_t covered = 0;
  for (const auto& [b, e] : ranges) {
    if (b < covered) return Status::Corruption(path + ": tensor data ranges overlap");
    if (b > covered) return Status::Corruption(path + ": hole in the data section");
    covered = e;
  }
  if (covered != data_size) {
    return Status::Corruption(path + ": " + std::to_string(data_size - covered) +
                              " trailing bytes after the last tensor");
  }
  f.mapping = std::move(mapping);
  return f;
}

Status WriteSafetensors(const std::string& path, const std::vector<TensorToWrite>& tensors,
                        const std::map<std::string, std::string>& metadata) {
  std::vector<const TensorToWrite*> order;
  std::set<std::string> names;
  for (const auto& t : tensors) {
    if (t.name == "__metadata__" || !names.insert(t.name).second) {
      return Status::InvalidArgument("safetensors: duplicate or reserved tensor name '" + t.name +
                                     "'");
    }
    order.push_back(&t);
  }
  std::sort(order.begin(), order.end(),
            [](const TensorToWrite* a, const TensorToWrite* b) { return a->name < b->name; });
  json header = json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  uint64_t offset = 0;
  for (const TensorToWrite* t : order) {
    int64_t numel = 1;
    for (int64_t d : t->shape) {
      if (d < 0) return Status::InvalidArgument("safetensors: negative dimension in " + t->name);
      numel *= d;
    }
    uint64_t n = static_cast<uint64_t>(numel) * DTypeSize(t->dtype);
    header[t->name] = {{"dtype", DTypeName(t->dtype)},
                       {"shape", t->shape},
                       {"data_offsets", {offset, offset + n}}};
    offset += n;
  }
  std::string h = header.dump();
  // Pad with spaces (allowed by the format) so the data section starts 8-byte aligned.
  while ((8 + h.size()) % 8 != 0) h.push_back(' ');
  std::string out;
  out.reserve(8 + h.size() + offset);
  uint64_t len = h.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((len >> (8 * i)) & 0xFF));
  out += h;
  for (const TensorToWrite* t : order) {
    int64_t numel = 1;
    for (int64_t d : t->shape) numel *= d;
    size_t n = static_cast<size_t>(numel) * DTypeSize(t->dtype);
    if (n && !t->data) return Status::InvalidArgument("safetensors: no data for " + t->name);
    out.append(static_cast<const char*>(t->data), n);
  }
  return WriteFileAtomic(path, out);
}

const uint8_t* Checkpoint::TensorData(const std::string& name) const {
  auto it = tensors.find(name);
  if (it == tensors.end()) return nullptr;
  return files[it->second.first].TensorData(it->second.second);
}

Result<Checkpoint> OpenCheckpoint(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> shards;
  fs::path index = fs::path(dir) / "model.safetensors.index.json";
  fs::path single = fs::path(dir) / "model.safetensors";
  std::map<std::string, std::string> weight_map;
  if (fs::exists(index)) {
    auto text = ReadFile(index.string());
    if (!text.ok()) return text.status();
    try {
      json j = json::parse(*text);
      for (const auto& [name, file] : j.at("weight_map").items()) {
        weight_map[name] = file.get<std::string>();
        if (std::find(shards.begin(), shards.end(), file.get<std::string>()) == shards.end()) {
          shards.push_back(file.get<std::string>());
        }
      }
    } catch (const json::exception& e) {
      return Status::Corruption(index.string() + ": " + e.what());
    }
  } else if (fs::exists(single)) {
    shards.push_back("model.safetensors");
  } else {
    return Status::NotFound(dir + ": neither model.safetensors nor model.safetensors.index.json");
  }
  Checkpoint ck;
  for (const std::string& shard : shards) {
    if (shard.find('/') != std::string::npos || shard == "..") {
      return Status::Corruption(index.string() + ": shard name '" + shard + "' is not a file name");
    }
    auto f = OpenSafetensors((fs::path(dir) / shard).string());
    if (!f.ok()) return f.status();
    size_t fi = ck.files.size();
    for (const auto& [name, info] : f->tensors) {
      if (!weight_map.empty()) {
        auto it = weight_map.find(name);
        if (it == weight_map.end() || it->second != shard) {
          return Status::Corruption(f->path + ": tensor '" + name +
                                    "' is not assigned to this shard by the index");
        }
      }
      if (!ck.tensors.emplace(name, std::make_pair(fi, info)).second) {
        return Status::Corruption(f->path + ": tensor '" + name + "' appears in two shards");
      }
    }
    ck.files.push_back(std::move(f.value()));
  }
  for (const auto& [name, shard] : weight_map) {
    if (!ck.tensors.count(name)) {
      return Status::Corruption(index.string() + ": tensor '" + name + "' is missing from " +
                                shard);
    }
  }
  return ck;
}

}  // namespace tritonrl::model
