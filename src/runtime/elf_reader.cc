// ELF64 .dynsym reader. Every offset read from the file is checked against
// the file's size before use, with overflow-safe arithmetic, and fields are
// copied out with memcpy because the image need not be aligned.
#include "runtime/elf_reader.h"

#include <elf.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>

namespace xffi::internal {
namespace {

class Image {
 public:
  Image(const uint8_t* data, size_t size, std::string_view what)
      : data_(data), size_(size), what_(what) {}

  // True when [offset, offset + length) lies inside the image.
  bool Contains(uint64_t offset, uint64_t length) const {
    return offset <= size_ && length <= size_ - offset;
  }

  template <typename T>
  T Read(uint64_t offset) const {  // callers check Contains first
    T value;
    std::memcpy(&value, data_ + offset, sizeof(T));
    return value;
  }

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

  Status Error(const std::string& problem) const {
    return InvalidArgument("'" + std::string(what_) +
                           "' is not a valid ELF64 file: " + problem);
  }

 private:
  const uint8_t* data_;
  size_t size_;
  std::string_view what_;
};

// The section table: its headers, bounds-checked once.
StatusOr<std::vector<Elf64_Shdr>> ReadSections(const Image& image,
                                               const Elf64_Ehdr& header) {
  if (header.e_shoff == 0) {
    return image.Error("it has no section headers");
  }
  if (header.e_shentsize != sizeof(Elf64_Shdr)) {
    return image.Error("section header size is " +
                       std::to_string(header.e_shentsize) + ", expected " +
                       std::to_string(sizeof(Elf64_Shdr)));
  }
  if (!image.Contains(header.e_shoff, sizeof(Elf64_Shdr))) {
    return image.Error(
        "the section header table (offset " + std::to_string(header.e_shoff) +
        ") lies outside the file (" + std::to_string(image.size()) + " bytes)");
  }
  uint64_t count = header.e_shnum;
  if (count == 0) {  // extended numbering: the count is in section 0
    count = image.Read<Elf64_Shdr>(header.e_shoff).sh_size;
  }
  if (count > (std::numeric_limits<uint64_t>::max() / sizeof(Elf64_Shdr)) ||
      !image.Contains(header.e_shoff, count * sizeof(Elf64_Shdr))) {
    return image.Error("the section header table (" + std::to_string(count) +
                       " entries at offset " + std::to_string(header.e_shoff) +
                       ") runs past the end of the file (" +
                       std::to_string(image.size()) + " bytes)");
  }
  std::vector<Elf64_Shdr> sections(count);
  for (uint64_t i = 0; i < count; ++i) {
    sections[i] =
        image.Read<Elf64_Shdr>(header.e_shoff + i * sizeof(Elf64_Shdr));
  }
  return sections;
}

Status CheckSectionData(const Image& image, const Elf64_Shdr& section,
                        const char* role, uint64_t index) {
  if (section.sh_type == SHT_NOBITS ||
      !image.Contains(section.sh_offset, section.sh_size)) {
    return image.Error(
        std::string(role) + " (section " + std::to_string(index) + ", offset " +
        std::to_string(section.sh_offset) + ", size " +
        std::to_string(section.sh_size) + ") lies outside the file (" +
        std::to_string(image.size()) + " bytes)");
  }
  return Status::Ok();
}

// The ELF header, once the identification bytes say it is ours to read.
StatusOr<Elf64_Ehdr> ReadHeader(const Image& image) {
  if (image.data() == nullptr || image.size() < sizeof(Elf64_Ehdr)) {
    return image.Error("it is " + std::to_string(image.size()) +
                       " bytes long, shorter than an ELF64 header (" +
                       std::to_string(sizeof(Elf64_Ehdr)) + " bytes)");
  }
  Elf64_Ehdr header = image.Read<Elf64_Ehdr>(0);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    return image.Error("it does not start with the ELF magic bytes");
  }
  if (header.e_ident[EI_CLASS] != ELFCLASS64) {
    return image.Error(header.e_ident[EI_CLASS] == ELFCLASS32
                           ? "it is a 32-bit (ELFCLASS32) file"
                           : "its class byte is " +
                                 std::to_string(header.e_ident[EI_CLASS]));
  }
  if (header.e_ident[EI_DATA] != ELFDATA2LSB) {
    return image.Error("it is not little-endian (data byte " +
                       std::to_string(header.e_ident[EI_DATA]) + ")");
  }
  return header;
}

#if defined(__x86_64__)
constexpr uint16_t kHostMachine = EM_X86_64;
#elif defined(__aarch64__)
constexpr uint16_t kHostMachine = EM_AARCH64;
#else
constexpr uint16_t kHostMachine = EM_NONE;  // not checked
#endif

}  // namespace

