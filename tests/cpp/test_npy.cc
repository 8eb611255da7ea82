// .npy reading and writing, checked against files NumPy itself wrote (the
// program corpus) and against hand-made headers for the cases NumPy's
// defaults do not produce (Fortran order, big-endian, versions 2 and 3).
#include "cli/npy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ir/float_types.h"

namespace xffi {
namespace {

using ::testing::HasSubstr;

std::string Corpus(const std::string& name) {
  return std::string(XFFI_CORPUS_DIR) + "/" + name;
}

std::string Slurp(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(file)),
                     std::istreambuf_iterator<char>());
}

// A .npy file with the given header dict and raw data, version `major`.
std::string MakeNpy(const std::string& dict, const std::string& data,
                    int major = 1) {
  std::string header = dict + "\n";
  std::string out = std::string("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  size_t size = header.size();
  out += static_cast<char>(size & 0xFF);
  out += static_cast<char>((size >> 8) & 0xFF);
  if (major >= 2) out += std::string(2, '\0');
  return out + header + data;
}

template <typename T>
std::string Bytes(const std::vector<T>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()),
                     values.size() * sizeof(T));
}

TEST(NpyTest, ReadsAnInt32FileNumPyWrote) {
  // iota.out_1 is jnp.arange(12).reshape(3, 4), saved by np.save.
  StatusOr<Literal> value = ReadNpyFile(Corpus("iota.out_1.npy"));
  ASSERT_TRUE(value.ok()) << value.status().ToString();
  EXPECT_EQ(value->shape().ToString(false), "s32[3,4]");
  std::vector<int32_t> expected = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  EXPECT_EQ(value->ToVector<int32_t>(), expected);
}

TEST(NpyTest, ReadsBfloat16SavedAsRawV2) {
  // convert_types.out_1 is in_0.astype(bfloat16); NumPy wrote it as '<V2'.
  StatusOr<Literal> input = ReadNpyFile(Corpus("convert_types.in_0.npy"));
  StatusOr<Literal> output = ReadNpyFile(Corpus("convert_types.out_1.npy"));
  ASSERT_TRUE(input.ok() && output.ok());
  ASSERT_NE(Slurp(Corpus("convert_types.out_1.npy")).find("'<V2'"),
            std::string::npos);
  ASSERT_EQ(output->shape().ToString(false), "bf16[12]");
  std::vector<float> x = input->ToVector<float>();
  const auto* bits = output->data<uint16_t>();
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_EQ(bits[i], FloatToBFloat16(x[i])) << "element " << i;
  }
}

TEST(NpyTest, RawBytesTakeTheExpectedType) {
  std::string file = MakeNpy(
      "{'descr': '<V1', 'fortran_order': False, 'shape': (2,), }", "\x38\xC0");
  StatusOr<Literal> e4m3 = DecodeNpy(file, "f8.npy", ElementType::kF8E4M3FN);
  ASSERT_TRUE(e4m3.ok()) << e4m3.status().ToString();
  EXPECT_EQ(e4m3->shape().ToString(false), "f8e4m3fn[2]");
  EXPECT_EQ(
      NarrowFloatToFloat(ElementType::kF8E4M3FN, e4m3->data<uint8_t>()[0]),
      1.0f);
  EXPECT_EQ(
      NarrowFloatToFloat(ElementType::kF8E4M3FN, e4m3->data<uint8_t>()[1]),
      -2.0f);

  StatusOr<Literal> ambiguous = DecodeNpy(file, "f8.npy");
  ASSERT_FALSE(ambiguous.ok());
  EXPECT_THAT(ambiguous.status().message(), HasSubstr("f8.npy"));
  EXPECT_THAT(ambiguous.status().message(),
              HasSubstr("need the expected element type"));

  // float8_e5m2 is the one ml_dtypes type NumPy saves as '<f1'.
  std::string e5m2 = MakeNpy(
      "{'descr': '<f1', 'fortran_order': False, 'shape': (1,), }", "\x3C");
  StatusOr<Literal> value = DecodeNpy(e5m2, "e5m2.npy");
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(value->shape().ToString(false), "f8e5m2[1]");
  EXPECT_EQ(NarrowFloatToFloat(ElementType::kF8E5M2, value->data<uint8_t>()[0]),
            1.0f);
}

TEST(NpyTest, RewritesEveryCorpusFileByteForByte) {
  // xffi writes headers exactly as NumPy 2 does, so decode + encode of a
  // file np.save wrote gives the same bytes (bool, int8, uint32, f16, bf16,
  // f32, complex64 among them).
  int files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(XFFI_CORPUS_DIR)) {
    if (entry.path().extension() != ".npy") continue;
    std::string original = Slurp(entry.path().string());
    StatusOr<Literal> value = DecodeNpy(original, entry.path().string());
    ASSERT_TRUE(value.ok()) << value.status().ToString();
    StatusOr<std::string> encoded = EncodeNpy(*value);
    ASSERT_TRUE(encoded.ok()) << encoded.status().ToString();
    EXPECT_EQ(*encoded, original) << entry.path();
    ++files;
  }
  EXPECT_GT(files, 100);
}

