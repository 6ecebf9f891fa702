#include "module_file.hpp"

#include <elf.h>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <vector>

#include <boost/dll/runtime_symbol_info.hpp>

namespace kioku::host {
namespace {

// offset + count * size, or UINT64_MAX when it overflows (values come from the file).
std::uint64_t End(std::uint64_t offset, std::uint64_t count, std::uint64_t size) {
  std::uint64_t bytes = 0, end = 0;
  if (__builtin_mul_overflow(count, size, &bytes) || __builtin_add_overflow(offset, bytes, &end)) return UINT64_MAX;
  return end;
}

}  // namespace

std::optional<std::filesystem::path> InstallLibDir() {
  std::error_code ec;
  const std::filesystem::path exe(boost::dll::program_location(ec).string());
  if (ec || !exe.is_absolute()) return std::nullopt;
  return (exe.parent_path() / ".." / "lib" / "kioku").lexically_normal();
}

std::optional<std::filesystem::path> BundledPluginDir() {
  auto lib = InstallLibDir();
  if (lib) *lib /= "plugins";
  return lib;
}

std::string ModuleFileProblem(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return "does not exist";
  const std::uint64_t size = std::filesystem::file_size(path, ec);
  std::ifstream in(path, std::ios::binary);
  if (ec || !in) return "cannot be read";
  Elf64_Ehdr header{};
  if (!in.read(reinterpret_cast<char*>(&header), sizeof header) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    return "is not an ELF shared library";
  }
  if (header.e_ident[EI_CLASS] != ELFCLASS64 || header.e_phentsize != sizeof(Elf64_Phdr)) {
    return "is not a 64-bit ELF shared library";
  }
  std::uint64_t needed = std::max(End(header.e_phoff, header.e_phnum, header.e_phentsize),
                                  End(header.e_shoff, header.e_shnum, header.e_shentsize));
  if (needed <= size) {
    std::vector<Elf64_Phdr> segments(header.e_phnum);
    in.seekg(static_cast<std::streamoff>(header.e_phoff));
    if (!in.read(reinterpret_cast<char*>(segments.data()),
                 static_cast<std::streamsize>(segments.size() * sizeof(Elf64_Phdr)))) {
      return "cannot be read";
    }
    for (const auto& s : segments) {
      if (s.p_type == PT_LOAD) needed = std::max(needed, End(s.p_offset, 1, s.p_filesz));
    }
  }
  if (needed > size) {
    return "is truncated (" + std::to_string(size) + " bytes; its headers need " +
           (needed == UINT64_MAX ? std::string("more") : std::to_string(needed)) + ")";
  }
  return "";
}

}  // namespace kioku::host
