// The ELF64 dynamic symbol reader: synthetic images (well-formed and broken
// in each way the reader checks) and a real library.
#include "runtime/elf_reader.h"

#include <elf.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace {

using ::testing::HasSubstr;
using ::xffi::internal::CheckElfLoadable;
using ::xffi::internal::ElfSymbol;
using ::xffi::internal::ParseElfDynamicSymbols;

// A minimal ELF64 shared object: header, one PT_LOAD over the whole file,
// sections [null, .dynsym, .dynstr], symbols "alpha" (function) and
// "xffi_export_alpha" (object) and an undefined "beta".
struct Synthetic {
  std::vector<uint8_t> bytes;
  size_t shoff = 0, dynsym_header = 0, dynstr_header = 0, dynsym_data = 0;

  template <typename T>
  T& At(size_t offset) {
    return *reinterpret_cast<T*>(bytes.data() + offset);
  }

  Synthetic() {
    const std::string strings =
        std::string("\0alpha\0xffi_export_alpha\0beta\0", 31);
    const size_t phoff = sizeof(Elf64_Ehdr);
    const size_t strtab = phoff + sizeof(Elf64_Phdr);
    dynsym_data = (strtab + strings.size() + 7) & ~size_t{7};
    const size_t num_symbols = 4;
    shoff = dynsym_data + num_symbols * sizeof(Elf64_Sym);
    bytes.assign(shoff + 3 * sizeof(Elf64_Shdr), 0);

    auto& header = At<Elf64_Ehdr>(0);
    std::memcpy(header.e_ident, ELFMAG, SELFMAG);
    header.e_ident[EI_CLASS] = ELFCLASS64;
    header.e_ident[EI_DATA] = ELFDATA2LSB;
    header.e_ident[EI_VERSION] = EV_CURRENT;
    header.e_type = ET_DYN;
#if defined(__aarch64__)
    header.e_machine = EM_AARCH64;
#else
    header.e_machine = EM_X86_64;
#endif
    header.e_version = EV_CURRENT;
    header.e_phoff = phoff;
    header.e_shoff = shoff;
    header.e_ehsize = sizeof(Elf64_Ehdr);
    header.e_phentsize = sizeof(Elf64_Phdr);
    header.e_phnum = 1;
    header.e_shentsize = sizeof(Elf64_Shdr);
    header.e_shnum = 3;

    auto& load = At<Elf64_Phdr>(phoff);
    load.p_type = PT_LOAD;
    load.p_offset = 0;
    load.p_filesz = bytes.size();
    load.p_memsz = bytes.size();

    std::memcpy(bytes.data() + strtab, strings.data(), strings.size());
    auto symbol = [&](size_t index, uint32_t name, unsigned char type,
                      uint16_t shndx) {
      auto& sym = At<Elf64_Sym>(dynsym_data + index * sizeof(Elf64_Sym));
      sym.st_name = name;
      sym.st_info = ELF64_ST_INFO(STB_GLOBAL, type);
      sym.st_shndx = shndx;
      sym.st_value = 0x1000 * index;
    };
    symbol(1, 1, STT_FUNC, 1);
    symbol(2, 7, STT_OBJECT, 1);
    symbol(3, 25, STT_NOTYPE, SHN_UNDEF);

    dynsym_header = shoff + sizeof(Elf64_Shdr);
    auto& dynsym = At<Elf64_Shdr>(dynsym_header);
    dynsym.sh_type = SHT_DYNSYM;
    dynsym.sh_offset = dynsym_data;
    dynsym.sh_size = num_symbols * sizeof(Elf64_Sym);
    dynsym.sh_entsize = sizeof(Elf64_Sym);
    dynsym.sh_link = 2;
    dynstr_header = shoff + 2 * sizeof(Elf64_Shdr);
    auto& dynstr = At<Elf64_Shdr>(dynstr_header);
    dynstr.sh_type = SHT_STRTAB;
    dynstr.sh_offset = strtab;
    dynstr.sh_size = strings.size();
  }

  Elf64_Ehdr& header() { return At<Elf64_Ehdr>(0); }
  Elf64_Shdr& dynsym() { return At<Elf64_Shdr>(dynsym_header); }
  Elf64_Shdr& dynstr() { return At<Elf64_Shdr>(dynstr_header); }
  Elf64_Sym& symbol(size_t i) {
    return At<Elf64_Sym>(dynsym_data + i * sizeof(Elf64_Sym));
  }

  xffi::StatusOr<std::vector<ElfSymbol>> Parse() const {
    return ParseElfDynamicSymbols(bytes.data(), bytes.size(), "synthetic.so");
  }
};