TEST(NpyTest, RoundTripsEveryArrayType) {
  for (ElementType type : AllArrayElementTypes()) {
    Shape shape = Shape::Array(type, {2, 3});
    std::vector<unsigned char> bytes(shape.byte_size());
    for (size_t i = 0; i < bytes.size(); ++i) {
      bytes[i] = static_cast<unsigned char>(i * 7 + 1);
    }
    if (type == ElementType::kPred) {
      for (auto& b : bytes) b &= 1;
    }
    Literal literal = Literal::FromBytes(shape, bytes.data(), bytes.size());
    StatusOr<std::string> encoded = EncodeNpy(literal);
    ASSERT_TRUE(encoded.ok()) << ElementTypeName(type);
    EXPECT_EQ(encoded->size() % 64, bytes.size() % 64) << ElementTypeName(type);
    StatusOr<Literal> decoded = DecodeNpy(*encoded, "x.npy", type);
    ASSERT_TRUE(decoded.ok()) << decoded.status().ToString();
    EXPECT_EQ(*decoded, literal) << ElementTypeName(type);
  }
}

TEST(NpyTest, DescrsMatchNumPyAndMlDtypes) {
  EXPECT_EQ(NpyDescr(ElementType::kPred), "|b1");
  EXPECT_EQ(NpyDescr(ElementType::kS8), "|i1");
  EXPECT_EQ(NpyDescr(ElementType::kU32), "<u4");
  EXPECT_EQ(NpyDescr(ElementType::kF16), "<f2");
  EXPECT_EQ(NpyDescr(ElementType::kC64), "<c8");
  EXPECT_EQ(NpyDescr(ElementType::kC128), "<c16");
  EXPECT_EQ(NpyDescr(ElementType::kBF16), "<V2");
  EXPECT_EQ(NpyDescr(ElementType::kF8E4M3FN), "<V1");
  EXPECT_EQ(NpyDescr(ElementType::kS4), "<V1");
  EXPECT_EQ(NpyDescr(ElementType::kTuple), "");
}

TEST(NpyTest, ScalarAndVectorShapes) {
  StatusOr<std::string> scalar = EncodeNpy(Literal::Scalar<double>(2.5));
  ASSERT_TRUE(scalar.ok());
  EXPECT_NE(scalar->find("'shape': (), }"), std::string::npos);
  StatusOr<std::string> vector = EncodeNpy(Literal::Vector<int64_t>({1, 2}));
  ASSERT_TRUE(vector.ok());
  EXPECT_NE(vector->find("'descr': '<i8', 'fortran_order': False, "
                         "'shape': (2,), }"),
            std::string::npos);
  StatusOr<Literal> back = DecodeNpy(*scalar, "s.npy");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->shape().rank(), 0);
  EXPECT_EQ(back->ToVector<double>(), std::vector<double>{2.5});
}

TEST(NpyTest, FortranOrderIsTransposedToRowMajor) {
  // [[1, 2, 3], [4, 5, 6]] stored column by column.
  std::string file =
      MakeNpy("{'descr': '<i4', 'fortran_order': True, 'shape': (2, 3), }",
              Bytes(std::vector<int32_t>{1, 4, 2, 5, 3, 6}));
  StatusOr<Literal> value = DecodeNpy(file, "f.npy");
  ASSERT_TRUE(value.ok()) << value.status().ToString();
  EXPECT_EQ(value->ToVector<int32_t>(),
            (std::vector<int32_t>{1, 2, 3, 4, 5, 6}));

  // Rank 3: element (i, j, k) at i + 2 * j + 4 * k.
  std::vector<int16_t> column(2 * 2 * 3);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j)
      for (int k = 0; k < 3; ++k)
        column[i + 2 * j + 4 * k] = 100 * i + 10 * j + k;
  StatusOr<Literal> cube = DecodeNpy(
      MakeNpy("{'descr': '<i2', 'fortran_order': True, 'shape': (2, 2, 3), }",
              Bytes(column)),
      "cube.npy");
  ASSERT_TRUE(cube.ok());
  EXPECT_EQ(cube->ToVector<int16_t>(),
            (std::vector<int16_t>{0, 1, 2, 10, 11, 12, 100, 101, 102, 110, 111,
                                  112}));
}