Status CheckElfLoadable(const uint8_t* data, size_t size,
                        std::string_view what) {
  Image image(data, size, what);
  StatusOr<Elf64_Ehdr> header = ReadHeader(image);
  if (!header.ok()) return header.status();
  if (header->e_type != ET_DYN) {
    return image.Error("it is not a shared library (e_type " +
                       std::to_string(header->e_type) + ", expected ET_DYN)");
  }
  if (kHostMachine != EM_NONE && header->e_machine != kHostMachine) {
    return image.Error("it was built for machine " +
                       std::to_string(header->e_machine) + ", this one is " +
                       std::to_string(kHostMachine));
  }
  if (header->e_phentsize != sizeof(Elf64_Phdr) || header->e_phnum == 0) {
    return image.Error("it has " + std::to_string(header->e_phnum) +
                       " program headers of " +
                       std::to_string(header->e_phentsize) +
                       " bytes; expected at least one of " +
                       std::to_string(sizeof(Elf64_Phdr)));
  }
  uint64_t table_size = uint64_t{header->e_phnum} * sizeof(Elf64_Phdr);
  if (!image.Contains(header->e_phoff, table_size)) {
    return image.Error("the program header table (offset " +
                       std::to_string(header->e_phoff) + ", " +
                       std::to_string(table_size) +
                       " bytes) runs past the end of the file (" +
                       std::to_string(image.size()) + " bytes)");
  }
  for (uint16_t i = 0; i < header->e_phnum; ++i) {
    Elf64_Phdr segment =
        image.Read<Elf64_Phdr>(header->e_phoff + i * sizeof(Elf64_Phdr));
    if (segment.p_type != PT_LOAD && segment.p_type != PT_DYNAMIC) continue;
    if (!image.Contains(segment.p_offset, segment.p_filesz)) {
      return image.Error("segment " + std::to_string(i) + " (offset " +
                         std::to_string(segment.p_offset) + ", " +
                         std::to_string(segment.p_filesz) +
                         " bytes) runs past the end of the file (" +
                         std::to_string(image.size()) +
                         " bytes); is it truncated?");
    }
  }
  return Status::Ok();
}

StatusOr<std::vector<uint8_t>> ReadFileBytes(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    int error = errno;
    return NotFound("cannot open '" + path + "': " + std::strerror(error));
  }
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)),
                             std::istreambuf_iterator<char>());
  if (file.bad()) return Internal("cannot read '" + path + "'");
  return bytes;
}

