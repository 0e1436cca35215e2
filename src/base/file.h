// Whole-file I/O with errors that name the file.
#pragma once

#include <string>

#include "base/status.h"

namespace tritonrl {

Result<std::string> ReadFile(const std::string& path);
// Writes through a temporary file and rename, so a reader never sees half a file.
Status WriteFileAtomic(const std::string& path, const std::string& content);

// Where this process puts temporary files and folders: $TMPDIR when set and not empty, else /tmp.
std::string TempFolder();

}  // namespace tritonrl