TEST(NpyTest, BigEndianIsSwapped) {
  std::string file =
      MakeNpy("{'descr': '>i4', 'fortran_order': False, 'shape': (2,), }",
              std::string("\x00\x00\x01\x02\xFF\xFF\xFF\xFE", 8));
  StatusOr<Literal> value = DecodeNpy(file, "be.npy");
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(value->ToVector<int32_t>(), (std::vector<int32_t>{258, -2}));

  // Complex: each half swapped on its own. 1.0f is 3F800000.
  std::string complex =
      MakeNpy("{'descr': '>c8', 'fortran_order': False, 'shape': (1,), }",
              std::string("\x3F\x80\x00\x00\xC0\x00\x00\x00", 8));
  StatusOr<Literal> z = DecodeNpy(complex, "z.npy");
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(z->ToVector<std::complex<float>>()[0],
            std::complex<float>(1.0f, -2.0f));
}

TEST(NpyTest, ReadsVersions2And3) {
  for (int major : {2, 3}) {
    std::string file =
        MakeNpy("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }",
                Bytes(std::vector<double>{-0.5}), major);
    StatusOr<Literal> value = DecodeNpy(file, "v.npy");
    ASSERT_TRUE(value.ok()) << major << ": " << value.status().ToString();
    EXPECT_EQ(value->ToVector<double>(), std::vector<double>{-0.5});
  }
}

TEST(NpyTest, BoolBytesAreNormalised) {
  std::string file =
      MakeNpy("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }",
              std::string("\x00\x01\x05", 3));
  StatusOr<Literal> value = DecodeNpy(file, "b.npy");
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(value->ToVector<bool>(), (std::vector<bool>{false, true, true}));
  EXPECT_EQ(value->data<uint8_t>()[2], 1);
}

void ExpectError(const std::string& file, const std::string& fragment) {
  StatusOr<Literal> value = DecodeNpy(file, "bad.npy");
  ASSERT_FALSE(value.ok()) << fragment;
  EXPECT_EQ(value.status().code(), XLA_FFI_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(value.status().message(), HasSubstr("bad.npy"));
  EXPECT_THAT(value.status().message(), HasSubstr(fragment));
}

TEST(NpyTest, ErrorsNameTheFileAndTheProblem) {
  ExpectError("PK\x03\x04 a zip", "not a .npy file");
  ExpectError(MakeNpy("{'descr': '<f4', 'fortran_order': False, "
                      "'shape': (4,), }",
                      std::string(8, '\0')),
              "the data holds 8 bytes, but shape (4,) of '<f4' needs 16");
  ExpectError(MakeNpy("{'descr': '<f4', 'fortran_order': False, "
                      "'shape': (2,), }",
                      std::string(11, '\0')),
              "3 bytes after the data (shape (2,) of '<f4' needs 8, the file "
              "holds 11 after its header)");
  ExpectError(MakeNpy("{'descr': '<U5', 'fortran_order': False, "
                      "'shape': (1,), }",
                      std::string(20, '\0')),
              "dtype '<U5' is not supported");
  ExpectError(MakeNpy("{'descr': [('a', '<i4')], 'fortran_order': False, "
                      "'shape': (1,), }",
                      std::string(4, '\0')),
              "structured (record) dtypes are not supported");
  ExpectError(MakeNpy("{'descr': '<f4', 'shape': (1,), }", "abcd"),
              "lacks one of 'descr', 'fortran_order', 'shape'");
  ExpectError(MakeNpy("{'descr': '<f4', 'fortran_order': Maybe, "
                      "'shape': (1,), }",
                      "abcd"),
              "expected True or False for 'fortran_order'");
  std::string v4 = MakeNpy(
      "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", "abcd");
  v4[6] = 4;
  ExpectError(v4, ".npy format version 4.0 is not supported");
}

TEST(NpyTest, MissingFileIsNotFound) {
  StatusOr<Literal> value = ReadNpyFile("/nonexistent/x.npy");
  ASSERT_FALSE(value.ok());
  EXPECT_EQ(value.status().code(), XLA_FFI_Error_Code_NOT_FOUND);
  EXPECT_THAT(value.status().message(), HasSubstr("/nonexistent/x.npy"));
}

TEST(NpyTest, WritesAFileThatReadsBack) {
  // Per process: another checkout's tests may run at the same time.
  std::string path = ::testing::TempDir() + "/xffi_npy_test_" +
                     std::to_string(::getpid()) + ".npy";
  Literal literal = Literal::FromVector<float>({2, 2}, {1, -2, 3.5f, 0});
  ASSERT_TRUE(WriteNpyFile(path, literal).ok());
  StatusOr<Literal> back = ReadNpyFile(path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, literal);
  std::remove(path.c_str());

  Status refused = WriteNpyFile(path, Literal::Tuple({}));
  EXPECT_FALSE(refused.ok());
  EXPECT_THAT(refused.message(), HasSubstr("only arrays can be saved"));
}

}  // namespace
}  // namespace xffi