namespace {

// Where a symbol table and its strings lie in the file.
struct SymbolTable {
  uint64_t symbols_offset = 0;
  uint64_t count = 0;  // entries, including the null symbol
  uint64_t strings_offset = 0;
  uint64_t strings_size = 0;
};

StatusOr<std::vector<ElfSymbol>> ReadSymbols(const Image& image,
                                             const SymbolTable& table) {
  const char* strings =
      reinterpret_cast<const char*>(image.data() + table.strings_offset);
  std::vector<ElfSymbol> symbols;
  symbols.reserve(table.count > 0 ? table.count - 1 : 0);
  for (uint64_t i = 1; i < table.count; ++i) {
    Elf64_Sym raw =
        image.Read<Elf64_Sym>(table.symbols_offset + i * sizeof(Elf64_Sym));
    if (raw.st_name >= table.strings_size) {
      return image.Error("symbol " + std::to_string(i) + "'s name offset " +
                         std::to_string(raw.st_name) +
                         " lies outside .dynstr (" +
                         std::to_string(table.strings_size) + " bytes)");
    }
    const char* name = strings + raw.st_name;
    const void* end = std::memchr(name, '\0', table.strings_size - raw.st_name);
    if (end == nullptr) {
      return image.Error("symbol " + std::to_string(i) +
                         "'s name runs past the end of .dynstr");
    }
    ElfSymbol symbol;
    symbol.name.assign(name, static_cast<const char*>(end));
    symbol.type = ELF64_ST_TYPE(raw.st_info);
    symbol.binding = ELF64_ST_BIND(raw.st_info);
    symbol.visibility = ELF64_ST_VISIBILITY(raw.st_other);
    symbol.defined = raw.st_shndx != SHN_UNDEF;
    symbol.value = raw.st_value;
    symbol.size = raw.st_size;
    symbols.push_back(std::move(symbol));
  }
  return symbols;
}

// The table as the section headers describe it.
StatusOr<SymbolTable> FindTableBySections(const Image& image,
                                          const Elf64_Ehdr& header) {
  StatusOr<std::vector<Elf64_Shdr>> sections = ReadSections(image, header);
  if (!sections.ok()) return sections.status();

  const Elf64_Shdr* dynsym = nullptr;
  uint64_t dynsym_index = 0;
  for (uint64_t i = 0; i < sections->size(); ++i) {
    if ((*sections)[i].sh_type == SHT_DYNSYM) {
      dynsym = &(*sections)[i];
      dynsym_index = i;
      break;
    }
  }
  if (dynsym == nullptr) {
    return image.Error(
        "it has no dynamic symbol table (.dynsym); it is not a shared "
        "library");
  }
  if (Status s = CheckSectionData(image, *dynsym, ".dynsym", dynsym_index);
      !s.ok()) {
    return s;
  }
  if (dynsym->sh_entsize != sizeof(Elf64_Sym) ||
      dynsym->sh_size % sizeof(Elf64_Sym) != 0) {
    return image.Error(".dynsym entry size is " +
                       std::to_string(dynsym->sh_entsize) + " and size " +
                       std::to_string(dynsym->sh_size) +
                       "; expected entries of " +
                       std::to_string(sizeof(Elf64_Sym)) + " bytes");
  }
  if (dynsym->sh_link >= sections->size() || dynsym->sh_link == 0) {
    return image.Error(".dynsym names string table section " +
                       std::to_string(dynsym->sh_link) + ", but there are " +
                       std::to_string(sections->size()) + " sections");
  }
  const Elf64_Shdr& strtab = (*sections)[dynsym->sh_link];
  if (strtab.sh_type != SHT_STRTAB) {
    return image.Error("section " + std::to_string(dynsym->sh_link) +
                       ", .dynsym's string table, has type " +
                       std::to_string(strtab.sh_type) + ", not SHT_STRTAB");
  }
  if (Status s = CheckSectionData(image, strtab, ".dynstr", dynsym->sh_link);
      !s.ok()) {
    return s;
  }
  return SymbolTable{dynsym->sh_offset, dynsym->sh_size / sizeof(Elf64_Sym),
                     strtab.sh_offset, strtab.sh_size};
}

// The table as the dynamic segment describes it, for libraries stripped of
// their section headers (the dynamic linker needs only the segments).
// Returns null when there is no dynamic segment to read.
class DynamicTableFinder {
 public:
  DynamicTableFinder(const Image& image, const Elf64_Ehdr& header)
      : image_(image), header_(header) {}