void ExpectInvalid(const Synthetic& image, const std::string& problem) {
  auto symbols = image.Parse();
  ASSERT_FALSE(symbols.ok()) << "expected: " << problem;
  EXPECT_EQ(symbols.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(symbols.status().message(), HasSubstr("'synthetic.so'"));
  EXPECT_THAT(symbols.status().message(), HasSubstr(problem));
}

TEST(ElfReader, ReadsSymbolsOfAWellFormedImage) {
  Synthetic image;
  auto symbols = image.Parse();
  ASSERT_TRUE(symbols.ok()) << symbols.status().ToString();
  ASSERT_EQ(symbols->size(), 3u);
  EXPECT_EQ((*symbols)[0].name, "alpha");
  EXPECT_EQ((*symbols)[0].type, STT_FUNC);
  EXPECT_TRUE((*symbols)[0].defined);
  EXPECT_EQ((*symbols)[0].value, 0x1000u);
  EXPECT_EQ((*symbols)[1].name, "xffi_export_alpha");
  EXPECT_EQ((*symbols)[1].type, STT_OBJECT);
  EXPECT_EQ((*symbols)[2].name, "beta");
  EXPECT_FALSE((*symbols)[2].defined);
  EXPECT_EQ((*symbols)[2].binding, STB_GLOBAL);
  EXPECT_TRUE(
      CheckElfLoadable(image.bytes.data(), image.bytes.size(), "x").ok());
}

TEST(ElfReader, RejectsBadIdentification) {
  Synthetic short_file;
  short_file.bytes.resize(10);
  ExpectInvalid(short_file, "shorter than an ELF64 header");

  Synthetic magic;
  magic.bytes[1] = 'X';
  ExpectInvalid(magic, "ELF magic");

  Synthetic elf32;
  elf32.bytes[EI_CLASS] = ELFCLASS32;
  ExpectInvalid(elf32, "32-bit");

  Synthetic big_endian;
  big_endian.bytes[EI_DATA] = ELFDATA2MSB;
  ExpectInvalid(big_endian, "not little-endian");

  auto null_data = ParseElfDynamicSymbols(nullptr, 0, "null");
  EXPECT_FALSE(null_data.ok());
}

TEST(ElfReader, RejectsSectionTablesOutsideTheFile) {
  Synthetic none;
  none.header().e_shoff = 0;
  ExpectInvalid(none, "no section headers");

  Synthetic far;
  far.header().e_shoff = 1u << 30;
  ExpectInvalid(far, "lies outside the file");

  Synthetic many;
  many.header().e_shnum = 1000;
  ExpectInvalid(many, "runs past the end of the file");

  Synthetic overflow;
  overflow.header().e_shnum = 0;  // extended numbering: count in section 0
  overflow.At<Elf64_Shdr>(overflow.shoff).sh_size = ~uint64_t{0} / 2;
  ExpectInvalid(overflow, "runs past the end of the file");

  Synthetic entry_size;
  entry_size.header().e_shentsize = 40;
  ExpectInvalid(entry_size, "section header size is 40");
}

TEST(ElfReader, RejectsBrokenSymbolTables) {
  Synthetic no_dynsym;
  no_dynsym.dynsym().sh_type = SHT_PROGBITS;
  ExpectInvalid(no_dynsym, "no dynamic symbol table");

  Synthetic dynsym_outside;
  dynsym_outside.dynsym().sh_offset = ~uint64_t{0} - 8;
  ExpectInvalid(dynsym_outside, ".dynsym (section 1");

  Synthetic dynsym_too_big;
  dynsym_too_big.dynsym().sh_size = 1u << 20;
  ExpectInvalid(dynsym_too_big, "lies outside the file");

  Synthetic entsize;
  entsize.dynsym().sh_entsize = 16;
  ExpectInvalid(entsize, "entry size is 16");

  Synthetic ragged;
  ragged.dynsym().sh_size -= 1;
  ExpectInvalid(ragged, "expected entries of 24 bytes");

  Synthetic bad_link;
  bad_link.dynsym().sh_link = 7;
  ExpectInvalid(bad_link, "string table section 7");

  Synthetic not_strtab;
  not_strtab.dynstr().sh_type = SHT_PROGBITS;
  ExpectInvalid(not_strtab, "not SHT_STRTAB");

  Synthetic strtab_outside;
  strtab_outside.dynstr().sh_size = 1u << 20;
  ExpectInvalid(strtab_outside, ".dynstr (section 2");
}

TEST(ElfReader, RejectsNamesOutsideTheStringTable) {
  Synthetic offset;
  offset.symbol(2).st_name = 5000;
  ExpectInvalid(offset, "symbol 2's name offset 5000");

  Synthetic unterminated;
  // Cut the string table just inside "beta", leaving it without its NUL.
  unterminated.dynstr().sh_size = 27;
  ExpectInvalid(unterminated, "symbol 3's name runs past the end of .dynstr");
}

TEST(ElfReader, LoadabilityChecksSegments) {
  Synthetic truncated;
  truncated.At<Elf64_Phdr>(sizeof(Elf64_Ehdr)).p_filesz += 4096;
  xffi::Status status = CheckElfLoadable(
      truncated.bytes.data(), truncated.bytes.size(), "truncated.so");
  EXPECT_EQ(status.code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(status.message(), HasSubstr("segment 0"));
  EXPECT_THAT(status.message(), HasSubstr("truncated"));

  Synthetic executable;
  executable.header().e_type = ET_EXEC;
  status = CheckElfLoadable(executable.bytes.data(), executable.bytes.size(),
                            "a.out");
  EXPECT_THAT(status.message(), HasSubstr("not a shared library"));

  Synthetic machine;
  machine.header().e_machine = EM_SPARC;
  status = CheckElfLoadable(machine.bytes.data(), machine.bytes.size(), "m");
  EXPECT_THAT(status.message(), HasSubstr("built for machine"));

  Synthetic phdrs;
  phdrs.header().e_phnum = 500;
  status = CheckElfLoadable(phdrs.bytes.data(), phdrs.bytes.size(), "p");
  EXPECT_THAT(status.message(), HasSubstr("program header table"));
}

// Every prefix of a well-formed image is rejected or parsed, never a crash.
TEST(ElfReader, EveryTruncationIsHandled) {
  Synthetic image;
  for (size_t size = 0; size < image.bytes.size(); ++size) {
    auto symbols = ParseElfDynamicSymbols(image.bytes.data(), size, "cut");
    EXPECT_FALSE(symbols.ok()) << size;
    EXPECT_FALSE(CheckElfLoadable(image.bytes.data(), size, "cut").ok())
        << size;
  }
}

std::vector<std::string> Names(const std::vector<ElfSymbol>& symbols) {
  std::vector<std::string> names;
  for (const ElfSymbol& symbol : symbols) names.push_back(symbol.name);
  return names;
}

// A library whose section headers are gone (as after sstrip) still lists
// the same symbols, read through its dynamic segment and hash table.
TEST(ElfReader, SectionlessLibrariesAreReadThroughTheDynamicSegment) {
  for (const char* path : {XFFI_TEST_ELF_SYSV_HASH, XFFI_TEST_ELF_GNU_HASH}) {
    auto bytes = xffi::internal::ReadFileBytes(path);
    ASSERT_TRUE(bytes.ok());
    auto with_sections =
        ParseElfDynamicSymbols(bytes->data(), bytes->size(), path);
    ASSERT_TRUE(with_sections.ok()) << with_sections.status().ToString();

    auto& header = *reinterpret_cast<Elf64_Ehdr*>(bytes->data());
    header.e_shoff = 0;
    header.e_shnum = 0;
    header.e_shstrndx = 0;
    auto without = ParseElfDynamicSymbols(bytes->data(), bytes->size(), path);
    ASSERT_TRUE(without.ok()) << path << ": " << without.status().ToString();
    EXPECT_EQ(Names(*without), Names(*with_sections)) << path;
    EXPECT_THAT(Names(*without),
                ::testing::Contains("xffi_export_exported_double"));

    // Every truncation of the section-less file fails cleanly.
    for (size_t size = 0; size < bytes->size(); size += 97) {
      auto cut = ParseElfDynamicSymbols(bytes->data(), size, "cut");
      (void)cut;
    }
  }
}

TEST(ElfReader, SectionlessWithoutDynamicSegmentSaysBoth) {
  Synthetic image;
  image.header().e_shoff = 0;
  auto symbols = image.Parse();
  ASSERT_FALSE(symbols.ok());
  EXPECT_THAT(symbols.status().message(), HasSubstr("no section headers"));
  EXPECT_THAT(symbols.status().message(), HasSubstr("no dynamic segment"));
}

TEST(ElfReader, ReadsARealLibrary) {
  auto symbols = xffi::internal::ReadElfDynamicSymbols(XFFI_TEST_LIBXFFI);
  ASSERT_TRUE(symbols.ok()) << symbols.status().ToString();
  bool found = false;
  for (const ElfSymbol& symbol : *symbols) {
    if (symbol.name == "XlaCustomCallStatusSetFailure") {
      found = symbol.defined && symbol.type == STT_FUNC;
    }
  }
  EXPECT_TRUE(found);

  auto missing = xffi::internal::ReadElfDynamicSymbols("/nonexistent/lib.so");
  EXPECT_EQ(missing.status().code(), XLA_FFI_Error_Code_NOT_FOUND);
  EXPECT_THAT(missing.status().message(), HasSubstr("/nonexistent/lib.so"));
}

}  // namespace
