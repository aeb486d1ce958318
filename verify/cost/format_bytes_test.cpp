// Bytes per value (softfloat/cost/format_bytes.hpp, weights.hpp): every named format at
// the width of its Float storage type or packed as simd::quantize_packed packs it; the
// array sizes against the library's own buffer sizes (simd::packed_size,
// mx::element_bytes + mx::scale_count, nvfp4's); MXFP4 at 4.25 bits; the weights of
// 7e10 parameters (140e9, 70e9, 35e9, 37.1875e9 bytes) and their decode times (41.8,
// 20.9, 10.4 ms at 3.35e12 B/s); specs and types as arguments; bad specs.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "softfloat/cost/format_bytes.hpp"
#include "softfloat/cost/weights.hpp"
#include "softfloat/format_spec.hpp"
#include "softfloat/mx.hpp"
#include "softfloat/named_formats.hpp"
#include "softfloat/nvfp4.hpp"
#include "softfloat/simd.hpp"

namespace softfloat::cost {
namespace {

// Plain formats: the bits of the code type the library keeps them in, except the 4- and
// 6-bit formats, which simd packs.
template <class F>
void expect_storage_of_type(int packed_bits = 0) {
  const StorageFormat storage = storage_format_of<F>();
  SCOPED_TRACE(storage.name());
  const int expected = packed_bits != 0 ? packed_bits : int(8 * sizeof(typename F::storage_type));
  EXPECT_EQ(storage.element_bits(), expected);
  EXPECT_EQ(storage.bits_per_value(), double(expected));
  EXPECT_FALSE(storage.is_block_scaled());
  EXPECT_EQ(storage.scale_bits(), 0);
  EXPECT_EQ(storage.block_size(), 0u);
  EXPECT_EQ(storage, StorageFormat(format_of<F>()));
  EXPECT_EQ(storage, StorageFormat(format_name(format_of<F>())));
}

TEST(FormatBytes, NamedFormats) {
  expect_storage_of_type<FP64>();
  expect_storage_of_type<FP32>();
  expect_storage_of_type<TF32>();  // 19 bits in a uint32_t
  expect_storage_of_type<BF16>();
  expect_storage_of_type<FP16>();
  expect_storage_of_type<E5M2>();
  expect_storage_of_type<E4M3>();
  expect_storage_of_type<E4M3FNUZ>();
  expect_storage_of_type<E5M2FNUZ>();
  expect_storage_of_type<E8M0>();
  expect_storage_of_type<P3109<8, 4>>();
  expect_storage_of_type<E3M2>(6);
  expect_storage_of_type<E2M3>(6);
  expect_storage_of_type<E2M1>(4);
  // The widths themselves, written out.
  EXPECT_EQ(StorageFormat("fp32").bits_per_value(), 32.0);
  EXPECT_EQ(StorageFormat("tf32").bits_per_value(), 32.0);
  EXPECT_EQ(StorageFormat("bf16").bits_per_value(), 16.0);
  EXPECT_EQ(StorageFormat("e4m3").bits_per_value(), 8.0);
  EXPECT_EQ(StorageFormat("e3m2").bits_per_value(), 6.0);
  EXPECT_EQ(StorageFormat("e2m1").bits_per_value(), 4.0);
  EXPECT_EQ(StorageFormat("e2m1").bytes_per_value(), 0.5);
  // Generic specs: 9 bits take 16, 7 bits (not packed by the library) a byte.
  EXPECT_EQ(StorageFormat("e5m3").element_bits(), 16);
  EXPECT_EQ(StorageFormat("e3m3").element_bits(), 8);
  EXPECT_EQ(StorageFormat("e6m9").element_bits(), 16);
  EXPECT_EQ(StorageFormat("e3m2:ieee").element_bits(), 6);
}

TEST(FormatBytes, PackedArraysAreSimdsBuffers) {
  for (const char* spec : {"e2m1", "e3m2", "e2m3"}) {
    const StorageFormat storage(spec);
    for (std::uint64_t n = 0; n <= 130; ++n)
      EXPECT_EQ(storage.storage_bytes(n), simd::packed_size(parse_format(spec), n)) << spec << " n = " << n;
  }
  // Unpacked: n codes of the storage type.
  EXPECT_EQ(StorageFormat("bf16").storage_bytes(1001), 2002u);
  EXPECT_EQ(StorageFormat("tf32").storage_bytes(1001), 4004u);
  EXPECT_EQ(StorageFormat("e4m3").storage_bytes(0), 0u);
}

TEST(FormatBytes, MxFormatsCarryTheirScales) {
  const StorageFormat mxfp4("mxfp4");
  EXPECT_EQ(mxfp4, StorageFormat("mxfp4_e2m1"));
  EXPECT_EQ(mxfp4, StorageFormat("MXFP4"));
  EXPECT_EQ(mxfp4, mx_storage_format(mx::Element::fp4_e2m1));
  EXPECT_EQ(mxfp4.name(), "mxfp4_e2m1");
  EXPECT_EQ(mxfp4.element(), format_of<E2M1>());
  EXPECT_EQ(mxfp4.element_bits(), 4);
  ASSERT_TRUE(mxfp4.scale().has_value());
  EXPECT_EQ(*mxfp4.scale(), format_of<E8M0>());
  EXPECT_EQ(mxfp4.scale_bits(), 8);
  EXPECT_EQ(mxfp4.block_size(), 32u);
  EXPECT_EQ(mxfp4.bits_per_value(), 4.25);  // 4 + 8 / 32
  EXPECT_EQ(StorageFormat("mxfp6_e3m2").bits_per_value(), 6.25);
  EXPECT_EQ(StorageFormat("mxfp6_e2m3").bits_per_value(), 6.25);
  EXPECT_EQ(StorageFormat("mxfp8_e4m3").bits_per_value(), 8.25);
  EXPECT_EQ(StorageFormat("mxfp8_e5m2").bits_per_value(), 8.25);
  EXPECT_EQ(StorageFormat("mxint8").bits_per_value(), 8.25);
  EXPECT_EQ(StorageFormat("nvfp4").bits_per_value(), 4.5);  // 4 + 8 / 16
  EXPECT_EQ(*StorageFormat("nvfp4").scale(), format_of<E4M3>());
  // A different block size moves the overhead: 4 + 8 / 16.
  EXPECT_EQ(mx_storage_format(mx::Element::fp4_e2m1, 16).bits_per_value(), 4.5);
  // Arrays of any length: the library's element and scale buffers, byte for byte.
  for (const mx::Element element : mx::kAllElements) {
    const StorageFormat storage = mx_storage_format(element);
    for (std::uint64_t n = 0; n <= 200; ++n)
      EXPECT_EQ(storage.storage_bytes(n), mx::element_bytes(element, n) + mx::scale_count(n))
          << mx::element_name(element) << " n = " << n;
  }
  for (std::uint64_t n = 0; n <= 200; ++n)
    EXPECT_EQ(StorageFormat("nvfp4").storage_bytes(n), nvfp4::element_bytes(n) + nvfp4::scale_count(n)) << n;
}

TEST(Weights, SeventyBillionParameters) {
  EXPECT_EQ(weight_bytes(7e10, "bf16"), 140e9);
  EXPECT_EQ(weight_bytes(7e10, "e4m3"), 70e9);
  EXPECT_EQ(weight_bytes(7e10, "e2m1"), 35e9);   // packed two a byte
  EXPECT_EQ(weight_bytes(7e10, "mxfp4"), 37.1875e9);  // 7e10 * 4.25 / 8
  EXPECT_NEAR(weight_bytes(7e10, "mxfp4"), 37.19e9, 0.005e9);
  // The same answer from a type, a Format, a spec string and a std::string.
  EXPECT_EQ(weight_bytes(7e10, storage_format_of<BF16>()), 140e9);
  EXPECT_EQ(weight_bytes(7e10, format_of<BF16>()), 140e9);
  EXPECT_EQ(weight_bytes(7e10, BF16::format), 140e9);
  EXPECT_EQ(weight_bytes(7e10, std::string("bf16")), 140e9);
  // The rate and the exact array agree when the blocks and bytes come out even.
  EXPECT_EQ(double(StorageFormat("mxfp4").storage_bytes(70'000'000'000)), 37.1875e9);
  EXPECT_EQ(weight_bytes(0, "bf16"), 0.0);
}

TEST(Weights, DecodeTimePerToken) {
  const double hbm = 3.35e12;
  const double bf16 = decode_seconds_per_token(70e9, "bf16", hbm) * 1e3;
  const double fp8 = decode_seconds_per_token(70e9, "e4m3", hbm) * 1e3;
  const double fp4 = decode_seconds_per_token(70e9, "e2m1", hbm) * 1e3;
  EXPECT_NEAR(bf16, 41.791045, 1e-6);  // 140e9 / 3.35e12
  EXPECT_NEAR(fp8, 20.895522, 1e-6);
  EXPECT_NEAR(fp4, 10.447761, 1e-6);
  EXPECT_NEAR(bf16, 41.8, 0.05);
  EXPECT_NEAR(fp8, 20.9, 0.05);
  EXPECT_NEAR(fp4, 10.4, 0.05);
}

TEST(FormatBytesErrors, BadSpecsAndArguments) {
  EXPECT_THROW(StorageFormat("fp17"), std::invalid_argument);
  EXPECT_THROW(StorageFormat("mxfp5"), std::invalid_argument);
  EXPECT_THROW(StorageFormat("nvfp8"), std::invalid_argument);
  EXPECT_THROW(StorageFormat(""), std::invalid_argument);
  EXPECT_THROW(StorageFormat("e4m0"), std::invalid_argument);
  EXPECT_THROW(StorageFormat(Format{4, 0, 7, Specials::ieee}), std::invalid_argument);
  EXPECT_THROW(StorageFormat::block_scaled(format_of<E2M1>(), 4, format_of<E8M0>(), 0, "zero blocks"),
               std::invalid_argument);
  EXPECT_THROW(StorageFormat::block_scaled(format_of<E4M3>(), 4, format_of<E8M0>(), 32, "too narrow"),
               std::invalid_argument);
  EXPECT_THROW(weight_bytes(-1, "bf16"), std::invalid_argument);
  EXPECT_THROW(decode_seconds_per_token(70e9, "bf16", 0), std::invalid_argument);
  EXPECT_THROW(decode_seconds_per_token(70e9, "bf16", -3.35e12), std::invalid_argument);
  EXPECT_THROW(StorageFormat("bf16").storage_bytes(~std::uint64_t{0}), std::invalid_argument);
  // An unknown name lists the block-scaled names beside parse_format()'s.
  try {
    StorageFormat("fp17");
    FAIL() << "fp17 accepted";
  } catch (const std::invalid_argument& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("invalid format spec 'fp17': unknown format 'fp17'"), std::string::npos) << message;
    EXPECT_NE(message.find("or block-scaled: mxfp8_e4m3"), std::string::npos) << message;
  }
  try {
    StorageFormat("mxfp5");
    FAIL() << "mxfp5 accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("unknown block-scaled format; expected mxfp8_e4m3"), std::string::npos)
        << error.what();
  }
}

}  // namespace
}  // namespace softfloat::cost