  StatusOr<SymbolTable> Find() {
    if (header_.e_phentsize != sizeof(Elf64_Phdr) ||
        !image_.Contains(header_.e_phoff,
                         uint64_t{header_.e_phnum} * sizeof(Elf64_Phdr))) {
      return image_.Error("its program header table is malformed");
    }
    const Elf64_Phdr* dynamic = nullptr;
    for (uint16_t i = 0; i < header_.e_phnum; ++i) {
      segments_.push_back(
          image_.Read<Elf64_Phdr>(header_.e_phoff + i * sizeof(Elf64_Phdr)));
    }
    for (const Elf64_Phdr& segment : segments_) {
      if (segment.p_type == PT_DYNAMIC) dynamic = &segment;
    }
    if (dynamic == nullptr) {
      return image_.Error("it has no dynamic segment");
    }
    if (!image_.Contains(dynamic->p_offset, dynamic->p_filesz)) {
      return image_.Error("its dynamic segment lies outside the file");
    }
    uint64_t symtab = 0, strtab = 0, strsz = 0, syment = 0, hash = 0,
             gnu_hash = 0;
    for (uint64_t at = 0; at + sizeof(Elf64_Dyn) <= dynamic->p_filesz;
         at += sizeof(Elf64_Dyn)) {
      Elf64_Dyn entry = image_.Read<Elf64_Dyn>(dynamic->p_offset + at);
      if (entry.d_tag == DT_NULL) break;
      switch (entry.d_tag) {
        case DT_SYMTAB:
          symtab = entry.d_un.d_ptr;
          break;
        case DT_STRTAB:
          strtab = entry.d_un.d_ptr;
          break;
        case DT_STRSZ:
          strsz = entry.d_un.d_val;
          break;
        case DT_SYMENT:
          syment = entry.d_un.d_val;
          break;
        case DT_HASH:
          hash = entry.d_un.d_ptr;
          break;
        case DT_GNU_HASH:
          gnu_hash = entry.d_un.d_ptr;
          break;
      }
    }
    if (symtab == 0 || strtab == 0) {
      return image_.Error("its dynamic segment has no DT_SYMTAB/DT_STRTAB");
    }
    if (syment != 0 && syment != sizeof(Elf64_Sym)) {
      return image_.Error("DT_SYMENT is " + std::to_string(syment));
    }
    SymbolTable table;
    StatusOr<uint64_t> strings = Offset(strtab, strsz, "DT_STRTAB");
    if (!strings.ok()) return strings.status();
    table.strings_offset = *strings;
    table.strings_size = strsz;
    StatusOr<uint64_t> count =
        hash != 0 ? CountFromHash(hash)
        : gnu_hash != 0
            ? CountFromGnuHash(gnu_hash)
            : StatusOr<uint64_t>(image_.Error("its dynamic segment has neither "
                                              "DT_HASH nor DT_GNU_HASH"));
    if (!count.ok()) return count.status();
    table.count = *count;
    if (table.count > image_.size() / sizeof(Elf64_Sym)) {
      return image_.Error("its hash table claims " +
                          std::to_string(table.count) + " symbols");
    }
    StatusOr<uint64_t> symbols =
        Offset(symtab, table.count * sizeof(Elf64_Sym), "DT_SYMTAB");
    if (!symbols.ok()) return symbols.status();
    table.symbols_offset = *symbols;
    return table;
  }

 private:
  // The file offset of [address, address + length) in a loaded segment.
  StatusOr<uint64_t> Offset(uint64_t address, uint64_t length,
                            const char* what) const {
    for (const Elf64_Phdr& segment : segments_) {
      if (segment.p_type != PT_LOAD || address < segment.p_vaddr) continue;
      uint64_t delta = address - segment.p_vaddr;
      if (delta > segment.p_filesz || length > segment.p_filesz - delta) {
        continue;
      }
      uint64_t offset = segment.p_offset + delta;
      if (offset < segment.p_offset || !image_.Contains(offset, length)) {
        break;
      }
      return offset;
    }
    return image_.Error(std::string(what) + " (address " +
                        std::to_string(address) + ", " +
                        std::to_string(length) +
                        " bytes) is not inside the file's loaded segments");
  }

  StatusOr<uint64_t> CountFromHash(uint64_t address) const {
    StatusOr<uint64_t> at = Offset(address, 8, "DT_HASH");
    if (!at.ok()) return at.status();
    return uint64_t{image_.Read<uint32_t>(*at + 4)};  // nchain
  }

  // GNU hash tables do not store the count: it is one past the last symbol
  // the last non-empty chain reaches.
  StatusOr<uint64_t> CountFromGnuHash(uint64_t address) const {
    StatusOr<uint64_t> at = Offset(address, 16, "DT_GNU_HASH");
    if (!at.ok()) return at.status();
    uint32_t nbuckets = image_.Read<uint32_t>(*at);
    uint32_t symoffset = image_.Read<uint32_t>(*at + 4);
    uint32_t bloom_size = image_.Read<uint32_t>(*at + 8);
    uint64_t buckets_at = 16 + uint64_t{bloom_size} * 8;
    uint64_t table_size = buckets_at + uint64_t{nbuckets} * 4;
    at = Offset(address, table_size, "DT_GNU_HASH");
    if (!at.ok()) return at.status();
    uint32_t last = 0;
    for (uint32_t i = 0; i < nbuckets; ++i) {
      uint32_t bucket = image_.Read<uint32_t>(*at + buckets_at + 4 * i);
      if (bucket > last) last = bucket;
    }
    if (last == 0) return uint64_t{symoffset};
    if (last < symoffset) {
      return image_.Error("DT_GNU_HASH bucket names symbol " +
                          std::to_string(last) + ", below its symoffset " +
                          std::to_string(symoffset));
    }
    uint64_t chains = address + table_size;
    for (uint64_t index = last;; ++index) {
      StatusOr<uint64_t> link =
          Offset(chains + (index - symoffset) * 4, 4, "DT_GNU_HASH chain");
      if (!link.ok()) return link.status();
      if (image_.Read<uint32_t>(*link) & 1) return index + 1;
    }
  }

  const Image& image_;
  const Elf64_Ehdr& header_;
  std::vector<Elf64_Phdr> segments_;
};

}  // namespace

StatusOr<std::vector<ElfSymbol>> ParseElfDynamicSymbols(const uint8_t* data,
                                                        size_t size,
                                                        std::string_view what) {
  Image image(data, size, what);
  StatusOr<Elf64_Ehdr> header = ReadHeader(image);
  if (!header.ok()) return header.status();
  StatusOr<SymbolTable> table = FindTableBySections(image, *header);
  if (!table.ok()) {
    // Without usable section headers, the dynamic segment may still say.
    bool sections_missing = header->e_shoff == 0 ||
                            table.status().message().find(
                                "no dynamic symbol table") != std::string::npos;
    if (!sections_missing) return table.status();
    StatusOr<SymbolTable> dynamic = DynamicTableFinder(image, *header).Find();
    if (!dynamic.ok()) {
      return image.Error(table.status().message().substr(
                             table.status().message().find(": ") + 2) +
                         ", and the dynamic segment does not say either (" +
                         dynamic.status().message().substr(
                             dynamic.status().message().find(": ") + 2) +
                         ")");
    }
    table = std::move(dynamic);
  }
  return ReadSymbols(image, *table);
}

StatusOr<std::vector<ElfSymbol>> ReadElfDynamicSymbols(
    const std::string& path) {
  StatusOr<std::vector<uint8_t>> bytes = ReadFileBytes(path);
  if (!bytes.ok()) return bytes.status();
  return ParseElfDynamicSymbols(bytes->data(), bytes->size(), path);
}

}  // namespace xffi::internal
